// `kbdata fastest` as a query (analysis/fastest.h): per (leaderboard, runner), the qualifying row
// (scored, passed, not hacked) with the lowest score, ties by submission time, then id. The data
// is opened and loaded by the caller, which hands every selected row to add().
#pragma once

#include <vector>

#include "analysis/fastest.h"
#include "dataset/loader.h"
#include "dataset/submission.h"
#include "result/table.h"

namespace kbdata::query {

struct FastestRequest {
  bool with_code = false;    // read each row's code (for the code column, or a table's blocks)
  bool code_column = false;  // the answer has a code column (the machine formats)
};

// What the rows are (Parquet's kbdata.rule).
extern const char* const kFastestRule;

// problem_name, leaderboard_id, runner, user_id, user_name, score, submission_id,
// submission_time, and with the code column code.
[[nodiscard]] std::vector<result::Column> fastest_columns(bool code_column);

class FastestQuery {
 public:
  explicit FastestQuery(FastestRequest request) : request_(request) {}

  // What to read for the selection `filter`: the scored and passed rows only (pushed down), with
  // their code when asked, without details.
  [[nodiscard]] dataset::LoadOptions load_options(dataset::Filter filter, int threads) const;
  // One row of the selection.
  void add(const dataset::Submission& s) { builder_.add(s); }

  // One row per (leaderboard, runner) that has a qualifying row, each naming its leaderboard.
  // found() holds the same rows (with their code) for a table's code blocks.
  [[nodiscard]] result::ResultTable finish();
  [[nodiscard]] const std::vector<analysis::Fastest>& found() const { return found_; }

 private:
  FastestRequest request_;
  analysis::FastestBuilder builder_;
  std::vector<analysis::Fastest> found_;
};

}  // namespace kbdata::query
