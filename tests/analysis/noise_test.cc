#include "analysis/noise.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "support/kernel_text.h"

namespace kbdata::analysis {
namespace {

using dataset::BenchmarkResult;
using dataset::RankingBy;
using dataset::Submission;

constexpr double kZ = 1.959963984540054;

TEST(NoiseEstimators, PairEstimateIsTheMedianCentredMad) {
  // Sorted: -0.03 -0.01 0.01 0.03 0.05; median 0.01; |d - m| = 0 0.02 0.02 0.04 0.04, MAD 0.02.
  auto e = pair_estimate(NoiseSource::SAME_CODE, {0.01, -0.01, 0.03, 0.05, -0.03});
  ASSERT_TRUE(e);
  EXPECT_EQ(e->source, NoiseSource::SAME_CODE);
  EXPECT_EQ(e->pairs, 5u);
  EXPECT_DOUBLE_EQ(e->shift, 0.01);
  EXPECT_NEAR(e->sigma, 0.020967161650150612, 1e-15);  // 1.4826 x 0.02 / sqrt(2)
  const double spread = std::exp(kZ * 1.1664 / std::sqrt(5.0));
  EXPECT_NEAR(e->sigma_lo, e->sigma / spread, 1e-15);
  EXPECT_NEAR(e->sigma_hi, e->sigma * spread, 1e-15);
  // Even count: median (2 + 3) / 2; |d - m| = 1.5 0.5 0.5 7.5, MAD (0.5 + 1.5) / 2 = 1.
  auto even = pair_estimate(NoiseSource::NEAR_IDENTICAL, {1, 2, 3, 10});
  ASSERT_TRUE(even);
  EXPECT_DOUBLE_EQ(even->shift, 2.5);
  EXPECT_NEAR(even->sigma, 1.482602218505602 / std::sqrt(2.0), 1e-15);
  EXPECT_FALSE(pair_estimate(NoiseSource::SAME_CODE, {0.5}));
}

TEST(NoiseEstimators, HarnessEstimateIsTheRootMeanVariance) {
  // mean 0.001; sd of the two 0.000849, standard error 0.0006.
  auto e = harness_estimate({0.0004, 0.0016});
  ASSERT_TRUE(e);
  EXPECT_EQ(e->pairs, 2u);
  EXPECT_NEAR(e->sigma, std::sqrt(0.001), 1e-15);
  EXPECT_EQ(e->sigma_lo, 0.0);  // 0.001 - 1.96 x 0.0006 < 0: clamped
  EXPECT_NEAR(e->sigma_hi, 0.04664738353567146, 1e-12);
  EXPECT_FALSE(harness_estimate({0.1}));
}

TEST(NoiseEstimators, RunLogVarianceFollowsTheRankingRule) {
  std::vector<BenchmarkResult> b(2);
  b[0].mean = 100;
  b[0].err = 2;  // relative 0.02
  b[1].mean = 200;
  b[1].std_dev = 20;  // err = 20 / sqrt(400) = 1: relative 0.005
  b[1].runs = 400;
  EXPECT_NEAR(*run_log_variance(b, RankingBy::GEOM), (0.0004 + 0.000025) / 4, 1e-18);
  EXPECT_NEAR(*run_log_variance(b, RankingBy::MEAN), (4.0 + 1.0) / (300.0 * 300.0), 1e-18);
  EXPECT_NEAR(*run_log_variance(b, RankingBy::LAST), 0.000025, 1e-18);
  b[1].runs.reset();  // neither err nor std / sqrt(runs)
  EXPECT_FALSE(run_log_variance(b, RankingBy::GEOM));
  b[1].runs = 400;
  b[0].mean = 0;
  EXPECT_FALSE(run_log_variance(b, RankingBy::GEOM));
  EXPECT_FALSE(run_log_variance({}, RankingBy::GEOM));
}

TEST(NoiseEstimators, CombineWeighsByTheIntervalsOnTheLogScale) {
  NoiseEstimate a{NoiseSource::SAME_CODE, 10, 0.01, 0.01 / std::exp(0.1), 0.01 * std::exp(0.1)};
  NoiseEstimate b{NoiseSource::NEAR_IDENTICAL, 30, 0.04, 0.04 / std::exp(0.1),
                  0.04 * std::exp(0.1)};
  auto c = combine({a, b});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->pairs, 40u);
  EXPECT_NEAR(c->sigma, 0.02, 1e-15);  // equal weights: the geometric mean
  const double se = 0.1 / kZ / std::sqrt(2.0);
  EXPECT_NEAR(c->sigma_hi, 0.02 * std::exp(kZ * se), 1e-15);
  // A source twice as precise (half the log width) weighs four times as much.
  b.sigma_lo = 0.04 / std::exp(0.05);
  b.sigma_hi = 0.04 * std::exp(0.05);
  EXPECT_NEAR(combine({a, b})->sigma, std::exp((std::log(0.01) + 4 * std::log(0.04)) / 5), 1e-15);
  EXPECT_FALSE(combine({}));
}

std::vector<TimedDifference> steps(size_t n, double small, double large, size_t change) {
  std::vector<TimedDifference> out;
  for (size_t i = 0; i < n; ++i) {
    const double scale = i < change ? small : large;
    out.push_back({static_cast<int64_t>(i) * 1000, (i % 2 == 0 ? 1.0 : -2.0) * scale});
  }
  return out;
}

TEST(NoiseEstimators, ChangePointFindsTheSplitAndTheLevels) {
  // 20 pairs of +-0.01/-0.02 then 20 ten times larger, given out of order.
  std::vector<TimedDifference> pairs = steps(40, 0.01, 0.1, 20);
  std::reverse(pairs.begin(), pairs.end());
  auto c = find_change_point(pairs, 10);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->time_us, 20'000);
  // Each segment: median -0.005 (x10), every |d - m| 0.015 (x10).
  EXPECT_EQ(c->before.pairs, 20u);
  EXPECT_NEAR(c->before.sigma, 0.01572537123761296, 1e-12);
  EXPECT_NEAR(c->after.sigma, 0.1572537123761296, 1e-11);
  EXPECT_GT(c->statistic, c->critical);
  // One level throughout: no change; too few pairs for two segments: none.
  EXPECT_FALSE(find_change_point(steps(40, 0.01, 0.01, 20), 10));
  EXPECT_FALSE(find_change_point(steps(30, 0.01, 0.1, 15), 20));
}

TEST(NoiseEstimators, SigmaAtUsesTheLevelOfTheTime) {
  SeriesNoise s;
  EXPECT_FALSE(sigma_at(s, 0));
  s.combined = NoiseEstimate{NoiseSource::COMBINED, 100, 0.05, 0.04, 0.06};
  EXPECT_EQ(sigma_at(s, 0), 0.05);
  s.change = ChangePoint{};
  s.change->time_us = 100;
  s.change->before.sigma = 0.01;
  s.change->after.sigma = 0.3;
  EXPECT_EQ(sigma_at(s, 99), 0.01);
  EXPECT_EQ(sigma_at(s, 100), 0.3);
}

TEST(NoiseEstimators, RankUncertaintyFromIntervals) {
  Ranking r;
  r.entries = {{1, "a", std::nullopt, 1.0e-6, 1, 10},
               {2, "b", std::nullopt, 1.05e-6, 2, 20},
               {3, "c", std::nullopt, 2.0e-6, 3, 30}};
  SeriesNoise noise;
  noise.combined = NoiseEstimate{NoiseSource::COMBINED, 500, 0.03, 0.028, 0.032};
  // Half widths 1.96 x 0.03 = 0.0588 (a, b) and 0.0294 (c: 4 measurements). a's upper end
  // 1.0606 reaches b's lower end 0.9900: tied; c is clear of both.
  const std::vector<RankUncertainty> u = rank_uncertainty(r, &noise, {1, 1, 4});
  ASSERT_EQ(u.size(), 3u);
  EXPECT_NEAR(u[0].hi, 1.0e-6 * std::exp(kZ * 0.03), 1e-18);
  EXPECT_NEAR(u[2].lo, 2.0e-6 * std::exp(-kZ * 0.03 / 2), 1e-18);
  EXPECT_EQ(u[2].measurements, 4);
  EXPECT_EQ(u[0].rank_best, 1);
  EXPECT_EQ(u[0].rank_worst, 2);
  EXPECT_EQ(u[1].rank_best, 1);
  EXPECT_EQ(u[1].rank_worst, 2);
  EXPECT_EQ(u[2].rank_best, 3);
  EXPECT_EQ(u[2].rank_worst, 3);
  EXPECT_TRUE(u[0].tied);
  EXPECT_TRUE(u[1].tied);
  EXPECT_FALSE(u[2].tied);
  // Without noise every interval is the score: ranks as they are, nothing tied.
  const std::vector<RankUncertainty> none = rank_uncertainty(r, nullptr, {1, 1, 1});
  EXPECT_FALSE(none[0].sigma);
  EXPECT_EQ(none[1].lo, 1.05e-6);
  EXPECT_EQ(none[1].rank_best, 2);
  EXPECT_EQ(none[1].rank_worst, 2);
  EXPECT_FALSE(none[0].tied);
}

std::string kernel(int seed, int edit = 0) { return testing::kernel_text(seed, edit); }

Submission flat(int64_t id, const std::string& user, int64_t code_id, std::optional<double> score,
                std::string code, int64_t time) {
  Submission s;
  s.submission_id = id;
  s.leaderboard_id = 597;
  s.problem_name = "nvfp4_gemm";
  s.user_id = user;
  s.code_id = code_id;
  s.submission_time = time;
  s.status = score ? "succeeded" : "failed";
  s.score = score;
  s.passed = score.has_value();
  s.runner = "B200";
  s.code = std::move(code);
  return s;
}

// Fed as measure_noise feeds it (each row prepared first: sketched, its code dropped) and with the
// code itself: the same estimates.
TEST(NoiseBuilder, PairsConsecutiveNearIdenticalVersionsAndRepeatsOfOneCode) {
  for (const bool prepared : {false, true}) {
    SCOPED_TRACE(prepared ? "prepared" : "with code");
    NoiseBuilder builder;
    const auto add = [&](dataset::Submission s) {
      if (prepared) {  // as a load with the prepare step hands it: the code beside the row
        const std::optional<std::string> code = std::move(s.code);
        s.code.reset();
        NoiseBuilder::prepare(s, code ? std::optional<std::string_view>(*code) : std::nullopt);
      }
      builder.add(std::move(s));
    };
    // Three users edit their kernel once: log ratios log(1.1), log(1.02), log(0.95).
    add(flat(1, "u1", 11, 1.0e-4, kernel(1), 100));
    add(flat(2, "u1", 12, 1.1e-4, kernel(1, 1), 200));
    add(flat(3, "u2", 21, 2.0e-4, kernel(2), 100));
    add(flat(4, "u2", 22, 2.04e-4, kernel(2, 1), 300));
    add(flat(5, "u3", 31, 3.0e-4, kernel(3), 150));
    add(flat(6, "u3", 32, 2.85e-4, kernel(3, 1), 250));
    // u3 then fails once and edits again: the failed submission sits between the two, so the
    // later edit pairs with nothing.
    add(flat(7, "u3", 33, std::nullopt, kernel(3, 2), 260));
    add(flat(8, "u3", 34, 9.0e-4, kernel(3, 3), 270));
    // u4 rewrites: not near-identical.
    add(flat(9, "u4", 41, 1.0e-4, kernel(4), 100));
    add(flat(10, "u4", 42, 1.0e-4, kernel(5), 110));
    // Three users submit the same starter code (code 99): two same_code pairs in time order.
    add(flat(11, "u5", 99, 5.0e-4, kernel(9), 10));
    add(flat(12, "u6", 99, 5.5e-4, kernel(9), 30));
    add(flat(13, "u7", 99, 4.5e-4, kernel(9), 20));

    const std::vector<SeriesNoise> result = builder.finish();
    ASSERT_EQ(result.size(), 1u);
    const SeriesNoise& s = result[0];
    EXPECT_EQ(s.leaderboard_id, 597);
    EXPECT_EQ(s.runner, "B200");
    ASSERT_EQ(s.sources.size(), 2u);
    // same_code, by time: 5.0 (t 10), 4.5 (t 20), 5.5 (t 30).
    const NoiseEstimate& same = s.sources[0];
    EXPECT_EQ(same.source, NoiseSource::SAME_CODE);
    auto expected_same =
        pair_estimate(NoiseSource::SAME_CODE, {std::log(4.5 / 5.0), std::log(5.5 / 4.5)});
    EXPECT_EQ(same.pairs, 2u);
    EXPECT_NEAR(same.sigma, expected_same->sigma, 1e-12);
    const NoiseEstimate& near = s.sources[1];
    EXPECT_EQ(near.source, NoiseSource::NEAR_IDENTICAL);
    EXPECT_EQ(near.pairs, 3u);
    // Median log(1.02); |d - m| = log(1.1/1.02) = 0.0755, 0, log(1.02/0.95) = 0.0711: the MAD is
    // the middle one, log(1.02/0.95).
    EXPECT_NEAR(near.shift, std::log(1.02), 1e-12);
    EXPECT_NEAR(near.sigma, 1.482602218505602 * std::log(1.02 / 0.95) / std::sqrt(2.0), 1e-12);
    ASSERT_TRUE(s.combined);
    EXPECT_EQ(s.combined->pairs, 5u);
    EXPECT_FALSE(s.change);  // far too few pairs
  }
}

dataset::Run leaderboard_run(int64_t id, std::optional<double> score, double mean_ns) {
  dataset::Run r;
  r.run_id = id;
  r.mode = "leaderboard";
  r.score = score;
  r.passed = true;
  r.benchmarks.resize(1);
  r.benchmarks[0].mean = mean_ns;
  r.benchmarks[0].err = mean_ns * 0.03;
  return r;
}

TEST(NoiseBuilder, LegacyRunsGiveHarnessAndPublicSecretEstimates) {
  NoiseBuilder builder;
  // amd-fp8-mm ranks by geom; each public run's one benchmark has a relative err of 0.03, so the
  // harness estimate is 0.03 exactly. Secret runs score by their benchmark means.
  const double secret_ratio[] = {1.01, 0.98, 1.03};
  for (int i = 0; i < 3; ++i) {
    Submission s;
    s.submission_id = 100 + i;
    s.leaderboard_id = 399;
    s.problem_name = "amd-fp8-mm";
    s.user_id = std::to_string(i + 1);
    s.code_id = 500 + i;
    s.submission_time = 1000 * i;
    s.status = "succeeded";
    s.score = 2e-4;
    s.passed = true;
    s.mode = "leaderboard";
    s.runs = {leaderboard_run(1, 2e-4, 2e5),
              leaderboard_run(2, std::nullopt, 2e5 * secret_ratio[i])};
    s.benchmarks = s.runs[0].benchmarks;
    builder.add(std::move(s));
  }
  const std::vector<SeriesNoise> result = builder.finish();
  ASSERT_EQ(result.size(), 1u);
  EXPECT_FALSE(result[0].runner);
  ASSERT_EQ(result[0].sources.size(), 2u);
  EXPECT_EQ(result[0].sources[0].source, NoiseSource::HARNESS_ERR);
  EXPECT_EQ(result[0].sources[0].pairs, 3u);
  EXPECT_NEAR(result[0].sources[0].sigma, 0.03, 1e-12);
  const NoiseEstimate& secret = result[0].sources[1];
  EXPECT_EQ(secret.source, NoiseSource::PUBLIC_SECRET);
  EXPECT_EQ(secret.pairs, 3u);
  // d = -log(ratio): median -log(1.01); MAD |-log(0.98) + log(1.01)| (the smaller of the two).
  EXPECT_NEAR(secret.shift, -std::log(1.01), 1e-12);
  const double mad = std::min(std::abs(std::log(1.01 / 0.98)), std::abs(std::log(1.03 / 1.01)));
  EXPECT_NEAR(secret.sigma, 1.482602218505602 * mad / std::sqrt(2.0), 1e-12);
}

}  // namespace
}  // namespace kbdata::analysis
