// `kbdata records` as a query (docs/analyses.md): per (leaderboard, runner), the qualifying rows
// (scored, passed, not hacked) in time order, and among them the records: the first, and each one
// strictly below the record before it, with the record it beat and the factor. The data is opened
// and loaded by the caller, which hands every selected row to add().
#pragma once

#include <vector>

#include "analysis/records.h"
#include "dataset/loader.h"
#include "dataset/submission.h"
#include "result/table.h"

namespace kbdata::query {

// What the rows are (Parquet's kbdata.rule).
extern const char* const kRecordsRule;

// The answer's columns: leaderboard_id, problem_name, runner, submission_time, submission_id,
// user_id, user_name, score, previous, factor.
[[nodiscard]] std::vector<result::Column> records_columns();

class RecordsQuery {
 public:
  // What to read for the selection `filter` (problem or leaderboard, runner, epoch): the scored
  // and passed rows only (pushed down), without code or details.
  [[nodiscard]] static dataset::LoadOptions load_options(dataset::Filter filter, int threads);
  // One row of the selection (only qualifying rows count).
  void add(const dataset::Submission& s) { builder_.add(s); }

  // One section per (leaderboard, runner), titled "PROBLEM (ID) on RUNNER: N records among M
  // qualifying rows, ×F from the first to the last", each leaderboard shown; no sections when
  // nothing qualifies. series() holds the same answer for charts.
  [[nodiscard]] result::ResultTable finish();

  // The series of the last finish(), for the record curve (by leaderboard id, then runner).
  [[nodiscard]] const std::vector<analysis::RecordSeries>& series() const { return series_; }

 private:
  analysis::RecordsBuilder builder_;
  std::vector<analysis::RecordSeries> series_;
};

}  // namespace kbdata::query
