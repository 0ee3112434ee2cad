#include "analysis/ranking.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>

namespace kbdata::analysis {
namespace {

using dataset::Submission;

Submission row(int64_t id, const std::string& user, std::optional<double> score, int64_t time = 0,
               std::optional<std::string> runner = "B200", bool passed = true,
               int64_t leaderboard = 597) {
  Submission s;
  s.submission_id = id;
  s.leaderboard_id = leaderboard;
  s.problem_name = "nvfp4_gemm";
  s.user_id = user;
  s.user_name = "name-" + user;
  s.submission_time = time == 0 ? id * 10 : time;
  s.status = passed ? "succeeded" : "failed";
  s.score = score;
  s.passed = passed;
  s.runner = std::move(runner);
  return s;
}

std::vector<std::string> users(const Ranking& r) {
  std::vector<std::string> out;
  for (const RankedEntry& e : r.entries) out.push_back(e.user_id);
  return out;
}

std::vector<int64_t> ranks(const Ranking& r) {
  std::vector<int64_t> out;
  for (const RankedEntry& e : r.entries) out.push_back(e.rank);
  return out;
}

TEST(Ranking, OneRowPerUserWithTheBestQualifyingScore) {
  std::vector<Submission> rows = {row(1, "a", 3.0), row(2, "a", 1.0), row(3, "b", 2.0),
                                  row(4, "a", 0.5, 0, "B200", /*passed=*/false),
                                  row(5, "c", std::nullopt)};
  auto rankings = rank(rows);
  ASSERT_EQ(rankings.size(), 1u);
  EXPECT_EQ(users(rankings[0]), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(rankings[0].entries[0].submission_id, 2);
  EXPECT_EQ(rankings[0].entries[0].score, 1.0);
  EXPECT_EQ(rankings[0].entries[0].user_name, "name-a");
  EXPECT_EQ(rankings[0].problem_name, "nvfp4_gemm");
}

TEST(Ranking, HackedSubmissionsDoNotQualify) {
  Submission hacked = row(1, "a", 0.1);
  hacked.status = "hacked";
  auto rankings = rank({hacked, row(2, "b", 1.0)});
  ASSERT_EQ(rankings.size(), 1u);
  EXPECT_EQ(users(rankings[0]), (std::vector<std::string>{"b"}));
  EXPECT_FALSE(qualifies(hacked));
}

// One rule for a measurable score (dataset::valid_score): a GPU kernel timed at 0 s, or at a
// subnormal number of seconds, was not timed; such a row never ranks, let alone ties at rank 1.
TEST(Ranking, ScoresThatMeasureNothingNeverRank) {
  const double denormal = std::numeric_limits<double>::denorm_min();
  EXPECT_FALSE(valid_score(0.0));
  EXPECT_FALSE(valid_score(-0.0));
  EXPECT_FALSE(valid_score(denormal));
  EXPECT_FALSE(valid_score(std::numeric_limits<double>::min() / 2));  // subnormal
  EXPECT_FALSE(valid_score(-1e-6));
  EXPECT_FALSE(valid_score(std::numeric_limits<double>::quiet_NaN()));
  EXPECT_FALSE(valid_score(std::numeric_limits<double>::infinity()));
  EXPECT_TRUE(valid_score(std::numeric_limits<double>::min()));  // the least normal double
  EXPECT_TRUE(valid_score(1e-9));
  EXPECT_TRUE(valid_score(2.5));
  auto rankings = rank(
      {row(1, "zero", 0.0), row(2, "denormal", denormal), row(3, "b", 2e-6), row(4, "c", 1e-6)});
  ASSERT_EQ(rankings.size(), 1u);
  EXPECT_EQ(users(rankings[0]), (std::vector<std::string>{"c", "b"}));
  EXPECT_EQ(ranks(rankings[0]), (std::vector<int64_t>{1, 2}));
  EXPECT_FALSE(qualifies(row(5, "zero", 0.0)));
}

TEST(Ranking, EqualScoresShareARankAndTheNextSkips) {
  auto rankings = rank({row(1, "a", 1.0), row(2, "b", 2.0), row(3, "c", 2.0), row(4, "d", 3.0)});
  EXPECT_EQ(ranks(rankings[0]), (std::vector<int64_t>{1, 2, 2, 4}));
  // Equal scores listed by submission time.
  EXPECT_EQ(users(rankings[0]), (std::vector<std::string>{"a", "b", "c", "d"}));
}

TEST(Ranking, AUsersTiesBreakByEarliestTimeThenLowestId) {
  auto rankings = rank({row(9, "a", 1.0, 500), row(7, "a", 1.0, 100), row(8, "a", 1.0, 100)});
  ASSERT_EQ(rankings[0].entries.size(), 1u);
  EXPECT_EQ(rankings[0].entries[0].submission_id, 7);
}

TEST(Ranking, OneRankingPerLeaderboardAndRunnerRunnerlessLast) {
  auto rankings = rank({row(1, "a", 1.0, 0, "H100"), row(2, "a", 2.0, 0, "A100"),
                        row(3, "b", 1.5, 0, std::nullopt), row(4, "c", 1.0, 0, "A100", true, 496)});
  ASSERT_EQ(rankings.size(), 4u);
  EXPECT_EQ(rankings[0].leaderboard_id, 496);
  EXPECT_EQ(rankings[1].runner, "A100");
  EXPECT_EQ(rankings[2].runner, "H100");
  EXPECT_FALSE(rankings[3].runner.has_value());
}

TEST(Ranking, LimitKeepsTiesAtTheCut) {
  auto rankings = rank({row(1, "a", 1.0), row(2, "b", 2.0), row(3, "c", 2.0), row(4, "d", 3.0)},
                       /*limit=*/2);
  EXPECT_EQ(users(rankings[0]), (std::vector<std::string>{"a", "b", "c"}));
}

TEST(Ranking, InputOrderDoesNotMatter) {
  std::vector<Submission> rows;
  std::mt19937 rng(5);
  for (int i = 1; i <= 300; ++i) {
    rows.push_back(row(i, "u" + std::to_string(rng() % 40), static_cast<double>(rng() % 50),
                       static_cast<int64_t>(rng() % 1000) + 1));
  }
  auto expected = rank(rows);
  for (int round = 0; round < 5; ++round) {
    std::shuffle(rows.begin(), rows.end(), rng);
    auto again = rank(rows);
    ASSERT_EQ(again.size(), expected.size());
    for (size_t i = 0; i < again[0].entries.size(); ++i) {
      EXPECT_EQ(again[0].entries[i].submission_id, expected[0].entries[i].submission_id);
      EXPECT_EQ(again[0].entries[i].rank, expected[0].entries[i].rank);
    }
  }
}

TEST(Ranking, NothingQualifiesNothingRanked) {
  EXPECT_TRUE(rank({row(1, "a", std::nullopt), row(2, "b", 1.0, 0, "B200", false)}).empty());
  EXPECT_TRUE(rank({}).empty());
}

}  // namespace
}  // namespace kbdata::analysis
