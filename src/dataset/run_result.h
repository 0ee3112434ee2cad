// A legacy run's score recomputed from its benchmark means (the run_result keys of
// docs/data-model.md, "Legacy run results"), the way the platform scores a leaderboard run:
// each benchmark's mean in seconds (nanoseconds / 1e9), combined by the leaderboard's ranking_by.
#pragma once

#include <optional>
#include <vector>

#include "dataset/registry.h"
#include "dataset/submission.h"

namespace kbdata::dataset {

// The score of `benchmarks` by `ranking`: GEOM the geometric mean of the means (computed as the
// exponential of the mean logarithm, which a product of many means cannot underflow), MEAN their
// arithmetic mean, LAST the last benchmark's mean; all in seconds. nullopt when there is no
// benchmark or one lacks a mean, and for GEOM when a mean is not positive.
[[nodiscard]] std::optional<double> score_from_benchmarks(
    const std::vector<BenchmarkResult>& benchmarks, RankingBy ranking);

// Relative error below which a recomputed score reproduces a published one.
inline constexpr double kReproducedRelativeError = 1e-9;

// True when `recomputed` reproduces `score`: both finite and |recomputed - score| < 1e-9 |score|
// (a score of 0 is reproduced only by 0).
[[nodiscard]] bool reproduces(double score, double recomputed);

}  // namespace kbdata::dataset
