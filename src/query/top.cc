#include "query/top.h"

#include <algorithm>

#include "query/noise_text.h"

namespace kbdata::query {
namespace {

using result::Cell;
using result::Column;
using result::ColumnType;

std::string ranking_title(const analysis::Ranking& r, size_t shown, int64_t limit) {
  std::string title = r.problem_name.empty() ? "leaderboard" : r.problem_name;
  title += " (" + std::to_string(r.leaderboard_id) + ")";
  title += r.runner ? " on " + *r.runner : ", runner not recorded (legacy per-run file)";
  title += ": " + std::to_string(shown) + (shown == 1 ? " user" : " users");
  if (limit > 0) title += " with rank <= " + std::to_string(limit);
  return title;
}

}  // namespace

const char* const kTopRule =
    "kbdata top: per (leaderboard, runner), each user's best qualifying score (scored, passed, not "
    "hacked), ranked ascending with SQL RANK(); ties by submission time, then id (docs/dataset.md "
    "§3)";

std::vector<Column> top_columns(bool uncertainty) {
  // Rankings of several leaderboards (legacy files, a problem on two leaderboards) flatten into
  // one table: each row names its leaderboard, as progression's rows do.
  std::vector<Column> columns = {
      {"leaderboard_id", ColumnType::INT64}, {"problem_name", ColumnType::STRING},
      {"rank", ColumnType::INT64},           {"user_id", ColumnType::STRING},
      {"user_name", ColumnType::STRING},     {"score", ColumnType::SCORE},
      {"submission_id", ColumnType::INT64},  {"submission_time", ColumnType::TIMESTAMP},
      {"runner", ColumnType::STRING}};
  if (uncertainty) {
    const std::vector<Column> extra = {
        {"score_lo", ColumnType::SCORE},  {"score_hi", ColumnType::SCORE},
        {"sigma", ColumnType::DOUBLE},    {"measurements", ColumnType::INT64},
        {"rank_best", ColumnType::INT64}, {"rank_worst", ColumnType::INT64},
        {"tied", ColumnType::BOOL}};
    columns.insert(columns.begin() + 6, extra.begin(), extra.end());  // after score
  }
  return columns;
}

dataset::LoadOptions TopQuery::load_options(dataset::Filter filter, int threads) const {
  dataset::LoadOptions load;
  load.threads = threads;
  load.filter = std::move(filter);
  load.filter.scored_only = true;  // pushed down: only qualifying candidates are decoded
  load.filter.passed_only = true;
  load.with_details = request_.uncertainty;  // code_id only to count measurements of one code
  return load;
}

void TopQuery::add(const dataset::Submission& s) {
  if (request_.uncertainty && analysis::qualifies(s) && s.code_id) {
    ++code_rows_[{s.leaderboard_id, s.runner, s.user_id, *s.code_id}];
    code_of_[{s.leaderboard_id, s.runner, s.submission_id}] = *s.code_id;
  }
  builder_.add(s);
}

result::ResultTable TopQuery::finish(const std::vector<analysis::SeriesNoise>& noise) {
  result::ResultTable table(top_columns(request_.uncertainty), kTopRule);
  const std::vector<analysis::Ranking> rankings = builder_.finish(request_.limit);
  // Intervals need every user of the ranking, not only the ranks shown.
  const std::vector<analysis::Ranking> full = request_.uncertainty && request_.limit > 0
                                                  ? builder_.finish(0)
                                                  : std::vector<analysis::Ranking>{};
  for (size_t ri = 0; ri < rankings.size(); ++ri) {
    const analysis::Ranking& r = rankings[ri];
    table.section(ranking_title(r, r.entries.size(), request_.limit));
    table.leaderboard_shown(r.leaderboard_id, r.problem_name);
    std::vector<analysis::RankUncertainty> extra;
    if (request_.uncertainty) {
      const analysis::Ranking& everyone = full.empty() ? r : full[ri];
      const analysis::SeriesNoise* series = nullptr;
      for (const analysis::SeriesNoise& n : noise) {
        if (n.leaderboard_id == r.leaderboard_id && n.runner == r.runner) series = &n;
      }
      std::vector<int64_t> measurements;
      for (const analysis::RankedEntry& e : everyone.entries) {
        const auto code = code_of_.find({r.leaderboard_id, r.runner, e.submission_id});
        measurements.push_back(
            code == code_of_.end()
                ? 1
                : std::max<int64_t>(
                      1, code_rows_[{r.leaderboard_id, r.runner, e.user_id, code->second}]));
      }
      extra = analysis::rank_uncertainty(everyone, series, measurements);
      extra.resize(r.entries.size());  // the shown ranks come first
      if (series == nullptr || !series->combined) {
        table.summary(ranking_title(r, r.entries.size(), request_.limit) +
                      ": no noise estimate (too few pairs): intervals are the score alone");
      } else if (series->change) {
        table.summary(measured_change(*series));
      }
    }
    for (size_t i = 0; i < r.entries.size(); ++i) {
      const analysis::RankedEntry& e = r.entries[i];
      std::vector<Cell> cells = {r.leaderboard_id,
                                 r.problem_name,
                                 e.rank,
                                 e.user_id,
                                 result::optional_cell(e.user_name),
                                 e.score,
                                 e.submission_id,
                                 e.submission_time,
                                 result::optional_cell(r.runner)};
      if (request_.uncertainty) {
        const analysis::RankUncertainty& u = extra[i];
        const std::vector<Cell> more = {u.lo,           u.hi,        result::optional_cell(u.sigma),
                                        u.measurements, u.rank_best, u.rank_worst,
                                        u.tied};
        cells.insert(cells.begin() + 6, more.begin(), more.end());
      }
      table.add_row(std::move(cells), r.leaderboard_id, r.problem_name);
    }
  }
  return table;
}

}  // namespace kbdata::query
