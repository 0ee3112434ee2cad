// `kbdata submissions` as a query: which fields a listing has, what its load reads (the filters
// pushed down, the code only when asked), and its rows as a result table (report/submissions.h's
// typed cells, batch by batch as the scan delivers them). The data is opened and loaded by the
// caller, which hands every selected row to add().
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dataset/loader.h"
#include "dataset/submission.h"
#include "report/submissions.h"
#include "result/table.h"

namespace kbdata::query {

struct SubmissionsRequest {
  dataset::Filter filter;            // unresolved (the caller resolves it against its folder)
  std::vector<std::string> columns;  // names of report::selectable_submission_fields(); empty:
                                     // the defaults
  bool with_code = false;            // add the code (the last field) when `columns` lacks it
  bool for_people = false;  // the defaults of a table for people (fewer fields); else every
                            // field of the flat schema but the code
  int threads = 1;          // the load's threads (dataset::LoadOptions::threads)
};

// The fields of the answer, in order. Does not check the names (report::SubmissionCells does).
[[nodiscard]] std::vector<std::string> submissions_fields(const SubmissionsRequest& request);

// What to read for `request` with the answer's `fields`: its filter, the code only when a field
// needs it (what the code uses is worked out on the load's threads), the benchmarks when asked.
[[nodiscard]] dataset::LoadOptions submissions_load(const SubmissionsRequest& request,
                                                    const std::vector<std::string>& fields);

class SubmissionsQuery {
 public:
  // Throws UsageError for a field that is not one of report::selectable_submission_fields().
  // A batch is sealed every `batch_rows` rows, or sooner once its code holds `batch_code_bytes`
  // (so that a stream of the rows holds little code at a time).
  explicit SubmissionsQuery(const std::vector<std::string>& fields, int64_t batch_rows = 65536,
                            int64_t batch_code_bytes = int64_t{8} << 20);

  // One row of the selection, in load order.
  void add(const dataset::Submission& s);
  [[nodiscard]] int64_t rows() const { return table_.rows(); }
  // The rows so far (sealed batches may be taken from it while rows are still added).
  [[nodiscard]] result::ResultTable& table() { return table_; }
  // The answer: one row per submission, each naming its leaderboard (for its note).
  [[nodiscard]] result::ResultTable finish() { return std::move(table_); }

 private:
  report::SubmissionCells cells_;
  result::ResultTable table_;
  std::vector<result::Cell> row_;
  int64_t batch_rows_;
  int64_t batch_code_bytes_;
  int64_t open_rows_ = 0;        // rows since the last batch was sealed
  int64_t open_code_bytes_ = 0;  // their code's bytes
};

}  // namespace kbdata::query
