#include "query/fastest.h"

#include <utility>

namespace kbdata::query {

const char* const kFastestRule =
    "kbdata fastest: per (leaderboard, runner), the qualifying row (scored, passed, not hacked) "
    "with the lowest score; ties by submission time, then id";

std::vector<result::Column> fastest_columns(bool code_column) {
  using result::ColumnType;
  std::vector<result::Column> columns = {
      {"problem_name", ColumnType::STRING}, {"leaderboard_id", ColumnType::INT64},
      {"runner", ColumnType::STRING},       {"user_id", ColumnType::STRING},
      {"user_name", ColumnType::STRING},    {"score", ColumnType::SCORE},
      {"submission_id", ColumnType::INT64}, {"submission_time", ColumnType::TIMESTAMP}};
  if (code_column) columns.push_back({"code", ColumnType::STRING});
  return columns;
}

dataset::LoadOptions FastestQuery::load_options(dataset::Filter filter, int threads) const {
  dataset::LoadOptions load;
  load.threads = threads;
  load.filter = std::move(filter);
  load.filter.scored_only = true;  // pushed down: only candidates are decoded
  load.filter.passed_only = true;
  load.with_code = request_.with_code;
  load.with_details = false;  // code_id, file_name and mode are not shown
  return load;
}

result::ResultTable FastestQuery::finish() {
  found_ = builder_.finish();
  result::ResultTable table(fastest_columns(request_.code_column), kFastestRule);
  for (const analysis::Fastest& f : found_) {
    const dataset::Submission& s = f.submission;
    std::vector<result::Cell> cells = {s.problem_name,
                                       s.leaderboard_id,
                                       result::optional_cell(f.runner),
                                       s.user_id,
                                       result::optional_cell(s.user_name),
                                       *s.score,
                                       s.submission_id,
                                       s.submission_time};
    if (request_.code_column) cells.push_back(result::optional_cell(s.code));
    table.add_row(std::move(cells), s.leaderboard_id, s.problem_name);
  }
  return table;
}

}  // namespace kbdata::query
