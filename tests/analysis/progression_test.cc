#include "analysis/progression.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <tuple>

#include "analysis/records.h"

namespace kbdata::analysis {
namespace {

using dataset::Submission;

Submission row(int64_t id, const std::string& user, std::optional<double> score,
               std::optional<std::string> runner = "B200", bool passed = true,
               int64_t leaderboard = 597) {
  Submission s;
  s.submission_id = id;
  s.leaderboard_id = leaderboard;
  s.problem_name = leaderboard == 597 ? "nvfp4_gemm" : "other";
  s.user_id = user;
  s.user_name = "name-" + user;
  s.submission_time = id * 10;
  s.status = passed ? "succeeded" : "failed";
  s.score = score;
  s.passed = score ? std::optional<bool>(passed) : std::nullopt;
  s.runner = std::move(runner);
  return s;
}

// ---- progression ----

TEST(Progression, RunningBestImprovementsAndFactors) {
  // Scores 8, (failed), 10, 4, 4, 2: bests 8, 8, 8, 4, 4, 2; improvements at 1, 4, 6.
  std::vector<Submission> rows = {row(1, "a", 8.0),  row(2, "a", std::nullopt, std::nullopt, false),
                                  row(3, "a", 10.0), row(4, "a", 4.0),
                                  row(5, "a", 4.0),  row(6, "a", 2.0)};
  std::shuffle(rows.begin(), rows.end(), std::mt19937(7));  // any input order
  auto p = progression(rows);
  ASSERT_EQ(p.size(), 1u);
  const auto& steps = p[0].steps;
  ASSERT_EQ(steps.size(), 6u);
  std::vector<int64_t> ids;
  for (const auto& s : steps) ids.push_back(s.submission_id);
  EXPECT_EQ(ids, (std::vector<int64_t>{1, 2, 3, 4, 5, 6}));

  EXPECT_TRUE(steps[0].improved);
  EXPECT_FALSE(steps[0].factor_previous);
  EXPECT_EQ(steps[0].factor_first, 1.0);
  EXPECT_EQ(steps[0].best, 8.0);

  EXPECT_FALSE(steps[1].qualifies);
  EXPECT_FALSE(steps[1].improved);
  EXPECT_FALSE(steps[1].best);  // no runner: no running best

  EXPECT_FALSE(steps[2].improved);
  EXPECT_EQ(steps[2].best, 8.0);

  EXPECT_TRUE(steps[3].improved);
  EXPECT_EQ(steps[3].factor_previous, 2.0);
  EXPECT_EQ(steps[3].factor_first, 2.0);

  EXPECT_FALSE(steps[4].improved);  // equal is not an improvement
  EXPECT_EQ(steps[4].best, 4.0);

  EXPECT_TRUE(steps[5].improved);
  EXPECT_EQ(steps[5].factor_previous, 2.0);
  EXPECT_EQ(steps[5].factor_first, 4.0);
  EXPECT_EQ(p[0].user_name, "name-a");
}

TEST(Progression, RunningBestIsPerRunnerAndFailedOrHackedRowsDoNotCount) {
  Submission hacked = row(3, "a", 0.5, "B200");
  hacked.status = "hacked";
  std::vector<Submission> rows = {row(1, "a", 4.0, "H100"), row(1, "a", 2.0, "A100"),
                                  row(2, "a", 1.0, "H100", /*passed=*/false), hacked,
                                  row(4, "a", 3.0, "H100")};
  auto p = progression(rows);
  ASSERT_EQ(p.size(), 1u);
  const auto& s = p[0].steps;
  ASSERT_EQ(s.size(), 5u);
  // Same time and id: by runner.
  EXPECT_EQ(s[0].runner, "A100");
  EXPECT_EQ(s[1].runner, "H100");
  EXPECT_TRUE(s[0].improved);
  EXPECT_TRUE(s[1].improved);  // the first on H100, although A100's 2.0 is lower
  EXPECT_FALSE(s[2].qualifies);
  EXPECT_EQ(s[2].best, 4.0);
  EXPECT_FALSE(s[3].qualifies);
  EXPECT_FALSE(s[3].best);  // nothing qualifying on B200 yet
  EXPECT_TRUE(s[4].improved);
  EXPECT_DOUBLE_EQ(*s[4].factor_previous, 4.0 / 3.0);
}

TEST(Progression, OnePerLeaderboard) {
  auto p = progression({row(2, "a", 1.0, "B200", true, 700), row(1, "a", 2.0)});
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].leaderboard_id, 597);
  EXPECT_EQ(p[1].leaderboard_id, 700);
  EXPECT_TRUE(p[1].steps[0].improved);  // the best restarts per leaderboard
}

// ---- records ----

TEST(Records, EachStrictImprovementAcrossUsers) {
  RecordsBuilder b;
  // Times follow ids. Records: a 5 (1), b 4 (3), a 2 (5); c's 2 at 6 ties and is no record.
  for (const Submission& s :
       {row(5, "a", 2.0), row(2, "b", 6.0), row(1, "a", 5.0), row(3, "b", 4.0), row(4, "c", 4.0),
        row(6, "c", 2.0), row(7, "d", 1.0, "B200", /*passed=*/false),
        row(8, "d", std::nullopt, std::nullopt, false)}) {
    b.add(s);
  }
  auto series = b.finish();
  ASSERT_EQ(series.size(), 1u);
  const auto& r = series[0].records;
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(series[0].qualifying_rows, 6);
  EXPECT_EQ(r[0].submission_id, 1);
  EXPECT_FALSE(r[0].previous);
  EXPECT_FALSE(r[0].factor);
  EXPECT_EQ(r[1].submission_id, 3);
  EXPECT_EQ(r[1].user_id, "b");
  EXPECT_EQ(r[1].previous, 5.0);
  EXPECT_EQ(r[1].factor, 1.25);
  EXPECT_EQ(r[2].submission_id, 5);
  EXPECT_EQ(r[2].factor, 2.0);
  EXPECT_EQ(r[2].user_name, "name-a");
}

// Thousands of rows in random order (the builder compacts as it goes) give the records a plain
// scan in time order gives.
TEST(Records, CompactionKeepsExactlyTheRecords) {
  std::mt19937 rng(11);
  std::vector<Submission> rows;
  for (int64_t id = 1; id <= 5000; ++id) {
    Submission s =
        row(id, "u" + std::to_string(id % 37), 1.0 + static_cast<double>(rng() % 100000) / 1000.0);
    s.submission_time = static_cast<int64_t>(rng() % 3000);  // ties in time, ordered by id
    rows.push_back(s);
  }
  std::vector<Submission> by_time = rows;
  std::sort(by_time.begin(), by_time.end(), [](const Submission& a, const Submission& b) {
    return std::tie(a.submission_time, a.submission_id) <
           std::tie(b.submission_time, b.submission_id);
  });
  std::vector<int64_t> expected;
  double best = 1e300;
  for (const Submission& s : by_time) {
    if (*s.score < best) {
      best = *s.score;
      expected.push_back(s.submission_id);
    }
  }
  std::shuffle(rows.begin(), rows.end(), rng);
  RecordsBuilder b;
  for (const Submission& s : rows) b.add(s);
  auto series = b.finish();
  ASSERT_EQ(series.size(), 1u);
  EXPECT_EQ(series[0].qualifying_rows, 5000);
  std::vector<int64_t> got;
  for (const Record& r : series[0].records) got.push_back(r.submission_id);
  EXPECT_EQ(got, expected);
  EXPECT_GT(expected.size(), 3u);
}

TEST(Records, PerRunnerWithRunnerLessLast) {
  RecordsBuilder b;
  b.add(row(1, "a", 3.0, std::nullopt));
  b.add(row(2, "a", 3.0, "H100"));
  b.add(row(3, "b", 1.0, "A100"));
  b.add(row(4, "b", 2.0, "H100"));
  auto series = b.finish();
  ASSERT_EQ(series.size(), 3u);
  EXPECT_EQ(series[0].runner, "A100");
  EXPECT_EQ(series[1].runner, "H100");
  EXPECT_EQ(series[1].records.size(), 2u);
  EXPECT_FALSE(series[2].runner);
}

}  // namespace
}  // namespace kbdata::analysis
