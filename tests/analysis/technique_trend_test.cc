// The technique analyses over hand-built rows: weeks from the first submission, the shares of a
// week's submissions and users, the week's top from the platform's ranking rules (best row per
// user, ties at the cut kept, the runner with the most scores), and the winners' shares and
// medians.
#include "analysis/technique_trend.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kbdata::analysis {
namespace {

using techniques::Feature;
using techniques::Language;

constexpr int64_t kDay = int64_t{24} * 3600 * 1000 * 1000;
constexpr int64_t kStart = 1'700'000'000'000'000;

int64_t next_id = 1;

TechniqueRow row(const std::string& user, int64_t day, std::optional<double> score,
                 Language language, std::vector<Feature> features = {},
                 std::string runner = "B200") {
  TechniqueRow r;
  r.row.leaderboard_id = 597;
  r.row.problem_name = "nvfp4_gemm";
  r.row.user_id = user;
  r.row.runner = runner;
  r.row.submission_time = kStart + day * kDay;
  r.row.submission_id = next_id++;
  r.row.score = score;
  r.row.passed = score.has_value();  // a row without a score failed
  r.techniques.language = language;
  r.techniques.add(language);
  for (Feature f : features) r.techniques.add(f);
  return r;
}

const TrendRow* find(const std::vector<TrendRow>& rows, int64_t week, std::string_view tag) {
  for (const TrendRow& r : rows) {
    if (r.week == week && r.tag.name() == tag) return &r;
  }
  return nullptr;
}

TEST(TechniqueTrend, WeeksSharesAndTheWeeksTop) {
  const std::vector<TechniqueRow> rows = {
      // Week 1: alice triton with TMA, bob cuda twice (one fails), carol pytorch.
      row("alice", 0, 3.0, Language::TRITON, {Feature::TMA}),
      row("bob", 1, std::nullopt, Language::CUDA),
      row("bob", 2, 2.0, Language::CUDA),
      row("carol", 6, 5.0, Language::PYTORCH),
      // Week 2: nothing. Week 3: carol moves to triton with TMA and leads.
      row("carol", 15, 1.0, Language::TRITON, {Feature::TMA}),
  };
  const std::vector<TrendRow> trend = technique_trend(rows, 2).rows;
  // Tags present: triton, cuda, pytorch (languages), tma; three weeks.
  ASSERT_EQ(trend.size(), 3U * 4U);
  EXPECT_EQ(trend.front().tag.name(), "triton");  // languages in their order, then features
  EXPECT_EQ(trend[3].tag.name(), "tma");

  const TrendRow* w1 = find(trend, 1, "cuda");
  ASSERT_NE(w1, nullptr);
  EXPECT_EQ(w1->week_start, kStart);
  EXPECT_EQ(w1->submissions, 2U);
  EXPECT_EQ(w1->week_submissions, 4U);
  EXPECT_EQ(w1->users, 1U);
  EXPECT_EQ(w1->week_users, 3U);
  // Top 2 at the end of week 1: bob (2.0, cuda), alice (3.0, triton).
  EXPECT_EQ(w1->top_size, 2U);
  EXPECT_EQ(w1->top, 1U);
  EXPECT_EQ(find(trend, 1, "pytorch")->top, 0U);
  EXPECT_EQ(find(trend, 1, "tma")->submissions, 1U);

  const TrendRow* w2 = find(trend, 2, "triton");
  ASSERT_NE(w2, nullptr);
  EXPECT_EQ(w2->week_submissions, 0U);
  EXPECT_EQ(w2->week_start, kStart + 7 * kDay);
  EXPECT_EQ(w2->top, 1U);  // the top carries over: alice still second

  // Week 3: carol (1.0, triton) then bob (2.0): triton 1 of 2, tma 1 of 2, cuda 1 of 2.
  EXPECT_EQ(find(trend, 3, "triton")->top, 1U);
  EXPECT_EQ(find(trend, 3, "cuda")->top, 1U);
  EXPECT_EQ(find(trend, 3, "tma")->users, 1U);
  EXPECT_EQ(find(trend, 3, "tma")->week_users, 1U);
}

TEST(TechniqueTrend, TiesAtTheCutStayAndTheRankingRunnerHasTheMostScores) {
  const std::vector<TechniqueRow> rows = {row("a", 0, 1.0, Language::CUDA),
                                          row("b", 0, 2.0, Language::TRITON),
                                          row("c", 0, 2.0, Language::HIP),
                                          // Two rows on H100 only: B200 (3 scores) ranks.
                                          row("d", 0, 0.5, Language::PYTORCH, {}, "H100"),
                                          row("e", 0, 0.4, Language::PYTORCH, {}, "H100")};
  EXPECT_EQ(ranking_runner(rows), "B200");
  const std::vector<TrendRow> trend = technique_trend(rows, 2).rows;
  // b and c tie for second: both in the top.
  EXPECT_EQ(find(trend, 1, "cuda")->top_size, 3U);
  EXPECT_EQ(find(trend, 1, "pytorch")->top, 0U);
  EXPECT_EQ(find(trend, 1, "pytorch")->submissions, 2U);
}

// Rows dated far from the rest (1900-01-01 and 9999-12-31 beside a competition of a few weeks)
// are named as outliers and left out: the weeks span the competition, not the dates' range (which
// would be 420,000 weeks of rows).
TEST(TechniqueTrend, OutliersInTimeAreLeftOutOfTheWeeks) {
  constexpr int64_t k1900 = -2'208'988'800'000'000;   // 1900-01-01 00:00 UTC
  constexpr int64_t k9999 = 253'402'214'400'000'000;  // 9999-12-31 00:00 UTC
  std::vector<TechniqueRow> rows = {row("a", 0, 3.0, Language::CUDA),
                                    row("b", 3, 2.0, Language::TRITON),
                                    row("c", 20, 1.0, Language::CUDA)};
  TechniqueRow early = row("d", 0, 0.5, Language::PYTORCH);
  early.row.submission_time = k1900;
  TechniqueRow late = row("e", 0, 0.25, Language::HIP);
  late.row.submission_time = k9999;
  rows.push_back(late);
  rows.push_back(early);
  const TechniqueTrend trend = technique_trend(rows, 10);
  ASSERT_EQ(trend.outliers.size(), 2U);
  EXPECT_EQ(trend.outliers[0].submission_id, early.row.submission_id);  // in time order
  EXPECT_EQ(trend.outliers[0].submission_time, k1900);
  EXPECT_EQ(trend.outliers[1].submission_id, late.row.submission_id);
  EXPECT_EQ(trend.outliers[0].leaderboard_id, 597);
  EXPECT_EQ(trend.outliers[0].problem_name, "nvfp4_gemm");
  // Three weeks (days 0, 3 and 20), two tags: the outliers' own tags (pytorch, hip) are not there,
  // nor in the week's counts or its top.
  ASSERT_EQ(trend.rows.size(), 3U * 2U);
  EXPECT_EQ(trend.rows.front().week_start, kStart);
  EXPECT_EQ(find(trend.rows, 1, "cuda")->week_submissions, 2U);
  EXPECT_EQ(find(trend.rows, 3, "cuda")->top_size, 3U);
  EXPECT_EQ(find(trend.rows, 3, "pytorch"), nullptr);
}

// The axis is the largest run of rows with no gap of more than kTrendGapWeeks weeks; a gap of
// exactly that many weeks keeps both sides.
TEST(TechniqueTrend, TheAxisIsTheLargestRunWithoutALongGap) {
  const int64_t gap_days = kTrendGapWeeks * 7;
  std::vector<TechniqueRow> rows = {row("a", 0, 3.0, Language::CUDA),
                                    row("b", gap_days, 2.0, Language::CUDA)};
  TechniqueTrend trend = technique_trend(rows, 10);
  EXPECT_TRUE(trend.outliers.empty());
  EXPECT_EQ(trend.rows.size(), static_cast<size_t>(kTrendGapWeeks + 1));
  // One day more: two runs of one row; the first (the earlier) is the axis.
  rows.push_back(row("c", 2 * gap_days + 1, 1.0, Language::CUDA));
  rows.push_back(row("d", 2 * gap_days + 2, 1.0, Language::CUDA));
  trend = technique_trend(rows, 10);
  // a and b are 26 weeks apart, c is 26 weeks and a day after b: the run {c, d} is apart, and
  // {a, b} (as large, and earlier) is the axis.
  ASSERT_EQ(trend.outliers.size(), 2U);
  EXPECT_EQ(trend.outliers[0].user_id, "c");
}

TEST(TechniqueWinners, SharesOfTheTopAgainstTheRestAndMedians) {
  std::vector<TechniqueRow> rows;
  // Five users; the best two use tensor cores; one of the rest does, slowly.
  rows.push_back(row("u1", 0, 1.0, Language::CUDA, {Feature::TENSOR_CORES}));
  rows.push_back(row("u1", 1, 4.0, Language::PYTORCH));  // not u1's best
  rows.push_back(row("u2", 0, 2.0, Language::TRITON, {Feature::TENSOR_CORES}));
  rows.push_back(row("u3", 0, 3.0, Language::TRITON));
  rows.push_back(row("u4", 0, 5.0, Language::TRITON, {Feature::TENSOR_CORES}));
  rows.push_back(row("u5", 0, 6.0, Language::PYTORCH));
  const std::vector<WinnersRow> winners = technique_winners(rows, 2);
  const WinnersRow* tc = nullptr;
  for (const WinnersRow& w : winners) {
    if (w.tag.name() == "tensor_cores") tc = &w;
  }
  ASSERT_NE(tc, nullptr);
  EXPECT_EQ(tc->runner, "B200");
  EXPECT_EQ(tc->top_kernels, 2U);
  EXPECT_EQ(tc->top_with, 2U);
  EXPECT_EQ(tc->rest_kernels, 3U);
  EXPECT_EQ(tc->rest_with, 1U);
  EXPECT_DOUBLE_EQ(*tc->median_with, 2.0);     // 1, 2, 5
  EXPECT_DOUBLE_EQ(*tc->median_without, 4.5);  // 3, 6
  // The tag the top uses most over the rest comes first; pytorch (only u5's best) last.
  EXPECT_EQ(winners.front().tag.name(), "tensor_cores");
  EXPECT_EQ(winners.back().tag.name(), "pytorch");
  EXPECT_EQ(winners.back().top_with, 0U);
}

TEST(TechniqueWinners, NoRankedRowNoRow) {
  const std::vector<TechniqueRow> rows = {row("a", 0, std::nullopt, Language::CUDA)};
  EXPECT_TRUE(technique_winners(rows, 10).empty());
  EXPECT_FALSE(ranking_runner(rows).has_value());
  // The trend still counts the submissions.
  const std::vector<TrendRow> trend = technique_trend(rows, 10).rows;
  ASSERT_EQ(trend.size(), 1U);
  EXPECT_EQ(trend[0].submissions, 1U);
  EXPECT_EQ(trend[0].top_size, 0U);
}

}  // namespace
}  // namespace kbdata::analysis
