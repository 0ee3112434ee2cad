#include "query/place.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iterator>
#include <set>
#include <string_view>

#include "analysis/ranking.h"
#include "analysis/stats.h"
#include "common/closest_name.h"
#include "dataset/epochs.h"
#include "dataset/hardware.h"
#include "query/noise.h"
#include "report/text.h"

namespace kbdata::query {
namespace {

using result::Cell;
using result::Column;
using result::ColumnType;

constexpr int kTopHumans = 3;  // p_faster_1 .. p_faster_3

// The standard normal distribution function.
double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

// The probability that a score `model` with log-sd `sigma_model` is truly below a score `human`
// with log-sd `sigma_human` (the two measurements independent, log-normal): Phi((log human - log
// model) / sqrt(sigma_model^2 + sigma_human^2)); with no spread, 1, 0.5 or 0.
double probability_faster(double model, double human, double sigma_model, double sigma_human) {
  const double spread = std::sqrt(sigma_model * sigma_model + sigma_human * sigma_human);
  const double gap = std::log(human) - std::log(model);
  if (!(spread > 0)) return gap > 0 ? 1.0 : gap < 0 ? 0.0 : 0.5;
  return normal_cdf(gap / spread);
}

std::string runner_text(const std::optional<std::string>& runner) {
  return runner ? *runner : "no runner";
}

// The start of epoch `epoch` of a leaderboard (µs), nullopt for epoch 0 (it has no start), or
// when the leaderboard has no such epoch (then `exists` is false).
std::optional<int64_t> epoch_start(int64_t leaderboard_id, int epoch, bool& exists) {
  const auto changes = dataset::epoch_changes(leaderboard_id);
  exists = epoch >= 0 && static_cast<size_t>(epoch) <= changes.size();
  if (!exists || epoch == 0) return std::nullopt;
  return changes[epoch - 1].time_us;
}

}  // namespace

const char* const kPlaceRule =
    "kbdata place: a score's rank among the users' best qualifying scores (scored, passed, not "
    "hacked) of one (leaderboard, runner) and harness epoch, submitted at or before a time, with "
    "SQL RANK() (an equal score shares the rank); rank interval and probabilities from the "
    "epoch's measured noise (docs/evaluation.md)";

const char* const kPlaceAggregateRule =
    "kbdata place --aggregate: per label, the share of placed scores faster than the median human, "
    "the 10th human (tasks with 10 users or more) and the record, and the geometric mean of the "
    "factor against the median human (docs/evaluation.md)";

std::vector<Column> place_columns() {
  return {{"label", ColumnType::STRING},         {"problem_name", ColumnType::STRING},
          {"leaderboard_id", ColumnType::INT64}, {"runner", ColumnType::STRING},
          {"score", ColumnType::SCORE},          {"epoch", ColumnType::INT64},
          {"at", ColumnType::TIMESTAMP},         {"users", ColumnType::INT64},
          {"rank", ColumnType::INT64},           {"percentile", ColumnType::DOUBLE},
          {"record", ColumnType::SCORE},         {"factor_record", ColumnType::FACTOR},
          {"human_10th", ColumnType::SCORE},     {"human_median", ColumnType::SCORE},
          {"factor_median", ColumnType::FACTOR}, {"sigma", ColumnType::DOUBLE},
          {"rank_best", ColumnType::INT64},      {"rank_worst", ColumnType::INT64},
          {"p_faster_1", ColumnType::DOUBLE},    {"p_faster_2", ColumnType::DOUBLE},
          {"p_faster_3", ColumnType::DOUBLE},    {"refused", ColumnType::STRING, true}};
}

std::vector<Column> place_aggregate_columns() {
  return {{"label", ColumnType::STRING},
          {"tasks", ColumnType::INT64},
          {"beats_median", ColumnType::DOUBLE},
          {"median_tasks", ColumnType::INT64},
          {"beats_top10", ColumnType::DOUBLE},
          {"top10_tasks", ColumnType::INT64},
          {"beats_record", ColumnType::DOUBLE},
          {"record_tasks", ColumnType::INT64},
          {"geomean_factor_median", ColumnType::FACTOR},
          {"refused", ColumnType::INT64}};
}

PlaceQuery::PlaceQuery(PlaceRequest request, std::vector<Placement> placements)
    : request_(std::move(request)), placements_(std::move(placements)) {}

bool PlaceQuery::wants(const dataset::Submission& s) const {
  if (!s.runner) return false;
  for (const Placement& p : placements_) {
    if (p.problem == s.problem_name && dataset::same_runner(p.runner, *s.runner)) return true;
  }
  return false;
}

void PlaceQuery::know_problems(const std::vector<std::string>& problems) {
  problems_seen_.insert(problems.begin(), problems.end());
}

void PlaceQuery::add(const dataset::Submission& s) {
  problems_seen_.insert(s.problem_name);
  if (!dataset::qualifies(s) || !wants(s)) return;
  Task& task = tasks_[{s.leaderboard_id, s.runner}];
  task.leaderboard_id = s.leaderboard_id;
  task.problem_name = s.problem_name;
  task.runner = s.runner;
  task.rows.push_back(
      {s.user_id, s.user_name, *s.score, s.submission_id, s.submission_time, s.code_id});
}

std::vector<NoiseWanted> PlaceQuery::resolve() {
  std::vector<NoiseWanted> wanted;
  for (auto& [key, task] : tasks_) {
    if (request_.at) {
      task.at = *request_.at;
      task.at_given = true;
    } else if (const auto d = request_.deadlines.find(task.leaderboard_id);
               d != request_.deadlines.end()) {
      task.at = d->second;
    } else {
      task.at = 0;
      for (const HumanRow& r : task.rows) task.at = std::max(task.at, r.submission_time);
    }
    task.epoch = request_.epoch ? *request_.epoch : dataset::epoch_of(task.leaderboard_id, task.at);
    wanted.push_back({task.leaderboard_id, task.problem_name, task.runner, task.epoch});
  }
  return wanted;
}

std::optional<std::string> PlaceQuery::single_problem() const {
  std::optional<std::string> out;
  for (const Placement& p : placements_) {
    if (out && *out != p.problem) return std::nullopt;
    out = p.problem;
  }
  return out;
}

std::vector<std::string> PlaceQuery::problems_without_rows() const {
  std::set<std::string> with_rows, out;
  for (const auto& [key, task] : tasks_) with_rows.insert(task.problem_name);
  for (const Placement& p : placements_) {
    if (!with_rows.count(p.problem)) out.insert(p.problem);
  }
  return {out.begin(), out.end()};
}

std::string PlaceQuery::epoch_refusal(const Placement& p, const Task& task) {
  const std::string where = task.problem_name + " on " + runner_text(task.runner);
  bool exists = true;
  const std::optional<int64_t> start = epoch_start(task.leaderboard_id, task.epoch, exists);
  if (!exists) {
    return where + " has no harness epoch " + std::to_string(task.epoch) + " (its epochs: 0.." +
           std::to_string(dataset::epoch_changes(task.leaderboard_id).size()) + ")";
  }
  if (p.epoch && *p.epoch != task.epoch) {
    return "scored in harness epoch " + std::to_string(*p.epoch) + ", compared with epoch " +
           std::to_string(task.epoch) + ": scores of different harness epochs are not compared";
  }
  if (start && task.at < *start) {
    return std::string(task.at_given ? "--at " : "the time ") + report::people_time_text(task.at) +
           " is before harness epoch " + std::to_string(task.epoch) + " of " + task.problem_name +
           " began (" + report::people_time_text(*start) + "): no score of that epoch existed then";
  }
  return "";
}

std::vector<analysis::Ranking> PlaceQuery::humans_ranking(const Task& task) {
  analysis::RankingBuilder builder;
  for (const HumanRow& r : task.rows) {
    if (r.submission_time > task.at ||
        dataset::epoch_of(task.leaderboard_id, r.submission_time) != task.epoch) {
      continue;
    }
    dataset::Submission s;
    s.leaderboard_id = task.leaderboard_id;
    s.problem_name = task.problem_name;
    s.runner = task.runner;
    s.user_id = r.user_id;
    s.user_name = r.user_name;
    s.score = r.score;
    s.passed = true;
    s.status = "succeeded";
    s.submission_id = r.submission_id;
    s.submission_time = r.submission_time;
    builder.add(s);
  }
  return builder.finish();
}

void PlaceQuery::noise_cells(const Placement& p, const Task& task, analysis::Ranking ranking,
                             const analysis::SeriesNoise* series, std::vector<Cell>& cells) {
  // Each human's measurements: the qualifying rows of its code.
  std::map<std::pair<std::string, int64_t>, int64_t> code_rows;
  std::map<int64_t, int64_t> code_of;
  for (const HumanRow& r : task.rows) {
    if (!r.code_id || r.submission_time > task.at ||
        dataset::epoch_of(task.leaderboard_id, r.submission_time) != task.epoch) {
      continue;
    }
    ++code_rows[{r.user_id, *r.code_id}];
    code_of[r.submission_id] = *r.code_id;
  }
  std::vector<int64_t> measurements;
  for (const analysis::RankedEntry& e : ranking.entries) {
    const auto code = code_of.find(e.submission_id);
    measurements.push_back(code == code_of.end() ? 1 : code_rows[{e.user_id, code->second}]);
  }
  const int64_t users = static_cast<int64_t>(ranking.entries.size());
  analysis::RankedEntry model;
  model.user_id = "";
  model.score = p.score;
  model.submission_time = task.at;
  ranking.entries.push_back(model);
  measurements.push_back(1);
  const std::vector<analysis::RankUncertainty> u =
      analysis::rank_uncertainty(ranking, series, measurements);
  const analysis::RankUncertainty& mine = u.back();
  cells[15] = result::optional_cell(mine.sigma);
  cells[16] = mine.rank_best;
  cells[17] = mine.rank_worst;
  if (mine.sigma) {
    for (int k = 0; k < kTopHumans && k < users; ++k) {
      const double sigma_human =
          u[k].sigma.value_or(0) / std::sqrt(static_cast<double>(u[k].measurements));
      cells[18 + k] =
          probability_faster(p.score, ranking.entries[k].score, *mine.sigma, sigma_human);
    }
  }
}

bool PlaceQuery::place_in(const Placement& p, const Task& task,
                          const std::map<int, std::vector<analysis::SeriesNoise>>& noise,
                          result::ResultTable& table) {
  Outcome outcome;
  outcome.label = p.label;
  outcome.leaderboard_id = task.leaderboard_id;
  outcome.problem_name = task.problem_name;
  std::vector<Cell> cells(place_columns().size());
  cells[0] = result::optional_cell(p.label);
  cells[1] = task.problem_name;
  cells[2] = task.leaderboard_id;
  cells[3] = result::optional_cell(task.runner);
  cells[4] = p.score;
  cells[5] = static_cast<int64_t>(task.epoch);
  cells[6] = task.at;
  std::string why = epoch_refusal(p, task);
  const std::vector<analysis::Ranking> rankings =
      why.empty() ? humans_ranking(task) : std::vector<analysis::Ranking>{};
  if (why.empty() && rankings.empty()) {
    why = "nothing ranks there: no qualifying submission of " + task.problem_name + " on " +
          runner_text(task.runner) + " in harness epoch " + std::to_string(task.epoch) +
          " at or before " + report::people_time_text(task.at);
  }
  if (!why.empty()) {
    cells.back() = why;
    outcomes_.push_back(std::move(outcome));
    table.add_row(std::move(cells), task.leaderboard_id, task.problem_name);
    return false;
  }
  const analysis::Ranking& ranking = rankings.front();
  const std::vector<analysis::RankedEntry>& humans = ranking.entries;
  const int64_t users = static_cast<int64_t>(humans.size());
  int64_t faster = 0, slower = 0;
  std::vector<double> bests;
  for (const analysis::RankedEntry& e : humans) {
    faster += e.score < p.score ? 1 : 0;
    slower += e.score > p.score ? 1 : 0;
    bests.push_back(e.score);
  }
  const double record = humans.front().score;
  const double median = analysis::quantile_cont(bests, 0.5);
  cells[7] = users;
  cells[8] = 1 + faster;
  cells[9] = 100.0 * static_cast<double>(slower) / static_cast<double>(users);
  cells[10] = record;
  cells[11] = record / p.score;
  if (users >= 10) cells[12] = humans[9].score;
  cells[13] = median;
  cells[14] = median / p.score;
  outcome.placed = true;
  outcome.factor_median = median / p.score;
  outcome.beats_median = p.score < median;
  outcome.beats_record = p.score < record;
  if (users >= 10) outcome.beats_top10 = p.score < humans[9].score;

  // The noise of the epoch.
  const analysis::SeriesNoise* series = nullptr;
  if (const auto n = noise.find(task.epoch); n != noise.end()) {
    for (const analysis::SeriesNoise& s : n->second) {
      if (s.leaderboard_id == task.leaderboard_id && s.runner == task.runner) series = &s;
    }
  }
  noise_cells(p, task, ranking, series, cells);
  outcomes_.push_back(std::move(outcome));
  table.add_row(std::move(cells), task.leaderboard_id, task.problem_name);
  return true;
}

void PlaceQuery::refuse_unmatched(const Placement& p, result::ResultTable& table) {
  std::vector<Cell> cells(place_columns().size());
  cells[0] = result::optional_cell(p.label);
  cells[1] = p.problem;
  cells[3] = p.runner;
  cells[4] = p.score;
  std::string why = "nothing ranks there: no qualifying submission of " + p.problem + " on " +
                    p.runner + " in the data";
  const std::vector<std::string> known(problems_seen_.begin(), problems_seen_.end());
  if (!problems_seen_.count(p.problem)) why += did_you_mean(p.problem, known);
  cells.back() = why;
  Outcome outcome;
  outcome.label = p.label;
  outcomes_.push_back(std::move(outcome));
  table.add_row(std::move(cells));
}

result::ResultTable PlaceQuery::finish(
    const std::map<int, std::vector<analysis::SeriesNoise>>& noise) {
  result::ResultTable table(place_columns(), kPlaceRule);
  outcomes_.clear();
  int64_t refused = 0;
  for (const Placement& p : placements_) {
    bool matched = false;
    for (const auto& [key, task] : tasks_) {
      if (task.problem_name != p.problem || !task.runner ||
          !dataset::same_runner(p.runner, *task.runner)) {
        continue;
      }
      matched = true;
      if (!place_in(p, task, noise, table)) ++refused;
    }
    if (!matched) {
      refuse_unmatched(p, table);
      ++refused;
    }
  }
  if (refused > 0) {
    table.summary(std::to_string(refused) + (refused == 1 ? " score" : " scores") +
                  " not placed: see the refused column");
  }
  return table;
}

result::ResultTable PlaceQuery::aggregate() const {
  struct Sums {
    int64_t placed = 0, refused = 0, median = 0, top10 = 0, top10_tasks = 0, record = 0;
    double log_factor = 0;
  };
  std::vector<std::optional<std::string>> order;
  std::map<std::optional<std::string>, Sums> by_label;
  for (const Outcome& o : outcomes_) {
    if (!by_label.count(o.label)) order.push_back(o.label);
    Sums& s = by_label[o.label];
    if (!o.placed) {
      ++s.refused;
      continue;
    }
    ++s.placed;
    s.median += o.beats_median ? 1 : 0;
    s.record += o.beats_record ? 1 : 0;
    if (o.beats_top10) {
      ++s.top10_tasks;
      s.top10 += *o.beats_top10 ? 1 : 0;
    }
    s.log_factor += std::log(*o.factor_median);
  }
  result::ResultTable table(place_aggregate_columns(), kPlaceAggregateRule);
  // The shares come from these leaderboards' scores: their notes are shown.
  for (const Outcome& o : outcomes_) {
    if (o.leaderboard_id) table.leaderboard_shown(*o.leaderboard_id, o.problem_name);
  }
  auto share = [](int64_t n, int64_t of) -> Cell {
    return of > 0 ? Cell{static_cast<double>(n) / static_cast<double>(of)} : Cell{};
  };
  for (const std::optional<std::string>& label : order) {
    const Sums& s = by_label.at(label);
    table.add_row(
        {result::optional_cell(label), s.placed, share(s.median, s.placed), s.placed,
         share(s.top10, s.top10_tasks), s.top10_tasks, share(s.record, s.placed), s.placed,
         s.placed > 0 ? Cell{std::exp(s.log_factor / static_cast<double>(s.placed))} : Cell{},
         s.refused});
  }
  return table;
}

result::ResultTable place_scores(PlaceQuery& query, const dataset::DataDir& dir,
                                 dataset::LoadOptions load, const Loader& loader) {
  load.filter.scored_only = true;
  load.filter.passed_only = true;
  load.with_details = true;  // code_id: the measurements behind a human's best
  const dataset::SubmissionSink add = [&](dataset::Submission&& s) { query.add(s); };
  const std::optional<std::string> one = query.single_problem();
  dataset::ContentsOptions contents;
  contents.threads = load.threads;
  // A problem the files do not hold is refused by a load that names it: the rows are read whole.
  const std::vector<std::string> held =
      one ? dataset::problems_in(dataset::read_contents(dir, contents))
          : std::vector<std::string>();
  query.know_problems(held);  // the load may read one runner's rows: the others' problems count
  if (one && !load.filter.problem && std::binary_search(held.begin(), held.end(), *one)) {
    dataset::LoadOptions pushed = load;
    pushed.filter.problem = one;
    loader("reading the leaderboard", pushed, add);
    // The other problems' rows only name the problems the data holds (add() keeps no row of them).
    if (!query.problems_without_rows().empty()) loader("reading the leaderboards", load, add);
  } else {
    loader("reading the leaderboards", load, add);
  }
  std::set<std::string> problems;
  for (const NoiseWanted& w : query.resolve()) problems.insert(w.problem_name);
  std::map<int, std::vector<analysis::SeriesNoise>> noise;
  for (const std::string& problem : problems) {
    dataset::Filter filter = load.filter;
    filter.scored_only = false;
    filter.passed_only = false;
    filter.runner.reset();
    filter.problem = problem;
    for (auto& [epoch, series] : measure_noise_by_epoch(filter, load.threads, 0.98, loader)) {
      std::vector<analysis::SeriesNoise>& all = noise[epoch];
      all.insert(all.end(), std::make_move_iterator(series.begin()),
                 std::make_move_iterator(series.end()));
    }
  }
  return query.finish(noise);
}

std::optional<double> parse_score_text(const std::string& text) {
  std::string_view t = dataset::trim_blanks(text);
  double value = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (ec != std::errc() || end == t.data()) return std::nullopt;
  std::string_view unit = dataset::trim_blanks(std::string_view(end, t.data() + t.size() - end));
  // Divided, not multiplied by 1e-6: 20 / 1e6 is the double nearest 2e-05, 20 * 1e-6 is not.
  double per_second = 1;
  if (unit.empty() || unit == "s") {
    per_second = 1;
  } else if (unit == "ms") {
    per_second = 1e3;
  } else if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") {  // µ (micro, mu)
    per_second = 1e6;
  } else if (unit == "ns") {
    per_second = 1e9;
  } else {
    return std::nullopt;
  }
  const double seconds = value / per_second;
  if (!dataset::valid_score(seconds)) return std::nullopt;
  return seconds;
}

std::string score_text_error(const std::string& text) {
  return "score '" + report::terminal_text(text, false) +
         "': not a time (a positive number of seconds, optionally with a unit: 1.5e-05, 15us, "
         "0.015 ms)";
}

}  // namespace kbdata::query
