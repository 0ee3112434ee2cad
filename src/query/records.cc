#include "query/records.h"

#include <fmt/format.h>

namespace kbdata::query {
namespace {

using result::Column;
using result::ColumnType;

std::string series_title(const analysis::RecordSeries& s) {
  std::string title = (s.problem_name.empty() ? "leaderboard" : s.problem_name) + " (" +
                      std::to_string(s.leaderboard_id) + ")";
  title += s.runner ? " on " + *s.runner : ", runner not recorded (legacy per-run file)";
  title += ": " + std::to_string(s.records.size()) +
           (s.records.size() == 1 ? " record" : " records") + " among " +
           std::to_string(s.qualifying_rows) + " qualifying rows";
  if (s.records.size() > 1) {
    title += fmt::format(", ×{:.2f} from the first to the last",
                         s.records.front().score / s.records.back().score);
  }
  return title;
}

}  // namespace

const char* const kRecordsRule =
    "kbdata records: per (leaderboard, runner), the qualifying rows (scored, passed, not hacked) "
    "in time order; a record is the first or one strictly below the record before it "
    "(docs/analyses.md)";

std::vector<Column> records_columns() {
  return {{"leaderboard_id", ColumnType::INT64}, {"problem_name", ColumnType::STRING},
          {"runner", ColumnType::STRING},        {"submission_time", ColumnType::TIMESTAMP},
          {"submission_id", ColumnType::INT64},  {"user_id", ColumnType::STRING},
          {"user_name", ColumnType::STRING},     {"score", ColumnType::SCORE},
          {"previous", ColumnType::SCORE},       {"factor", ColumnType::FACTOR}};
}

dataset::LoadOptions RecordsQuery::load_options(dataset::Filter filter, int threads) {
  dataset::LoadOptions load;
  load.threads = threads;
  load.filter = std::move(filter);
  load.filter.scored_only = true;
  load.filter.passed_only = true;
  load.with_details = false;  // code_id, file_name and mode are not shown
  return load;
}

result::ResultTable RecordsQuery::finish() {
  series_ = builder_.finish();
  result::ResultTable table(records_columns(), kRecordsRule);
  for (const analysis::RecordSeries& s : series_) {
    table.section(series_title(s));
    table.leaderboard_shown(s.leaderboard_id, s.problem_name);
    for (const analysis::Record& r : s.records) {
      table.add_row(
          {s.leaderboard_id, s.problem_name, result::optional_cell(s.runner), r.submission_time,
           r.submission_id, r.user_id, result::optional_cell(r.user_name), r.score,
           result::optional_cell(r.previous), result::optional_cell(r.factor)},
          s.leaderboard_id, s.problem_name);
    }
  }
  return table;
}

}  // namespace kbdata::query
