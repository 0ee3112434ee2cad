// Lineages and their improvement pairs (kbdata pairs, docs/pairs.md): one user's qualifying
// versions on one leaderboard and runner, split where the code is rewritten, and the (baseline,
// improved) pairs of each lineage, with how far the speedup stands above the measurement noise.
// No I/O: src/pairs/pairs.h feeds these from a data folder.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace kbdata::pairs {

// One qualifying version of a kernel as the lineages see it.
struct Version {
  uint32_t row = 0;  // the caller's index of the row (its code and fields)
  int64_t submission_id = 0;
  std::optional<int64_t> code_id;  // null where the file holds none
  int64_t time_us = 0;
  double score = 0;  // seconds, valid (dataset::valid_score)
  int epoch = 0;     // dataset::epoch_of at time_us
  // The code's similarity::code_sketch (similarity::kSketchBins values, owned by the caller);
  // nullptr for an empty code.
  const uint32_t* sketch = nullptr;
};

struct LineageOptions {
  // A version continues a lineage when its code's estimated Jaccard similarity with the lineage's
  // last version is at least this (or both have one code_id).
  double link_similarity = 0.5;
  // The lineages a version is compared with: the most recently continued ones.
  size_t lookback = 64;
};

// The similarity a link is decided by: 1 for one code_id, 0 when either code is empty, else
// similarity::sketch_similarity.
[[nodiscard]] double version_similarity(const Version& a, const Version& b);

// Splits one (leaderboard, user, runner) group's versions, given in time order (submission_time,
// then submission_id), into lineages: each version continues the most recently continued lineage,
// among the `lookback` most recently continued, whose last version it is similar to
// (version_similarity >= link_similarity), else starts a lineage. Returns each lineage as indices
// into `versions`, in time order; lineages in the order of their first version.
[[nodiscard]] std::vector<std::vector<uint32_t>> split_lineages(
    const std::vector<Version>& versions, const LineageOptions& options);

// Cuts a lineage (indices into `versions`, time order) into the stretches whose scores compare:
// at every change of harness epoch when `same_epoch`, and where two consecutive versions are more
// than `max_gap_us` apart when set. Without either, the lineage whole.
[[nodiscard]] std::vector<std::vector<uint32_t>> comparable_stretches(
    const std::vector<Version>& versions, const std::vector<uint32_t>& lineage, bool same_epoch,
    std::optional<int64_t> max_gap_us);

struct VersionPair {
  uint32_t baseline = 0;  // indices into the versions
  uint32_t improved = 0;
};

// The improvement pairs of a stretch (indices into `versions`, time order): by default each new
// best (a score below every earlier version's of the stretch) with the best before it, in time
// order; with `all_pairs`, every earlier version with every later one that scores below it,
// ordered by the later version, then the earlier.
[[nodiscard]] std::vector<VersionPair> improvement_pairs(const std::vector<Version>& versions,
                                                         const std::vector<uint32_t>& stretch,
                                                         bool all_pairs);

// Whether a speedup stands above the noise: with sigma_b and sigma_i the sd of log(score) of one
// measurement at each version's time (analysis::sigma_at), log(speedup) has sd noise_sd =
// sqrt(sigma_b^2 + sigma_i^2) when nothing changed, and the speedup is significant when
// log(speedup) > 1.6449 noise_sd (one-sided, 5%). Both nullopt when either sigma is unknown.
struct Significance {
  std::optional<double> noise_sd;
  std::optional<bool> significant;
};
[[nodiscard]] Significance significance(double speedup, std::optional<double> sigma_baseline,
                                        std::optional<double> sigma_improved);
inline constexpr double kOneSided95 = 1.6448536269514722;

}  // namespace kbdata::pairs
