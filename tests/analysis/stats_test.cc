#include "analysis/stats.h"

#include <gtest/gtest.h>

#include <limits>

namespace kbdata::analysis {
namespace {

using dataset::Submission;

Submission row(int64_t id, const std::string& user, std::optional<double> score,
               std::optional<bool> passed, int64_t time, std::optional<std::string> runner,
               int64_t leaderboard = 597) {
  Submission s;
  s.submission_id = id;
  s.leaderboard_id = leaderboard;
  s.problem_name = "p" + std::to_string(leaderboard);
  s.user_id = user;
  s.submission_time = time;
  s.status = score && passed == true ? "succeeded" : "failed";
  s.score = score;
  s.passed = passed;
  s.runner = std::move(runner);
  return s;
}

TEST(QuantileCont, LinearInterpolationBetweenClosestRanks) {
  EXPECT_EQ(quantile_cont({5.0}, 0.1), 5.0);
  EXPECT_EQ(quantile_cont({1.0, 2.0}, 0.5), 1.5);
  // n = 4: h = 0.3 for q = 0.1: 10 + 0.3 * (20 - 10) = 13.
  EXPECT_DOUBLE_EQ(quantile_cont({10, 20, 30, 40}, 0.1), 13.0);
  EXPECT_EQ(quantile_cont({10, 20, 30, 40}, 0.5), 25.0);
  // n = 11: h = 1 exactly for q = 0.1.
  std::vector<double> eleven = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  EXPECT_EQ(quantile_cont(eleven, 0.1), 1.0);
  EXPECT_EQ(quantile_cont(eleven, 0.5), 5.0);
  EXPECT_EQ(quantile_cont(eleven, 0.0), 0.0);
  EXPECT_EQ(quantile_cont(eleven, 1.0), 10.0);
}

TEST(Stats, CountsPerSourceAndLeaderboard) {
  Submission hacked = row(4, "c", 0.5, true, 400, "B200");
  hacked.status = "hacked";
  std::vector<Submission> rows = {
      row(1, "a", 3.0, true, 100, "B200"),
      row(1, "a", 4.0, true, 100, "H100"),  // same submission, second runner
      row(2, "a", std::nullopt, false, 200, std::nullopt),
      row(3, "b", 1.0, true, 50, "B200"),
      hacked,
      row(5, "b", 2.0, true, 500, "B200"),
  };
  rows[0].code = "abc";
  rows[1].code = "abc";
  rows[3].code = "\xC3\xA9";  // é: 2 bytes
  StatsBuilder builder;
  for (const Submission& s : rows) builder.add("cfg", s);
  builder.add("other.parquet", row(9, "z", 7.0, true, 900, std::nullopt, 398));
  builder.add("cfg", row(8, "y", std::nullopt, std::nullopt, 10, std::nullopt, 496));

  auto stats = builder.finish();
  ASSERT_EQ(stats.size(), 3u);
  // "cfg" came first: its leaderboards by id (496, 597), then "other.parquet".
  EXPECT_EQ(stats[0].source, "cfg");
  EXPECT_EQ(stats[0].leaderboard_id, 496);
  EXPECT_EQ(stats[0].rows, 1u);
  EXPECT_EQ(stats[0].qualifying, 0u);
  EXPECT_FALSE(stats[0].score_min.has_value());
  EXPECT_TRUE(stats[0].runners.empty());

  const LeaderboardStats& s = stats[1];
  EXPECT_EQ(s.leaderboard_id, 597);
  EXPECT_EQ(s.problem_name, "p597");
  EXPECT_EQ(s.rows, 6u);
  EXPECT_EQ(s.submissions, 5u);
  EXPECT_EQ(s.users, 3u);
  EXPECT_EQ(s.passing, 5u);
  EXPECT_EQ(s.scored, 5u);
  EXPECT_EQ(s.qualifying, 4u);  // the hacked row does not count
  // Qualifying scores 1, 2, 3, 4: min 1, p10 at h = 0.3 -> 1.3, median 2.5.
  EXPECT_EQ(s.score_min, 1.0);
  EXPECT_DOUBLE_EQ(*s.score_p10, 1.3);
  EXPECT_EQ(s.score_median, 2.5);
  EXPECT_EQ(s.first_time, 50);
  EXPECT_EQ(s.last_time, 500);
  EXPECT_EQ(s.code_bytes, 8u);
  EXPECT_EQ(s.runners, (std::vector<std::string>{"B200", "H100"}));

  EXPECT_EQ(stats[2].source, "other.parquet");
  EXPECT_EQ(stats[2].leaderboard_id, 398);
  EXPECT_EQ(stats[2].score_median, 7.0);
}

// invalid_scores counts by the one rule of a measurable score (dataset::valid_score): 0 s and
// subnormal scores, as NaN, infinities and negatives; none of them qualifies.
TEST(Stats, InvalidScoresAreEveryScoreThatMeasuresNothing) {
  const std::vector<double> invalid = {0.0,
                                       -0.0,
                                       std::numeric_limits<double>::denorm_min(),
                                       -1e-3,
                                       std::numeric_limits<double>::quiet_NaN(),
                                       std::numeric_limits<double>::infinity()};
  StatsBuilder builder;
  int64_t id = 0;
  for (double score : invalid) {
    ++id;
    builder.add("cfg", row(id, "u", score, true, id * 10, "B200"));
  }
  builder.add("cfg", row(id + 1, "u", 2e-6, true, id * 10 + 10, "B200"));
  const auto stats = builder.finish();
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_EQ(stats[0].scored, invalid.size() + 1);
  EXPECT_EQ(stats[0].invalid_scores, invalid.size());
  EXPECT_EQ(stats[0].qualifying, 1u);
  EXPECT_EQ(stats[0].score_min, 2e-6);
}

}  // namespace
}  // namespace kbdata::analysis
