// Lineages, stretches, improvement pairs and their significance on hand-built versions
// (src/pairs/lineage.h).
#include "pairs/lineage.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "similarity/sketch.h"
#include "support/random_text.h"

namespace kbdata::pairs {
namespace {

using testing::kernel_text;

constexpr int64_t kDay = int64_t{86400} * 1000000;

struct Built {
  std::vector<similarity::CodeSketch> sketches;
  std::vector<Version> versions;
  // Appends a version at `day` (days from 0) with `code` and `score`; code_id from the text.
  void add(const std::string& code, double day, double score, int epoch = 0) {
    sketches.push_back(similarity::code_sketch(code));
    Version v;
    v.row = static_cast<uint32_t>(versions.size());
    v.submission_id = 100 + static_cast<int64_t>(versions.size());
    v.code_id = static_cast<int64_t>(std::hash<std::string>{}(code)&0xffffffff);
    v.time_us = static_cast<int64_t>(day * static_cast<double>(kDay));
    v.score = score;
    v.epoch = epoch;
    versions.push_back(v);
  }
  // Points the versions at their sketches (once every version is added).
  std::vector<Version>& done() {
    for (size_t i = 0; i < versions.size(); ++i) {
      versions[i].sketch = sketches[i].empty() ? nullptr : sketches[i].data();
    }
    return versions;
  }
};

using Indices = std::vector<uint32_t>;

TEST(Lineages, ARewriteStartsALineageAndEditsContinueIt) {
  Built b;
  b.add(kernel_text("alpha", 16), 0, 10);
  b.add(kernel_text("alpha", 32), 1, 9);
  b.add(kernel_text("beta", 16), 2, 8);  // rewritten
  b.add(kernel_text("beta", 32), 3, 7);
  const auto lineages = split_lineages(b.done(), {});
  EXPECT_EQ(lineages, (std::vector<Indices>{{0, 1}, {2, 3}}));
}

TEST(Lineages, AVersionReturnsToTheKernelItContinues) {
  // alpha, beta, alpha again, beta again: two lineages, interleaved.
  Built b;
  b.add(kernel_text("alpha", 16), 0, 10);
  b.add(kernel_text("beta", 16), 1, 9);
  b.add(kernel_text("alpha", 32), 2, 8);
  b.add(kernel_text("beta", 32), 3, 7);
  b.add(kernel_text("beta", 64), 4, 6);
  const auto lineages = split_lineages(b.done(), {});
  EXPECT_EQ(lineages, (std::vector<Indices>{{0, 2}, {1, 3, 4}}));
}

TEST(Lineages, TheLookbackBoundsTheLineagesCompared) {
  Built b;
  b.add(kernel_text("alpha", 16), 0, 10);
  b.add(kernel_text("beta", 16), 1, 9);
  b.add(kernel_text("gamma", 16), 2, 8);
  b.add(kernel_text("alpha", 32), 3, 7);
  LineageOptions options;
  options.lookback = 2;  // beta and gamma only: alpha's return starts a lineage
  EXPECT_EQ(split_lineages(b.done(), options), (std::vector<Indices>{{0}, {1}, {2}, {3}}));
  options.lookback = 3;
  EXPECT_EQ(split_lineages(b.versions, options), (std::vector<Indices>{{0, 3}, {1}, {2}}));
}

TEST(Lineages, OneCodeIdLinksAndEmptyCodeDoesNot) {
  Built b;
  b.add("", 0, 10);
  b.add("", 1, 9);  // the same (empty) code: one code_id
  b.add(kernel_text("alpha", 16), 2, 8);
  b.done();
  b.versions[1].code_id = 77;  // another empty code
  EXPECT_EQ(version_similarity(b.versions[0], b.versions[1]), 0);
  EXPECT_EQ(split_lineages(b.versions, {}), (std::vector<Indices>{{0}, {1}, {2}}));
  b.versions[1].code_id = b.versions[0].code_id;
  EXPECT_EQ(version_similarity(b.versions[0], b.versions[1]), 1);
  EXPECT_EQ(split_lineages(b.versions, {}), (std::vector<Indices>{{0, 1}, {2}}));
}

TEST(Lineages, TheThresholdDecides) {
  Built b;
  b.add(kernel_text("alpha", 16), 0, 10);
  b.add(kernel_text("alpha", 32), 1, 9);
  const double s = version_similarity(b.done()[0], b.versions[1]);
  EXPECT_GT(s, 0.8);
  LineageOptions options;
  options.link_similarity = s;
  EXPECT_EQ(split_lineages(b.versions, options).size(), 1u);
  options.link_similarity = std::nextafter(s, 2.0);
  EXPECT_EQ(split_lineages(b.versions, options).size(), 2u);
}

TEST(ImprovementPairs, ConsecutiveNewBestsTiesAreNotNew) {
  Built b;
  for (double score : {10.0, 12.0, 8.0, 8.0, 9.0, 5.0, 5.0}) {
    b.add(kernel_text("alpha", static_cast<int>(b.versions.size())), 0, score);
  }
  const Indices stretch = {0, 1, 2, 3, 4, 5, 6};
  const auto pairs = improvement_pairs(b.done(), stretch, false);
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs[0].baseline, 0u);
  EXPECT_EQ(pairs[0].improved, 2u);
  EXPECT_EQ(pairs[1].baseline, 2u);  // the tie at 3 is not a new best
  EXPECT_EQ(pairs[1].improved, 5u);
}

TEST(ImprovementPairs, AllPairsAreEveryImprovementOrderedByTheLaterVersion) {
  Built b;
  for (double score : {10.0, 12.0, 8.0, 8.0}) b.add(kernel_text("alpha", 1), 0, score);
  const auto pairs = improvement_pairs(b.done(), {0, 1, 2, 3}, true);
  std::vector<std::pair<uint32_t, uint32_t>> got;
  for (const VersionPair& p : pairs) got.emplace_back(p.baseline, p.improved);
  EXPECT_EQ(got, (std::vector<std::pair<uint32_t, uint32_t>>{{0, 2}, {1, 2}, {0, 3}, {1, 3}}));
}

TEST(Stretches, CutAtEpochChangesAndLongGaps) {
  Built b;
  b.add(kernel_text("a", 1), 0, 10, 0);
  b.add(kernel_text("a", 2), 1, 9, 0);
  b.add(kernel_text("a", 3), 2, 20, 1);  // new harness: slower measure
  b.add(kernel_text("a", 4), 3, 18, 1);
  b.add(kernel_text("a", 5), 20, 17, 1);  // 17 days later
  const Indices lineage = {0, 1, 2, 3, 4};
  b.done();
  EXPECT_EQ(comparable_stretches(b.versions, lineage, false, std::nullopt),
            (std::vector<Indices>{lineage}));
  EXPECT_EQ(comparable_stretches(b.versions, lineage, true, std::nullopt),
            (std::vector<Indices>{{0, 1}, {2, 3, 4}}));
  EXPECT_EQ(comparable_stretches(b.versions, lineage, true, 7 * kDay),
            (std::vector<Indices>{{0, 1}, {2, 3}, {4}}));
  // Across epochs the faster-measured old version hides the new epoch's improvements; within
  // each, they are pairs.
  EXPECT_EQ(improvement_pairs(b.versions, lineage, false).size(), 1u);
  size_t within = 0;
  for (const Indices& s : comparable_stretches(b.versions, lineage, true, std::nullopt)) {
    within += improvement_pairs(b.versions, s, false).size();
  }
  EXPECT_EQ(within, 3u);
}

TEST(Significance, AgainstAKnownNoise) {
  // sigma 0.03 each: noise_sd = 0.0424, so log(speedup) must exceed 0.0698 (speedup 1.0723).
  const Significance above = significance(1.08, 0.03, 0.03);
  ASSERT_TRUE(above.noise_sd && above.significant);
  EXPECT_NEAR(*above.noise_sd, 0.03 * std::sqrt(2.0), 1e-12);
  EXPECT_TRUE(*above.significant);
  EXPECT_FALSE(*significance(1.07, 0.03, 0.03).significant);
  EXPECT_TRUE(*significance(std::exp(kOneSided95 * 0.05 * 1.0001), 0.03, 0.04).significant);
  EXPECT_FALSE(*significance(std::exp(kOneSided95 * 0.05 * 0.9999), 0.03, 0.04).significant);
  const Significance unknown = significance(3.0, std::nullopt, 0.03);
  EXPECT_FALSE(unknown.noise_sd.has_value());
  EXPECT_FALSE(unknown.significant.has_value());
}

}  // namespace
}  // namespace kbdata::pairs
