#include "analysis/fastest.h"

#include <gtest/gtest.h>

namespace kbdata::analysis {
namespace {

using dataset::Submission;

Submission row(int64_t id, const std::string& user, std::optional<double> score, int64_t time,
               std::optional<std::string> runner = "B200", bool passed = true,
               int64_t leaderboard = 597) {
  Submission s;
  s.submission_id = id;
  s.leaderboard_id = leaderboard;
  s.problem_name = "p" + std::to_string(leaderboard);
  s.user_id = user;
  s.submission_time = time;
  s.status = passed ? "succeeded" : "failed";
  s.score = score;
  s.passed = passed;
  s.runner = std::move(runner);
  return s;
}

TEST(Fastest, LowestQualifyingScorePerLeaderboardAndRunner) {
  Submission hacked = row(1, "a", 0.1, 10);
  hacked.status = "hacked";
  std::vector<Submission> rows = {
      hacked,
      row(2, "a", 0.05, 20, "B200", /*passed=*/false),  // not passed: ignored
      row(3, "b", std::nullopt, 30),                    // unscored: ignored
      row(4, "b", 2.0, 40),
      row(5, "c", 1.5, 50),
      row(6, "c", 0.9, 60, "H100"),
      row(7, "d", 3.0, 70, std::nullopt, true, 398),
      row(8, "d", 0.2, 80, "A100", true, 496),
  };
  auto result = fastest(rows);
  ASSERT_EQ(result.size(), 4u);
  EXPECT_EQ(result[0].leaderboard_id, 398);
  EXPECT_EQ(result[0].runner, std::nullopt);
  EXPECT_EQ(result[0].submission.submission_id, 7);
  EXPECT_EQ(result[1].leaderboard_id, 496);
  EXPECT_EQ(result[1].submission.submission_id, 8);
  EXPECT_EQ(result[2].leaderboard_id, 597);
  EXPECT_EQ(result[2].runner, "B200");
  EXPECT_EQ(result[2].submission.submission_id, 5);
  EXPECT_EQ(result[2].submission.score, 1.5);
  EXPECT_EQ(result[3].runner, "H100");
  EXPECT_EQ(result[3].submission.submission_id, 6);
}

TEST(Fastest, TiesGoToTheEarliestThenTheLowestId) {
  // Same score: 12 (time 5) is earliest; 11 and 13 share time 9.
  auto result = fastest({row(11, "a", 1.0, 9), row(12, "b", 1.0, 5), row(13, "c", 1.0, 9)});
  ASSERT_EQ(result.size(), 1u);
  EXPECT_EQ(result[0].submission.submission_id, 12);
  result = fastest({row(13, "c", 1.0, 9), row(11, "a", 1.0, 9)});
  ASSERT_EQ(result.size(), 1u);
  EXPECT_EQ(result[0].submission.submission_id, 11);
}

TEST(Fastest, KeepsTheCodeOfTheChosenRow) {
  Submission slow = row(1, "a", 2.0, 1);
  slow.code = "slow";
  Submission quick = row(2, "a", 1.0, 2);
  quick.code = "quick";
  FastestBuilder builder;
  builder.add(slow);
  builder.add(quick);
  auto result = builder.finish();
  ASSERT_EQ(result.size(), 1u);
  EXPECT_EQ(result[0].submission.code, "quick");
}

TEST(Fastest, NothingQualifiesNothingReturned) {
  EXPECT_TRUE(fastest({row(1, "a", std::nullopt, 1), row(2, "a", 1.0, 2, "B200", false)}).empty());
}

}  // namespace
}  // namespace kbdata::analysis
