#include "query/tasks.h"

#include "analysis/stats.h"
#include "dataset/epochs.h"
#include "dataset/hardware.h"
#include "dataset/registry.h"

namespace kbdata::query {
namespace {

using result::Cell;
using result::Column;
using result::ColumnType;
using result::List;

// How the leaderboard combines its benchmarks: the registry's entry by id, else by name (PMPP v2
// publishes no ids), else geom, which every competition problem uses (registry.h ranking_by_of).
std::string ranking_by_text(int64_t leaderboard_id, const std::string& problem_name) {
  for (const dataset::LeaderboardRef& ref : dataset::find_leaderboard(leaderboard_id)) {
    if (ref.leaderboard->ranking_by) return dataset::to_string(*ref.leaderboard->ranking_by);
  }
  for (const dataset::LeaderboardRef& ref : dataset::find_problem(problem_name)) {
    if (ref.leaderboard->ranking_by) return dataset::to_string(*ref.leaderboard->ranking_by);
  }
  return dataset::to_string(dataset::ranking_by_of(leaderboard_id));
}

const dataset::LeaderboardEntry* entry_of(const std::vector<dataset::LeaderboardEntry>& entries,
                                          int64_t leaderboard_id, const std::string& name) {
  for (const dataset::LeaderboardEntry& e : entries) {
    if (e.id && *e.id == leaderboard_id) return &e;
  }
  for (const dataset::LeaderboardEntry& e : entries) {
    if (!e.id && e.name == name) return &e;
  }
  return nullptr;
}

// The GPU of a runner ("H100", "MI300 x8"), null when the runner is none or unknown.
Cell gpu_cell(const std::optional<std::string>& runner) {
  if (!runner) return Cell{};
  const auto g = dataset::gpu_of_runner(*runner);
  if (!g) return Cell{};
  return g->devices > 1 ? std::string(g->gpu) + " x" + std::to_string(g->devices)
                        : std::string(g->gpu);
}

// A task's epochs as its four list cells: each epoch, when it began (null for epoch 0), and the
// noise measured in it (sigma and pairs, null where there is no estimate).
struct EpochLists {
  List epochs, starts, sigmas, pairs;
};

EpochLists epoch_lists(const analysis::SeriesKey& key, const std::set<int>& series_epochs,
                       const std::map<int, std::vector<analysis::SeriesNoise>>& noise) {
  EpochLists lists;
  const auto changes = dataset::epoch_changes(key.leaderboard_id);
  for (int epoch : series_epochs) {
    lists.epochs.emplace_back(int64_t{epoch});
    if (epoch == 0) {
      lists.starts.emplace_back();
    } else {
      lists.starts.emplace_back(changes[epoch - 1].time_us);
    }
    std::optional<double> sigma;
    std::optional<int64_t> count;
    if (const auto n = noise.find(epoch); n != noise.end()) {
      for (const analysis::SeriesNoise& s : n->second) {
        if (s.leaderboard_id == key.leaderboard_id && s.runner == key.runner && s.combined) {
          sigma = s.combined->sigma;
          count = static_cast<int64_t>(s.combined->pairs);
        }
      }
    }
    if (sigma) {
      lists.sigmas.emplace_back(*sigma);
      lists.pairs.emplace_back(*count);
    } else {
      lists.sigmas.emplace_back();
      lists.pairs.emplace_back();
    }
  }
  return lists;
}

}  // namespace

const char* const kTasksRule =
    "kbdata tasks: one task per (leaderboard, runner) with a qualifying score (scored, passed, not "
    "hacked); the human distribution is of the users' best qualifying scores over every epoch, "
    "first and last submission of every row; noise per harness epoch (docs/evaluation.md)";

std::vector<Column> tasks_columns() {
  return {{"leaderboard_id", ColumnType::INT64},
          {"problem_name", ColumnType::STRING},
          {"runner", ColumnType::STRING},
          {"gpu", ColumnType::STRING},
          {"ranking_by", ColumnType::STRING},
          {"deadline", ColumnType::TIMESTAMP},
          {"first_submission", ColumnType::TIMESTAMP},
          {"last_submission", ColumnType::TIMESTAMP},
          {"users", ColumnType::INT64},
          {"record", ColumnType::SCORE},
          {"second", ColumnType::SCORE},
          {"third", ColumnType::SCORE},
          {"top10_cut", ColumnType::SCORE},
          {"q1", ColumnType::SCORE},
          {"median", ColumnType::SCORE},
          {"q3", ColumnType::SCORE},
          {"record_user_id", ColumnType::STRING},
          {"record_user_name", ColumnType::STRING},
          {"record_submission_id", ColumnType::INT64},
          {"record_time", ColumnType::TIMESTAMP},
          {"epochs", ColumnType::INT64, false, true},
          {"epoch_starts", ColumnType::TIMESTAMP, false, true},
          {"noise_sigma", ColumnType::DOUBLE, false, true},
          {"noise_pairs", ColumnType::INT64, false, true},
          {"reliability_note", ColumnType::STRING},
          {"contaminated", ColumnType::BOOL},
          {"contaminated_rows", ColumnType::INT64},
          {"description", ColumnType::STRING},
          {"reference", ColumnType::STRING}};
}

void TasksQuery::add(const dataset::Submission& s, std::optional<bool> contaminated) {
  problems_seen_.insert(s.problem_name);
  if (!request_.problems.empty() && !request_.problems.count(s.problem_name)) return;
  Series& series = series_[{s.leaderboard_id, s.runner}];
  series.problem_name = s.problem_name;
  series.first = series.any ? std::min(series.first, s.submission_time) : s.submission_time;
  series.last = series.any ? std::max(series.last, s.submission_time) : s.submission_time;
  series.any = true;
  series.epochs.insert(dataset::epoch_of(s.leaderboard_id, s.submission_time));
  if (contaminated.value_or(false)) ++series.contaminated_rows;
  ranking_.add(s);
}

result::ResultTable TasksQuery::finish(
    const std::map<int, std::vector<analysis::SeriesNoise>>& noise) {
  result::ResultTable table(tasks_columns(), kTasksRule);
  counts_ = {};
  counts_.problems_seen.assign(problems_seen_.begin(), problems_seen_.end());
  std::map<analysis::SeriesKey, analysis::Ranking> rankings;
  for (analysis::Ranking& r : ranking_.finish()) {
    rankings.emplace(analysis::SeriesKey{r.leaderboard_id, r.runner}, std::move(r));
  }
  for (const auto& [key, series] : series_) {
    const auto found = rankings.find(key);
    if (found == rankings.end()) {
      ++counts_.without_users;
      continue;
    }
    if (request_.after && !(series.first > *request_.after)) {
      ++counts_.before_after;
      continue;
    }
    const analysis::Ranking& r = found->second;
    const std::vector<analysis::RankedEntry>& e = r.entries;
    std::vector<double> bests;
    for (const analysis::RankedEntry& x : e) bests.push_back(x.score);
    auto nth = [&](size_t i) -> Cell { return i < e.size() ? Cell{e[i].score} : Cell{}; };

    const dataset::LeaderboardEntry* entry =
        entry_of(request_.leaderboards, key.leaderboard_id, series.problem_name);
    EpochLists lists = epoch_lists(key, series.epochs, noise);
    const std::string_view note = dataset::note_for(key.leaderboard_id);
    const bool contaminated = series.contaminated_rows > 0;
    if (request_.decontaminate && contaminated) ++counts_.contaminated;
    ++counts_.tasks;
    std::vector<Cell> cells;
    cells.reserve(tasks_columns().size());
    cells.emplace_back(key.leaderboard_id);
    cells.emplace_back(series.problem_name);
    cells.push_back(result::optional_cell(key.runner));
    cells.push_back(gpu_cell(key.runner));
    cells.emplace_back(ranking_by_text(key.leaderboard_id, series.problem_name));
    cells.push_back(entry ? result::optional_cell(entry->deadline) : Cell{});
    cells.emplace_back(series.first);
    cells.emplace_back(series.last);
    cells.emplace_back(static_cast<int64_t>(e.size()));
    cells.push_back(nth(0));
    cells.push_back(nth(1));
    cells.push_back(nth(2));
    cells.push_back(nth(9));
    cells.emplace_back(analysis::quantile_cont(bests, 0.25));
    cells.emplace_back(analysis::quantile_cont(bests, 0.5));
    cells.emplace_back(analysis::quantile_cont(bests, 0.75));
    cells.emplace_back(e[0].user_id);
    cells.push_back(result::optional_cell(e[0].user_name));
    cells.emplace_back(e[0].submission_id);
    cells.emplace_back(e[0].submission_time);
    cells.emplace_back(std::move(lists.epochs));
    cells.emplace_back(std::move(lists.starts));
    cells.emplace_back(std::move(lists.sigmas));
    cells.emplace_back(std::move(lists.pairs));
    if (note.empty()) {
      cells.emplace_back();
    } else {
      cells.emplace_back(std::string(note));
    }
    if (request_.decontaminate) {
      cells.emplace_back(contaminated);
      cells.emplace_back(series.contaminated_rows);
    } else {
      cells.emplace_back();
      cells.emplace_back();
    }
    cells.push_back(entry ? result::optional_cell(entry->description) : Cell{});
    cells.push_back(entry ? result::optional_cell(entry->reference) : Cell{});
    table.add_row(std::move(cells), key.leaderboard_id, series.problem_name);
  }
  return table;
}

}  // namespace kbdata::query
