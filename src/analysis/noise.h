// Measurement noise per (leaderboard, runner) (kbdata noise, docs/noise.md): how far one score is
// from the time its code would measure on average, as the standard deviation sigma of the score's
// natural logarithm (0.03: about 3% from one measurement to the next), with a 95% interval and the
// number of pairs (or runs) it rests on, from every source the data offers:
//
//   harness_err     legacy runs: the per-benchmark standard error of the scoring run (`err`, or
//                   `std` / sqrt(`runs`)), propagated to the score's log (run_log_variance); sigma
//                   is the root of their mean
//   public_secret   legacy runs: the public run's score against the secret run of the same
//                   submission (its score recomputed from its benchmark means)
//   same_code       the same code_id measured again on the same runner (consecutive in time)
//   near_identical  consecutive submissions of one user on one leaderboard whose code differs but
//                   is near-identical (estimated Jaccard of the dedup shingles >= the threshold)
//
// A pair source gives log differences d = log(b) - log(a), each the difference of two independent
// measurements: sd(d) = sqrt(2) sigma. Its median is the genuine change between the two (none for
// repeats, the speed-up of a small edit for near-identical code) and is removed; the spread
// around it is measured robustly (pair_estimate), so that the occasional edit that really changed
// the speed does not count as noise. Over time, the centred differences of every pair source are
// searched for one change of level (find_change_point).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/ranking.h"
#include "analysis/series_key.h"
#include "dataset/loader.h"
#include "dataset/registry.h"
#include "dataset/submission.h"
#include "similarity/sketch.h"

namespace kbdata::analysis {

enum class NoiseSource { HARNESS_ERR, PUBLIC_SECRET, SAME_CODE, NEAR_IDENTICAL, COMBINED };

[[nodiscard]] const char* to_string(NoiseSource source);

struct NoiseEstimate {
  NoiseSource source = NoiseSource::COMBINED;
  uint64_t pairs = 0;   // pairs; runs for harness_err; the sum over the sources for combined
  double sigma = 0;     // sd of the log of one score
  double sigma_lo = 0;  // 95% interval
  double sigma_hi = 0;
  double shift = 0;  // pair sources: the median log difference removed (genuine change)
};

// A centred log difference of one pair at the later measurement's time.
struct TimedDifference {
  int64_t time_us = 0;
  double value = 0;
};

struct ChangePoint {
  int64_t time_us = 0;  // the first pair of the new level
  NoiseEstimate before;
  NoiseEstimate after;
  double statistic = 0;  // the two-segment statistic (see find_change_point)
  double critical = 0;   // what it had to exceed
};

// The noise of one window of pairs, for the plot.
struct NoisePoint {
  int64_t time_us = 0;  // median time of its pairs
  double sigma = 0;
  uint64_t pairs = 0;
};

struct SeriesNoise {
  int64_t leaderboard_id = 0;
  std::string problem_name;
  std::optional<std::string> runner;
  std::vector<NoiseEstimate> sources;  // the sources with at least 2 pairs (runs), in enum order
  // combine() of the repeat sources (public_secret, same_code, near_identical); of harness_err
  // only when none of those has an estimate.
  std::optional<NoiseEstimate> combined;
  std::optional<ChangePoint> change;
  std::vector<NoisePoint> over_time;
};

// The sigma of one score taken at `time_us`: the level before or after the change point when the
// series has one, else the combined estimate; nullopt without an estimate.
[[nodiscard]] std::optional<double> sigma_at(const SeriesNoise& series, int64_t time_us);

// The robust estimate of a pair source from its log differences (any order, at least 2): the
// median m is the genuine change (NoiseEstimate::shift); sigma = 1.4826 MAD / sqrt(2), MAD the
// median of |d - m| (1.4826 MAD is the standard deviation of a normal distribution); the 95%
// interval sigma exp(+-1.96 x 1.1664 / sqrt(n)), 1.1664 / sqrt(n) being the asymptotic relative
// standard error of the MAD for normal data. nullopt for fewer than 2 differences.
[[nodiscard]] std::optional<NoiseEstimate> pair_estimate(NoiseSource source,
                                                         std::vector<double> differences);

// The harness estimate from per-run variances of the log score (at least 2): sigma = sqrt(mean);
// the interval from the mean's standard error, sqrt(mean +- 1.96 sd / sqrt(n)) (the lower end
// clamped at 0).
[[nodiscard]] std::optional<NoiseEstimate> harness_estimate(const std::vector<double>& variances);

// The variance of log(score) implied by a run's benchmark errors (delta method): with relative
// errors r_i = err_i / mean_i of n benchmarks, GEOM: sum r_i^2 / n^2; MEAN: sum err_i^2 /
// (sum mean_i)^2; LAST: r_last^2. A benchmark without `err` uses std / sqrt(runs). nullopt when a
// benchmark lacks a positive mean or both errors, or there is no benchmark.
[[nodiscard]] std::optional<double> run_log_variance(
    const std::vector<dataset::BenchmarkResult>& benchmarks, dataset::RankingBy ranking);

// Inverse-variance weighted mean of the sources' log sigma (weights from their intervals' widths
// on the log scale). nullopt when `sources` is empty.
[[nodiscard]] std::optional<NoiseEstimate> combine(const std::vector<NoiseEstimate>& sources);

// One change of noise level in `pairs` (centred differences, any order): the split k of the pairs
// in time order that maximises the two-sample statistic of y = log(d^2) (a change of sigma by a
// factor f shifts y's mean by 2 log f), T(k) = |mean(y[0,k)) - mean(y[k,n))| / (s sqrt(1/k + 1/(n -
// k))), s the pooled within-segment standard deviation, both segments at least `min_segment`
// pairs and 5% of n. Reported when T exceeds the Bonferroni critical value of the n - 1 splits at
// 1% (two-sided), with each segment's pair_estimate. nullopt when there is no such change.
[[nodiscard]] std::optional<ChangePoint> find_change_point(std::vector<TimedDifference> pairs,
                                                           size_t min_segment = 20);

// What a ranked entry's score may be, given the noise (kbdata top --uncertainty).
struct RankUncertainty {
  std::optional<double> sigma;  // of one measurement at the entry's time (sigma_at); nullopt: none
  int64_t measurements = 1;     // measurements of the entry's code behind its score
  double lo = 0;                // the score's 95% interval: score exp(-+1.96 sigma / sqrt(m))
  double hi = 0;
  int64_t rank_best = 0;   // 1 + the others whose interval lies wholly below this one
  int64_t rank_worst = 0;  // 1 + the others whose interval starts below this one's upper end
  bool tied = false;       // the interval overlaps that of an entry ranked next to it
};

// One per entry of `ranking` (every user of it: the ranks a user could hold depend on all),
// `measurements` one per entry (at least 1), `noise` the ranking's series or nullptr (then every
// interval is the score alone).
[[nodiscard]] std::vector<RankUncertainty> rank_uncertainty(
    const Ranking& ranking, const SeriesNoise* noise, const std::vector<int64_t>& measurements);

struct NoiseOptions {
  double similarity = 0.98;  // near_identical: the estimated Jaccard at or above which code is
                             // near-identical
  size_t min_segment = 20;   // find_change_point
  size_t window = 0;         // pairs per over_time point; 0: max(20, pairs / 20)
};

// Accumulates submissions while they stream past (any order) and estimates every series' noise.
// Memory: about 60 bytes per row, and a vector of similarity::kSketchBins x 4 bytes per qualifying
// row with code; never the code. A load that feeds add() sets LoadOptions::prepare to
// NoiseBuilder::prepare: each qualifying row's code is sketched on the scan's worker that built the
// row (the row never holds its code); add() keeps the sketch. Without it add() sketches the code
// itself. The result is the same either way, and whatever the threads. near_identical needs the
// code (LoadOptions::with_code), same_code the code_id (with_details), harness_err the results
// (with_results) and public_secret also the runs (with_runs) of legacy files.
class NoiseBuilder {
 public:
  explicit NoiseBuilder(NoiseOptions options = {});
  ~NoiseBuilder();
  NoiseBuilder(const NoiseBuilder&) = delete;
  NoiseBuilder& operator=(const NoiseBuilder&) = delete;
  // LoadOptions::prepare of a load feeding add(): the sketch of a qualifying row's `code`, kept in
  // s.prepared. Safe to call from several threads at once.
  static void prepare(dataset::Submission& s, std::optional<std::string_view> code);
  // LoadOptions::code_wanted of such a load: the rows whose code is sketched (those that
  // qualify with a positive score); the others' code need not be decoded.
  [[nodiscard]] static bool wants_code(const dataset::Submission& s);
  // prepare and wants_code as one named step (dataset/resident.h), key "noise": a load that sets
  // them sets LoadOptions::prepare_key to its key.
  [[nodiscard]] static dataset::PrepareStep prepare_step();
  // The row's sketch from s.prepared (prepare; moved out of it), else from s.code. Returns the
  // sketch kept for the row (similarity::kSketchBins values, valid until finish()), or nullptr when
  // it has none (a row that does not qualify with a positive score, or without code).
  const uint32_t* add(dataset::Submission&& s);
  // The series with at least one estimate, by leaderboard id then runner (runner-less last).
  // Call once.
  [[nodiscard]] std::vector<SeriesNoise> finish();

 private:
  struct Row {
    uint32_t series = 0;
    uint32_t user = 0;  // within the leaderboard: index into users_
    int64_t time_us = 0;
    int64_t submission_id = 0;
    std::optional<int64_t> code_id;  // null: not known (no details read, or a null in the file)
    double log_score = 0;            // when it qualifies
    bool qualifies = false;
    int64_t sketch = -1;  // its sketch: index into sketches_; -1 without
  };
  struct SeriesData {
    SeriesKey key;
    std::string problem_name;
    std::vector<double> harness;          // per-run variances
    std::vector<TimedDifference> secret;  // uncentred log(public) - log(secret)
  };
  uint32_t series_index(const dataset::Submission& s);
  [[nodiscard]] const uint32_t* sketch_of(int64_t index) const;
  // finish()'s pairs of measurements of one code, and of near-identical codes.
  void same_code_pairs(std::vector<std::vector<TimedDifference>>& same_code) const;
  void near_identical_pairs(std::vector<std::vector<TimedDifference>>& near) const;

  NoiseOptions options_;
  std::vector<SeriesData> series_;
  std::map<SeriesKey, uint32_t> series_by_key_;
  std::unordered_map<std::string, uint32_t> users_;  // "leaderboard/user_id"
  std::vector<Row> rows_;
  std::vector<similarity::CodeSketch> sketches_;  // similarity::kSketchBins values each
};

}  // namespace kbdata::analysis
