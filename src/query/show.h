// `kbdata show` as queries: the rows of one submission (ShowQuery: the submission model itself,
// code, runs and benchmark results included, which report::SubmissionWriter renders), and its
// near-duplicates on its leaderboard (NearDuplicatesQuery, analysis/near_duplicates.h). The data is
// opened and loaded by the caller with the query's load options.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "analysis/near_duplicates.h"
#include "dataset/loader.h"
#include "dataset/submission.h"
#include "result/table.h"
#include "similarity/sketch.h"

namespace kbdata::query {

class ShowQuery {
 public:
  explicit ShowQuery(int64_t submission_id) : submission_id_(submission_id) {}

  // What to read: the submission's rows, with code, runs and benchmark results.
  [[nodiscard]] dataset::LoadOptions load_options(int threads) const;
  // One loaded row (every row the load options select is the submission's).
  void add(dataset::Submission&& s) { rows_.push_back(std::move(s)); }
  // The submission's model rows in the files' order (a flat file holds one per runner); empty
  // when the folder has no such submission.
  [[nodiscard]] const std::vector<dataset::Submission>& rows() const { return rows_; }

 private:
  int64_t submission_id_;
  std::vector<dataset::Submission> rows_;
};

// What the rows are (Parquet's kbdata.rule).
extern const char* const kNearDuplicatesRule;

// report::row_identity_columns(), then similarity.
[[nodiscard]] std::vector<result::Column> near_duplicates_columns();

class NearDuplicatesQuery {
 public:
  // The near-duplicates of `target`'s code at or above `threshold` (in (0, 1]).
  NearDuplicatesQuery(const dataset::Submission& target, double threshold);

  // Whether the target has code to compare (without, the answer has no rows).
  [[nodiscard]] bool has_code() const { return has_code_; }
  // What to read: the target's leaderboard, with code, sketched on the scan's workers
  // (analysis::near_duplicate_step).
  [[nodiscard]] dataset::LoadOptions load_options(int threads) const;
  // One loaded row: kept when it is another submission whose code is similar enough.
  void add(dataset::Submission&& s);

  // The rows kept, most similar first (then earliest, then by id, then as loaded), each naming
  // its leaderboard.
  [[nodiscard]] result::ResultTable finish();

 private:
  int64_t submission_id_;
  int64_t leaderboard_id_;
  double threshold_;
  bool has_code_;
  similarity::ByteSketch sketch_;
  std::vector<std::pair<double, dataset::Submission>> near_;
};

}  // namespace kbdata::query
