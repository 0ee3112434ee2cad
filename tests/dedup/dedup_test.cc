// The rules of dedup on rows in memory (cluster_rows, the engine run_dedup uses): the exact rule
// against hand-computed results, the keeper order, transitivity, scope, near-duplicates planted
// at known Jaccard similarities, and precision and recall against brute-force exact Jaccard on a
// synthetic data set.
#include "dedup/dedup.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "dataset/data_dir.h"
#include "dataset/loader.h"
#include "dedup/planting.h"
#include "parquet/file_reader.h"
#include "similarity/shingles.h"
#include "synth/code_generator.h"

namespace kbdata::dedup {
namespace {

using dataset::Submission;
using similarity::jaccard;
using similarity::shingle_set;
namespace fs = std::filesystem;

Submission row(int64_t id, int64_t leaderboard, const std::string& user, int64_t code_id,
               std::optional<std::string> runner, std::optional<double> score, int64_t time,
               std::optional<std::string> code = std::nullopt) {
  Submission s;
  s.submission_id = id;
  s.leaderboard_id = leaderboard;
  s.user_id = user;
  s.code_id = code_id;
  s.runner = std::move(runner);
  s.score = score;
  s.submission_time = time;
  s.code = std::move(code);
  return s;
}

DedupOptions exact_options() {
  DedupOptions o;
  o.mode = Mode::EXACT;
  o.threads = 2;
  return o;
}

DedupOptions fuzzy_options() {
  DedupOptions o;
  o.mode = Mode::FUZZY;
  o.threads = 2;
  return o;
}

// The kept rows' indexes.
std::set<size_t> kept(const Clustering& c) {
  std::set<size_t> out;
  for (size_t i = 0; i < c.keeper.size(); ++i) {
    if (c.keeper[i] == i) out.insert(i);
  }
  return out;
}

// A library's error names the option and the value, never a flag: Python callers give keywords
// (tests/python), the command line flags (dedup_cli_test).
TEST(DedupOptionsTest, ABadValueIsNamedWithoutAFlag) {
  auto message = [](const DedupOptions& o) -> std::string {
    try {
      (void)run_dedup(o, {});
    } catch (const UsageError& e) {
      return e.what();
    }
    return "no UsageError";
  };
  DedupOptions o = fuzzy_options();
  o.input = "in.parquet";
  o.output = "out.parquet";
  o.threshold = 1.5;
  EXPECT_EQ(message(o), "threshold 1.5: must be in (0, 1]");
  o.threshold = 0.8;
  o.shingle_bytes = 0;
  EXPECT_EQ(message(o), "shingle_bytes 0: must be between 1 and " +
                            std::to_string(similarity::kMaxShingleBytes));
  o.shingle_bytes = 5;
  o.mode = Mode::EXACT;
  o.across_users = true;
  const std::string across = message(o);
  EXPECT_EQ(across, "across_users applies to fuzzy only (the exact rule partitions by user)");
  EXPECT_EQ(across.find("--"), std::string::npos);
}

TEST(ExactRuleTest, MatchesAHandComputedResult) {
  const std::vector<Submission> rows = {
      row(1, 10, "u", 100, "B200", 2.0, 1),       // 0: partition A
      row(2, 10, "u", 100, "B200", 1.0, 2),       // 1: partition A, lower score: kept
      row(3, 10, "u", 100, "H100", 5.0, 3),       // 2: partition B (another runner): kept
      row(4, 10, "u", 100, std::nullopt, {}, 4),  // 3: partition C (null runner): kept
      row(5, 10, "u", 100, std::nullopt, {}, 5),  // 4: partition C, later
      row(6, 10, "v", 100, "B200", 3.0, 6),       // 5: another user: kept
      row(7, 11, "u", 100, "B200", 3.0, 7),       // 6: another leaderboard: kept
      row(8, 10, "u", 101, "B200", 9.0, 8),       // 7: another code: kept
  };
  Clustering c = cluster_rows(rows, exact_options());
  EXPECT_EQ(kept(c), (std::set<size_t>{1, 2, 3, 5, 6, 7}));
  EXPECT_EQ(c.keeper[0], 1u);
  EXPECT_EQ(c.keeper[4], 3u);
  EXPECT_EQ(c.summary.rows_in, 8u);
  EXPECT_EQ(c.summary.exact_duplicates, 2u);
  EXPECT_EQ(c.summary.rows_out, 6u);
  EXPECT_EQ(c.summary.near_duplicate_clusters, 0u);
}

TEST(KeeperTest, BestScoreThenEarliestThenLowestId) {
  auto s = [](int64_t id, std::optional<double> score, int64_t time) {
    return row(id, 1, "u", 1, "B200", score, time);
  };
  EXPECT_TRUE(keeper_before(s(9, 1.0, 9), s(1, 2.0, 1)));           // lower score wins
  EXPECT_TRUE(keeper_before(s(9, 5.0, 9), s(1, std::nullopt, 1)));  // any score over null
  EXPECT_TRUE(keeper_before(s(9, 5.0, 9), s(1, std::nan(""), 1)));  // NaN counts as null
  EXPECT_TRUE(keeper_before(s(9, 1.0, 1), s(1, 1.0, 2)));           // tie: earlier wins
  EXPECT_TRUE(keeper_before(s(1, 1.0, 1), s(9, 1.0, 1)));           // tie: lower id wins
  EXPECT_FALSE(keeper_before(s(1, 1.0, 1), s(1, 1.0, 1)));          // strict

  // The same order picks the keeper of a fuzzy cluster: three near-identical codes.
  double j = 0;
  const std::string base = testing::random_text(200, 1);
  const std::string near = testing::edited_copy(base, 0.95, 2, j);
  const std::vector<Submission> rows = {
      row(30, 1, "u", 1, "B200", std::nullopt, 1, base),
      row(20, 1, "u", 2, "B200", 4.0, 5, near),
      row(10, 1, "u", 3, "B200", 4.0, 5, base + "# x\n"),
  };
  Clustering c = cluster_rows(rows, fuzzy_options());
  EXPECT_EQ(kept(c), (std::set<size_t>{2}));  // scores tie, times tie: lowest submission_id
}

TEST(FuzzyTest, ClustersAreTransitive) {
  // A ~ B and B ~ C at or above 0.8, A !~ C: one cluster of three.
  const std::string a = testing::random_text(300, 11);
  double jab = 0;
  double jbc = 0;
  const std::string b = testing::edited_copy(a, 0.86, 12, jab);
  const std::string c = testing::edited_copy(b, 0.86, 13, jbc);
  const double jac = jaccard(shingle_set(a, 5), shingle_set(c, 5));
  ASSERT_GE(jab, 0.8);
  ASSERT_GE(jbc, 0.8);
  ASSERT_LT(jac, 0.8);
  const std::vector<Submission> rows = {
      row(1, 1, "u", 1, "B200", 3.0, 1, a), row(2, 1, "u", 2, "B200", 2.0, 2, b),
      row(3, 1, "u", 3, "B200", 1.0, 3, c),
      row(4, 1, "u", 4, "B200", 1.0, 4, testing::random_text(300, 14)),  // unrelated
  };
  Clustering cl = cluster_rows(rows, fuzzy_options());
  EXPECT_EQ(cl.keeper[0], 2u);
  EXPECT_EQ(cl.keeper[1], 2u);
  EXPECT_EQ(cl.keeper[2], 2u);
  EXPECT_EQ(cl.keeper[3], 3u);
  EXPECT_EQ(cl.summary.near_duplicate_clusters, 1u);
  EXPECT_EQ(cl.summary.near_duplicates, 2u);
  EXPECT_EQ(cl.summary.rows_out, 2u);
}

TEST(FuzzyTest, ScopeIsTheUserUnlessAcrossUsers) {
  const std::string code = testing::random_text(200, 21);
  double j = 0;
  const std::string near = testing::edited_copy(code, 0.9, 22, j);
  const std::vector<Submission> rows = {
      row(1, 1, "alice", 1, "B200", 1.0, 1, code), row(2, 1, "bob", 2, "B200", 2.0, 2, near),
      row(3, 1, "bob", 1, "B200", 3.0, 3, code),    // alice's exact code, by bob
      row(4, 2, "alice", 1, "B200", 1.0, 4, code),  // another leaderboard: never joined
  };
  Clustering within = cluster_rows(rows, fuzzy_options());
  EXPECT_EQ(kept(within), (std::set<size_t>{0, 1, 3}));  // bob's two codes join; alice alone
  EXPECT_EQ(within.keeper[2], 1u);

  DedupOptions across = fuzzy_options();
  across.across_users = true;
  Clustering wide = cluster_rows(rows, across);
  EXPECT_EQ(kept(wide), (std::set<size_t>{0, 3}));
  EXPECT_EQ(wide.keeper[1], 0u);
  EXPECT_EQ(wide.keeper[2], 0u);
}

TEST(FuzzyTest, PlantedNearDuplicatesAtKnownSimilaritiesAreFound) {
  // Kernels written by synth's generator, each with edited copies planted at known exact
  // Jaccard similarities: those at or above 0.8 must join the kernel, those below must not (the
  // edits of one kernel are independent, so below-threshold copies have no path through others
  // at or above it unless their own similarity to one is; checked below).
  struct Planted {
    size_t row;
    size_t base_row;
    double jaccard;
  };
  std::vector<Submission> rows;
  std::vector<Planted> planted;
  int64_t id = 1;
  for (uint64_t lineage = 1; lineage <= 6; ++lineage) {
    std::string base;
    synth::generate_code({lineage * 7919, 0, synth::Language::TRITON}, "nvfp4_gemm", base);
    const std::string user = "user" + std::to_string(lineage % 2);
    const size_t base_row = rows.size();
    rows.push_back(row(id, 597, user, id, "B200", 1.0, id, base));
    ++id;
    for (double target : {0.97, 0.9, 0.84, 0.7, 0.5}) {
      double j = 0;
      std::string copy = testing::edited_copy(base, target, lineage * 100 + id, j);
      planted.push_back({rows.size(), base_row, j});
      rows.push_back(row(id, 597, user, id, "B200", 2.0, id, copy));
      ++id;
    }
    // synth's own next version of the kernel: a near-duplicate by construction.
    std::string next;
    synth::generate_code({lineage * 7919, 1, synth::Language::TRITON}, "nvfp4_gemm", next);
    planted.push_back({rows.size(), base_row, jaccard(shingle_set(base, 5), shingle_set(next, 5))});
    rows.push_back(row(id, 597, user, id, "B200", 2.0, id, next));
    ++id;
  }
  Clustering c = cluster_rows(rows, fuzzy_options());
  for (const Planted& p : planted) {
    // Whether some path of exact-Jaccard >= 0.8 edges links the copy to its kernel.
    bool linked = p.jaccard >= 0.8;
    for (const Planted& q : planted) {
      if (q.base_row != p.base_row || q.row == p.row || q.jaccard < 0.8) continue;
      if (jaccard(shingle_set(*rows[p.row].code, 5), shingle_set(*rows[q.row].code, 5)) >= 0.8) {
        linked = true;
      }
    }
    EXPECT_EQ(c.keeper[p.row] == c.keeper[p.base_row], linked)
        << "row " << p.row << " at Jaccard " << p.jaccard;
    if (p.jaccard >= 0.8) {
      EXPECT_EQ(c.keeper[p.row], p.base_row);  // the kernel scores best
    }
  }
  size_t below = 0;
  for (const Planted& p : planted) below += p.jaccard < 0.75 ? 1 : 0;
  EXPECT_GE(below, 12u);  // the test really plants dissimilar copies
}

// Pairwise precision and recall of the clustering against the connected components of the
// brute-force graph (an edge for every pair within a scope group at exact Jaccard >= 0.8).
struct PairScore {
  double precision = 1;
  double recall = 1;
  uint64_t truth_pairs = 0;
};

PairScore score_against_brute_force(const std::vector<Submission>& rows, const Clustering& c,
                                    bool across_users, double threshold) {
  // Rows with the same code_id have the same code (Jaccard 1); the brute force compares all.
  std::map<std::pair<int64_t, std::string>, std::vector<size_t>> groups;
  for (size_t i = 0; i < rows.size(); ++i) {
    groups[{rows[i].leaderboard_id, across_users ? "" : rows[i].user_id}].push_back(i);
  }
  std::vector<size_t> truth(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) truth[i] = i;
  auto find = [&](size_t x) {
    while (truth[x] != x) x = truth[x] = truth[truth[x]];
    return x;
  };
  std::vector<std::vector<uint64_t>> sets(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) sets[i] = shingle_set(rows[i].code.value_or(""), 5);
  for (const auto& [key, members] : groups) {
    for (size_t x = 0; x < members.size(); ++x) {
      for (size_t y = x + 1; y < members.size(); ++y) {
        const size_t a = members[x];
        const size_t b = members[y];
        const bool same_partition = rows[a].code_id == rows[b].code_id;
        if (same_partition || jaccard(sets[a], sets[b]) >= threshold) truth[find(a)] = find(b);
      }
    }
  }
  PairScore s;
  uint64_t predicted = 0;
  uint64_t both = 0;
  for (const auto& [key, members] : groups) {
    for (size_t x = 0; x < members.size(); ++x) {
      for (size_t y = x + 1; y < members.size(); ++y) {
        const size_t a = members[x];
        const size_t b = members[y];
        const bool t = find(a) == find(b);
        const bool p = c.keeper[a] == c.keeper[b];
        s.truth_pairs += t ? 1 : 0;
        predicted += p ? 1 : 0;
        both += t && p ? 1 : 0;
      }
    }
  }
  if (predicted > 0) s.precision = static_cast<double>(both) / static_cast<double>(predicted);
  if (s.truth_pairs > 0) s.recall = static_cast<double>(both) / static_cast<double>(s.truth_pairs);
  return s;
}

class SynthDataTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ =
        (fs::temp_directory_path() / ("kbdata-dedup-synth-" + std::to_string(::getpid()))).string();
    fs::remove_all(dir_);
    const std::string command = std::string(KBDATA_BINARY) +
                                " synth --scale small --family flat --seed 5 --out " + dir_ +
                                " > /dev/null";
    ASSERT_EQ(std::system(command.c_str()), 0);
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }

  static std::vector<Submission> load(const std::string& name) {
    auto reader = parquet::FileReader::open(dir_ + "/" + name);
    std::vector<Submission> rows;
    dataset::LoadOptions options;
    options.with_code = true;
    dataset::LoadStats stats;
    dataset::load_file(
        *reader, dataset::SchemaFamily::FLAT, options,
        [&](Submission&& s) { rows.push_back(std::move(s)); }, stats);
    return rows;
  }

  static std::string dir_;
};
std::string SynthDataTest::dir_;

TEST_F(SynthDataTest, PrecisionAndRecallAgainstBruteForceAreAtLeast95Percent) {
  std::vector<Submission> rows = load("nvidia_nvfp4_submissions.parquet");
  ASSERT_GT(rows.size(), 300u);
  for (bool across : {false, true}) {
    DedupOptions o = fuzzy_options();
    o.across_users = across;
    Clustering c = cluster_rows(rows, o);
    PairScore s = score_against_brute_force(rows, c, across, 0.8);
    EXPECT_GT(s.truth_pairs, 300u);  // the data has near-duplicates to find
    EXPECT_GE(s.precision, 0.95) << (across ? "across users" : "");
    EXPECT_GE(s.recall, 0.95) << (across ? "across users" : "");
    EXPECT_GT(c.summary.near_duplicate_clusters, 20u);
    std::printf("%s: %zu rows, %llu true pairs, precision %.4f, recall %.4f\n",
                across ? "across users" : "within users", rows.size(),
                static_cast<unsigned long long>(s.truth_pairs), s.precision, s.recall);
  }
}

// The threads are the options' (dedup never reads $KBDATA_THREADS: the command line decides it).
TEST_F(SynthDataTest, ClustersDoNotDependOnTheNumberOfThreads) {
  std::vector<Submission> rows = load("nvidia_nvfp4_submissions.parquet");
  ::setenv("KBDATA_THREADS", "garbage", 1);
  DedupOptions one = fuzzy_options();
  one.threads = 1;
  DedupOptions three = fuzzy_options();
  three.threads = 3;
  Clustering a = cluster_rows(rows, one);
  Clustering b = cluster_rows(rows, three);
  ::unsetenv("KBDATA_THREADS");
  EXPECT_EQ(a.keeper, b.keeper);
  EXPECT_EQ(a.summary.verified_pairs, b.summary.verified_pairs);
  EXPECT_GT(a.summary.near_duplicate_clusters, 0u);
}

TEST_F(SynthDataTest, TheMeasureFailsBadClusterings) {
  // A check of the check on the same data: no clusters at all lose recall; one cluster per
  // (leaderboard, user) loses precision.
  std::vector<Submission> rows = load("nvidia_nvfp4_submissions.parquet");
  Clustering alone;
  Clustering lumped;
  std::map<std::pair<int64_t, std::string>, size_t> first;
  for (size_t i = 0; i < rows.size(); ++i) {
    alone.keeper.push_back(i);
    lumped.keeper.push_back(
        first.try_emplace({rows[i].leaderboard_id, rows[i].user_id}, i).first->second);
  }
  EXPECT_LT(score_against_brute_force(rows, alone, false, 0.8).recall, 0.5);
  EXPECT_LT(score_against_brute_force(rows, lumped, false, 0.8).precision, 0.5);
}

}  // namespace
}  // namespace kbdata::dedup
