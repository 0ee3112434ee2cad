#include "dataset/run_result.h"

#include <cmath>

namespace kbdata::dataset {

std::optional<double> score_from_benchmarks(const std::vector<BenchmarkResult>& benchmarks,
                                            RankingBy ranking) {
  if (benchmarks.empty()) return std::nullopt;
  std::vector<double> seconds;
  seconds.reserve(benchmarks.size());
  for (const BenchmarkResult& b : benchmarks) {
    if (!b.mean || !std::isfinite(*b.mean)) return std::nullopt;
    seconds.push_back(*b.mean / 1e9);
  }
  switch (ranking) {
    case RankingBy::LAST:
      return seconds.back();
    case RankingBy::MEAN: {
      double sum = 0;
      for (double s : seconds) sum += s;
      return sum / static_cast<double>(seconds.size());
    }
    case RankingBy::GEOM: {
      // Through logarithms: a product of many small means would underflow.
      double logs = 0;
      for (double s : seconds) {
        if (!(s > 0)) return std::nullopt;
        logs += std::log(s);
      }
      return std::exp(logs / static_cast<double>(seconds.size()));
    }
  }
  return std::nullopt;
}

bool reproduces(double score, double recomputed) {
  if (!std::isfinite(score) || !std::isfinite(recomputed)) return false;
  if (score == 0) return recomputed == 0;
  return std::fabs(recomputed - score) < kReproducedRelativeError * std::fabs(score);
}

}  // namespace kbdata::dataset
