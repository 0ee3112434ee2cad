#include "query/show.h"

#include <algorithm>
#include <any>

#include "report/submissions.h"

namespace kbdata::query {

dataset::LoadOptions ShowQuery::load_options(int threads) const {
  dataset::LoadOptions load;
  load.threads = threads;
  load.filter.submission_id = submission_id_;
  load.with_code = true;
  load.with_runs = true;
  load.with_results = true;
  return load;
}

const char* const kNearDuplicatesRule =
    "kbdata show --near-duplicates: the leaderboard's submissions, of any user, whose code's "
    "Jaccard similarity with the submission's (5-byte lower-cased shingles) is estimated at or "
    "above "
    "the threshold by a 256-bin one-permutation MinHash cut to a byte a bin "
    "(docs/analyses.md)";

std::vector<result::Column> near_duplicates_columns() {
  std::vector<result::Column> columns = report::row_identity_columns();
  columns.push_back({"similarity", result::ColumnType::DOUBLE});
  return columns;
}

NearDuplicatesQuery::NearDuplicatesQuery(const dataset::Submission& target, double threshold)
    : submission_id_(target.submission_id),
      leaderboard_id_(target.leaderboard_id),
      threshold_(threshold),
      has_code_(target.code && !target.code->empty()) {
  if (has_code_) sketch_ = similarity::byte_sketch(*target.code);
}

dataset::LoadOptions NearDuplicatesQuery::load_options(int threads) const {
  dataset::LoadOptions load;
  load.threads = threads;
  load.filter.leaderboard_id = leaderboard_id_;
  load.with_code = true;
  load.prepare_with(analysis::near_duplicate_step());
  return load;
}

void NearDuplicatesQuery::add(dataset::Submission&& s) {
  if (!has_code_ || s.submission_id == submission_id_) return;
  const auto* sketch = std::any_cast<similarity::ByteSketch>(&s.prepared);
  if (sketch == nullptr) return;
  const std::optional<double> j = similarity::byte_sketch_similarity(sketch_, *sketch);
  if (!j || *j < threshold_) return;
  s.prepared.reset();
  near_.emplace_back(*j, std::move(s));
}

result::ResultTable NearDuplicatesQuery::finish() {
  std::stable_sort(near_.begin(), near_.end(), [](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first > b.first;
    if (a.second.submission_time != b.second.submission_time) {
      return a.second.submission_time < b.second.submission_time;
    }
    return a.second.submission_id < b.second.submission_id;
  });
  result::ResultTable table(near_duplicates_columns(), kNearDuplicatesRule);
  for (const auto& [similarity, s] : near_) {
    std::vector<result::Cell> cells = report::row_identity_cells(s);
    cells.emplace_back(similarity);
    table.add_row(std::move(cells), s.leaderboard_id, s.problem_name);
  }
  near_.clear();
  return table;
}

}  // namespace kbdata::query
