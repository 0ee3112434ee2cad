// Shingles, exact Jaccard, the MinHash estimator's accuracy, and the LSH banding.
#include "similarity/minhash.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "dedup/planting.h"
#include "similarity/shingles.h"

namespace kbdata::similarity {
namespace {

using testing::next_random;

TEST(ShinglesTest, LowerCasesAndCountsDistinctWindows) {
  // "AbCab" and "abcab" are the same text once lower-cased; windows of 3: abc, bca, cab.
  EXPECT_EQ(shingle_set("AbCab", 3), shingle_set("abcab", 3));
  EXPECT_EQ(shingle_set("abcab", 3).size(), 3u);
  EXPECT_EQ(shingle_set("abcabc", 3).size(), 3u);  // abc repeats
  // Shorter than k: one shingle, the whole text. Empty: none.
  EXPECT_EQ(shingle_set("ab", 5).size(), 1u);
  EXPECT_TRUE(shingle_set("", 5).empty());
  // Only ASCII letters are folded; other bytes are compared as they are.
  EXPECT_NE(shingle_set("\xc3\x89t\xc3\xa9", 2), shingle_set("\xc3\xa9t\xc3\xa9", 2));
}

TEST(ShinglesTest, ExactJaccardMatchesAHandCount) {
  // 2-byte shingles: "abcd" -> {ab, bc, cd}; "abce" -> {ab, bc, ce}: 2 common of 4.
  EXPECT_DOUBLE_EQ(jaccard(shingle_set("abcd", 2), shingle_set("abce", 2)), 0.5);
  EXPECT_DOUBLE_EQ(jaccard(shingle_set("abcd", 2), shingle_set("ABCD", 2)), 1.0);
  EXPECT_DOUBLE_EQ(jaccard(shingle_set("abcd", 2), shingle_set("wxyz", 2)), 0.0);
  EXPECT_DOUBLE_EQ(jaccard(shingle_set("", 2), shingle_set("", 2)), 0.0);
}

// Two sets of hashes with |A ∩ B| = common and |A ∪ B| = total, drawn at random.
void make_pair(size_t total, size_t common, uint64_t seed, std::vector<uint64_t>& a,
               std::vector<uint64_t>& b) {
  a.clear();
  b.clear();
  for (size_t i = 0; i < total; ++i) {
    const uint64_t h = next_random(seed);
    if (i < common) {
      a.push_back(h);
      b.push_back(h);
    } else if ((i - common) % 2 == 0) {
      a.push_back(h);
    } else {
      b.push_back(h);
    }
  }
}

// Root mean squared error of the estimate over `trials` pairs at Jaccard common / total.
double estimator_rmse(size_t total, size_t common, int trials) {
  std::vector<uint64_t> a;
  std::vector<uint64_t> b;
  auto sa = std::make_unique<Signature>();
  auto sb = std::make_unique<Signature>();
  const double j = static_cast<double>(common) / static_cast<double>(total);
  double sum = 0;
  for (int t = 0; t < trials; ++t) {
    make_pair(total, common, 1000 + static_cast<uint64_t>(t) * 7919 + total, a, b);
    EXPECT_TRUE(compute_signature(a, *sa));
    EXPECT_TRUE(compute_signature(b, *sb));
    const double e = estimate_jaccard(*sa, *sb) - j;
    sum += e * e;
  }
  return std::sqrt(sum / trials);
}

// The claim of docs/dedup.md: for |A u B| >= 2048 (codes of a few KB and up: nearly every
// kernel) the estimator's RMSE is at most that of 2048 independent permutations,
// sqrt(J(1-J)/2048) (measured 0.85-0.93 of it: bins sample without replacement); for smaller sets,
// most of whose bins densification fills, at most 1.35 times it (measured up to 1.2). 300 trials
// measure an RMSE to about 4%, hence the 1.08 allowance on the first bound.
TEST(MinHashTest, EstimatorIsAsAccurateAs2048Permutations) {
  struct Case {
    size_t total;
    size_t common;
  };
  for (Case c : {Case{8000, 7200}, Case{8000, 6400}, Case{8000, 4000}, Case{8000, 1600},
                 Case{2048, 1638}, Case{1024, 819}, Case{400, 320}, Case{400, 200}, Case{60, 48}}) {
    const double j = static_cast<double>(c.common) / static_cast<double>(c.total);
    const double permutations = std::sqrt(j * (1 - j) / kBins);
    const double rmse = estimator_rmse(c.total, c.common, 300);
    std::printf("|A u B| = %zu, J = %.2f: RMSE %.5f, 2048 permutations %.5f, ratio %.3f\n", c.total,
                j, rmse, permutations, rmse / permutations);
    const double bound = c.total >= static_cast<size_t>(kBins) ? 1.08 : 1.35;
    EXPECT_LE(rmse, bound * permutations) << "|A u B| = " << c.total << ", J = " << j;
  }
}

TEST(MinHashTest, IdenticalSetsAreEqualAndEmptySetsHaveNoSignature) {
  std::vector<uint64_t> a;
  std::vector<uint64_t> b;
  make_pair(100, 100, 5, a, b);
  auto sa = std::make_unique<Signature>();
  auto sb = std::make_unique<Signature>();
  ASSERT_TRUE(compute_signature(a, *sa));
  std::vector<uint64_t> twice = a;
  twice.insert(twice.end(), a.begin(), a.end());  // repeats change nothing
  ASSERT_TRUE(compute_signature(twice, *sb));
  EXPECT_EQ(estimate_jaccard(*sa, *sb), 1.0);
  for (uint64_t v : *sa) EXPECT_NE(v, kEmptyBin);  // densified: no bin left empty
  EXPECT_FALSE(compute_signature({}, *sb));
}

TEST(LshTest, BandingForTheDefaultThreshold) {
  LshParams p = choose_lsh(0.8);
  EXPECT_EQ(p.bands, 157);
  EXPECT_EQ(p.rows, 13);
  EXPECT_LE(p.bands * p.rows, kBins);
  EXPECT_GE(lsh_candidate_probability(p, 0.8), kLshRecallAtThreshold);
  // One more row per band would miss more than 1 pair in 1000 at the threshold.
  LshParams longer{kBins / 14, 14};
  EXPECT_LT(lsh_candidate_probability(longer, 0.8), kLshRecallAtThreshold);
  // The S-curve: dissimilar pairs rarely become candidates.
  EXPECT_LT(lsh_candidate_probability(p, 0.5), 0.03);
  EXPECT_LT(lsh_candidate_probability(p, 0.3), 1e-4);
  for (double t : {0.5, 0.7, 0.9, 0.95}) {
    LshParams q = choose_lsh(t);
    EXPECT_GE(lsh_candidate_probability(q, t), kLshRecallAtThreshold) << t;
    EXPECT_LE(q.bands * q.rows, kBins);
  }
}

TEST(LshTest, BandKeysAgreeExactlyWhereBandsAgree) {
  std::vector<uint64_t> a;
  std::vector<uint64_t> b;
  make_pair(5000, 5000, 9, a, b);
  auto sa = std::make_unique<Signature>();
  ASSERT_TRUE(compute_signature(a, *sa));
  auto sb = std::make_unique<Signature>(*sa);
  (*sb)[0] ^= 1;  // the first band differs, the others not
  LshParams p = choose_lsh(0.8);
  std::vector<uint32_t> ka;
  std::vector<uint32_t> kb;
  band_keys(*sa, p, ka);
  band_keys(*sb, p, kb);
  ASSERT_EQ(ka.size(), static_cast<size_t>(p.bands));
  EXPECT_NE(ka[0], kb[0]);
  for (int i = 1; i < p.bands; ++i)
    EXPECT_EQ(ka[static_cast<size_t>(i)], kb[static_cast<size_t>(i)]);
}

}  // namespace
}  // namespace kbdata::similarity
