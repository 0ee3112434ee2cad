// query::PlaceQuery on hand-built leaderboards: the rank a score would have had (SQL RANK()), the
// users as of --at, the harness epochs, the noise's intervals and the aggregate per label
// (docs/evaluation.md).
#include "query/place.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "dataset/submission.h"

namespace kbdata::query {
namespace {

using result::Cell;

constexpr int64_t kDay = 86'400'000'000LL;
constexpr int64_t kDec10 = 20432 * kDay;   // 2025-12-10: epoch 3 of the NVIDIA problems
constexpr int64_t kDec03 = 20425 * kDay;   // 2025-12-03: the change that opens epoch 3
constexpr int64_t kToyLeaderboard = 9001;  // no harness change recorded: epoch 0 only

int64_t next_id = 1;

dataset::Submission row(int64_t leaderboard, const std::string& problem, const std::string& user,
                        double score, int64_t time) {
  dataset::Submission s;
  s.submission_id = next_id++;
  s.leaderboard_id = leaderboard;
  s.problem_name = problem;
  s.user_id = user;
  s.user_name = user;
  s.score = score;
  s.passed = true;
  s.status = "succeeded";
  s.runner = "B200";
  s.submission_time = time;
  s.code_id = s.submission_id;
  return s;
}

// The rows of a table, each as column name -> cell.
std::vector<std::map<std::string, Cell>> rows_of(result::ResultTable& table) {
  std::vector<std::map<std::string, Cell>> out;
  const std::vector<result::Column> columns = table.columns();
  table.visit([](const std::string&) {},
              [&](std::vector<Cell>&& cells, const result::ResultTable::Leaderboard*) {
                std::map<std::string, Cell> r;
                for (size_t i = 0; i < cells.size(); ++i) r[columns[i].name] = cells[i];
                out.push_back(std::move(r));
              });
  return out;
}

int64_t integer(const Cell& c) { return std::get<int64_t>(c); }
double number(const Cell& c) { return std::get<double>(c); }
bool null(const Cell& c) { return std::holds_alternative<std::monostate>(c); }

// Four users on the toy leaderboard: bests 10, 20, 30 and 40 µs, each with a slower row too.
std::vector<dataset::Submission> four_users() {
  std::vector<dataset::Submission> rows;
  const char* users[] = {"ann", "bob", "cyd", "dan"};
  const double bests[] = {10e-6, 20e-6, 30e-6, 40e-6};
  for (int i = 0; i < 4; ++i) {
    rows.push_back(row(kToyLeaderboard, "toy", users[i], bests[i], (10 + i) * kDay));
    rows.push_back(row(kToyLeaderboard, "toy", users[i], bests[i] * 1.5, (20 + i) * kDay));
  }
  return rows;
}

std::vector<std::map<std::string, Cell>> place(
    const std::vector<dataset::Submission>& rows, std::vector<Placement> placements,
    PlaceRequest request = {},
    const std::map<int, std::vector<analysis::SeriesNoise>>& noise = {}) {
  PlaceQuery query(std::move(request), std::move(placements));
  for (const dataset::Submission& s : rows) query.add(s);
  (void)query.resolve();
  result::ResultTable table = query.finish(noise);
  return rows_of(table);
}

TEST(Place, AScoreEqualToTheThirdBestRanksThirdAndSharesIt) {
  const auto out = place(four_users(), {{"toy", "B200", 30e-6, "m", {}}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(integer(out[0].at("users")), 4);
  EXPECT_EQ(integer(out[0].at("rank")), 3);  // RANK(): cyd's 30 µs is 3rd too, equal shares
  EXPECT_DOUBLE_EQ(number(out[0].at("percentile")), 25.0);  // only dan is slower
  EXPECT_DOUBLE_EQ(number(out[0].at("record")), 10e-6);
  EXPECT_DOUBLE_EQ(number(out[0].at("factor_record")), 10e-6 / 30e-6);
  EXPECT_DOUBLE_EQ(number(out[0].at("human_median")), 25e-6);
  EXPECT_TRUE(null(out[0].at("human_10th")));  // fewer than 10 users
  // No noise estimate: the interval is the rank alone and no probability is claimed.
  EXPECT_EQ(integer(out[0].at("rank_best")), 3);
  EXPECT_EQ(integer(out[0].at("rank_worst")), 3);
  EXPECT_TRUE(null(out[0].at("sigma")));
  EXPECT_TRUE(null(out[0].at("p_faster_1")));
  EXPECT_TRUE(null(out[0].at("refused")));
}

TEST(Place, AScoreBetweenTwoUsersRanksBetweenThem) {
  const auto out = place(four_users(), {{"toy", "B200", 25e-6, {}, {}},
                                        {"toy", "B200", 15e-6, {}, {}},
                                        {"toy", "B200", 5e-6, {}, {}},
                                        {"toy", "B200", 50e-6, {}, {}}});
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(integer(out[0].at("rank")), 3);  // after bob (2), before cyd (3)
  EXPECT_EQ(integer(out[1].at("rank")), 2);
  EXPECT_EQ(integer(out[2].at("rank")), 1);
  EXPECT_DOUBLE_EQ(number(out[2].at("percentile")), 100.0);
  EXPECT_EQ(integer(out[3].at("rank")), 5);
  EXPECT_DOUBLE_EQ(number(out[3].at("percentile")), 0.0);
}

TEST(Place, AtBeforeAUsersFirstSubmissionLeavesTheUserOut) {
  std::vector<dataset::Submission> rows = four_users();
  rows.push_back(row(kToyLeaderboard, "toy", "eve", 8e-6, 40 * kDay));  // the record, late
  rows.push_back(row(kToyLeaderboard, "toy", "eve", 6e-6, 50 * kDay));  // and better later
  PlaceRequest before;
  before.at = 30 * kDay;
  auto out = place(rows, {{"toy", "B200", 9e-6, {}, {}}}, before);
  EXPECT_EQ(integer(out[0].at("users")), 4);
  EXPECT_EQ(integer(out[0].at("rank")), 1);
  EXPECT_EQ(integer(out[0].at("at")), 30 * kDay);
  PlaceRequest between;
  between.at = 45 * kDay;  // eve's first row counts, her later best does not yet
  out = place(rows, {{"toy", "B200", 7e-6, {}, {}}}, between);
  EXPECT_EQ(integer(out[0].at("users")), 5);
  EXPECT_EQ(integer(out[0].at("rank")), 1);
  EXPECT_DOUBLE_EQ(number(out[0].at("record")), 8e-6);
  // The default: the last submission (no deadline known), every row.
  out = place(rows, {{"toy", "B200", 7e-6, {}, {}}});
  EXPECT_EQ(integer(out[0].at("rank")), 2);
  EXPECT_EQ(integer(out[0].at("at")), 50 * kDay);
  // A deadline given by the leaderboards file comes first.
  PlaceRequest deadline;
  deadline.deadlines[kToyLeaderboard] = 35 * kDay;
  out = place(rows, {{"toy", "B200", 7e-6, {}, {}}}, deadline);
  EXPECT_EQ(integer(out[0].at("users")), 4);
}

TEST(Place, AScoreOfAnotherEpochIsRefusedWithTheReason) {
  // nvfp4_gemm (597): rows in epoch 2 (2025-12-02) and epoch 3 (from 2025-12-03).
  std::vector<dataset::Submission> rows = {
      row(597, "nvfp4_gemm", "ann", 10e-6, kDec03 - kDay / 2),  // epoch 2
      row(597, "nvfp4_gemm", "bob", 20e-6, kDec10),             // epoch 3
      row(597, "nvfp4_gemm", "cyd", 30e-6, kDec10 + kDay)};
  // The default epoch is the one in force at --at (the last submission): 3; ann's epoch-2 record
  // is not compared.
  auto out = place(rows, {{"nvfp4_gemm", "b200", 15e-6, {}, {}}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(integer(out[0].at("epoch")), 3);
  EXPECT_EQ(integer(out[0].at("users")), 2);
  EXPECT_EQ(integer(out[0].at("rank")), 1);
  // A score measured in epoch 2 is not compared with epoch 3's humans.
  out = place(rows, {{"nvfp4_gemm", "B200", 15e-6, {}, 2}});
  EXPECT_TRUE(null(out[0].at("rank")));
  EXPECT_EQ(std::get<std::string>(out[0].at("refused")),
            "scored in harness epoch 2, compared with epoch 3: scores of different harness epochs "
            "are not compared");
  // --epoch 2 compares with epoch 2's humans alone.
  PlaceRequest two;
  two.epoch = 2;
  out = place(rows, {{"nvfp4_gemm", "B200", 15e-6, {}, 2}}, two);
  EXPECT_EQ(integer(out[0].at("users")), 1);
  EXPECT_EQ(integer(out[0].at("rank")), 2);
  // --epoch 4 at a time before epoch 4 began: there was no score of it yet.
  PlaceRequest four;
  four.epoch = 4;
  four.at = kDec10;
  out = place(rows, {{"nvfp4_gemm", "B200", 15e-6, {}, {}}}, four);
  EXPECT_EQ(std::get<std::string>(out[0].at("refused")),
            "--at 2025-12-10 00:00:00 is before harness epoch 4 of nvfp4_gemm began (2025-12-23 "
            "00:00:00): no score of that epoch existed then");
  // An epoch the leaderboard never had.
  PlaceRequest nine;
  nine.epoch = 9;
  out = place(rows, {{"nvfp4_gemm", "B200", 15e-6, {}, {}}}, nine);
  EXPECT_NE(std::get<std::string>(out[0].at("refused")).find("has no harness epoch 9"),
            std::string::npos);
}

TEST(Place, AnUnknownProblemOrRunnerIsDataNothingRanksThere) {
  const auto out =
      place(four_users(), {{"toi", "B200", 30e-6, {}, {}}, {"toy", "H100", 30e-6, {}, {}}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(null(out[0].at("rank")));
  EXPECT_EQ(std::get<std::string>(out[0].at("refused")),
            "nothing ranks there: no qualifying submission of toi on B200 in the data; did you "
            "mean 'toy'?");
  EXPECT_EQ(std::get<std::string>(out[1].at("refused")),
            "nothing ranks there: no qualifying submission of toy on H100 in the data");
}

TEST(Place, TheIntervalWidensWithTheNoise) {
  auto noise_of = [](double sigma) {
    analysis::SeriesNoise s;
    s.leaderboard_id = kToyLeaderboard;
    s.problem_name = "toy";
    s.runner = "B200";
    analysis::NoiseEstimate e;
    e.sigma = sigma;
    e.pairs = 100;
    s.combined = e;
    return std::map<int, std::vector<analysis::SeriesNoise>>{{0, {s}}};
  };
  const std::vector<Placement> p = {{"toy", "B200", 25e-6, {}, {}}};
  const auto quiet = place(four_users(), p, {}, noise_of(0.01));
  const auto loud = place(four_users(), p, {}, noise_of(0.5));
  EXPECT_EQ(integer(quiet[0].at("rank_best")), 3);
  EXPECT_EQ(integer(quiet[0].at("rank_worst")), 3);
  EXPECT_LT(integer(loud[0].at("rank_best")), integer(loud[0].at("rank_worst")));
  EXPECT_EQ(integer(loud[0].at("rank")), 3);
  // Faster than ann (10 µs) with 25 µs: unlikely, the more so the less noise.
  const double z = (std::log(10e-6) - std::log(25e-6)) / std::sqrt(2 * 0.01 * 0.01);
  EXPECT_NEAR(number(quiet[0].at("p_faster_1")), 0.5 * std::erfc(-z / std::sqrt(2.0)), 1e-12);
  EXPECT_GT(number(loud[0].at("p_faster_1")), number(quiet[0].at("p_faster_1")));
  EXPECT_LT(number(loud[0].at("p_faster_3")), 1.0);
}

TEST(Place, TheAggregatePerLabelMatchesAHandComputedExample) {
  // Task A ("toy"): bests 10, 20, 30 µs (median 20). Task B ("big"): ten users 1..10 µs (median
  // 5.5, the 10th 10, the record 1).
  std::vector<dataset::Submission> rows;
  for (int i = 1; i <= 3; ++i) {
    rows.push_back(row(kToyLeaderboard, "toy", "u" + std::to_string(i), i * 10e-6, i * kDay));
  }
  for (int i = 1; i <= 10; ++i) {
    rows.push_back(row(kToyLeaderboard + 1, "big", "u" + std::to_string(i), i * 1e-6, i * kDay));
  }
  PlaceQuery query({}, {{"toy", "B200", 15e-6, "m", {}},
                        {"big", "B200", 0.5e-6, "m", {}},
                        {"toy", "B200", 40e-6, "n", {}},
                        {"nowhere", "B200", 1e-6, "n", {}}});
  for (const dataset::Submission& s : rows) query.add(s);
  (void)query.resolve();
  (void)query.finish({});
  result::ResultTable table = query.aggregate();
  const auto out = rows_of(table);
  ASSERT_EQ(out.size(), 2u);
  // m: beats the median on both (15 < 20, 0.5 < 5.5), the 10th on the one task with ten users,
  // the record on one of two; factors 20/15 and 5.5/0.5.
  EXPECT_EQ(std::get<std::string>(out[0].at("label")), "m");
  EXPECT_EQ(integer(out[0].at("tasks")), 2);
  EXPECT_DOUBLE_EQ(number(out[0].at("beats_median")), 1.0);
  EXPECT_EQ(integer(out[0].at("median_tasks")), 2);
  EXPECT_DOUBLE_EQ(number(out[0].at("beats_top10")), 1.0);
  EXPECT_EQ(integer(out[0].at("top10_tasks")), 1);
  EXPECT_DOUBLE_EQ(number(out[0].at("beats_record")), 0.5);
  EXPECT_EQ(integer(out[0].at("record_tasks")), 2);
  EXPECT_NEAR(number(out[0].at("geomean_factor_median")), std::sqrt((20.0 / 15.0) * 11.0), 1e-12);
  EXPECT_EQ(integer(out[0].at("refused")), 0);
  // n: slower than the median (factor 0.5), no task with ten users; one score not placed.
  EXPECT_EQ(std::get<std::string>(out[1].at("label")), "n");
  EXPECT_EQ(integer(out[1].at("tasks")), 1);
  EXPECT_DOUBLE_EQ(number(out[1].at("beats_median")), 0.0);
  EXPECT_TRUE(null(out[1].at("beats_top10")));
  EXPECT_EQ(integer(out[1].at("top10_tasks")), 0);
  EXPECT_DOUBLE_EQ(number(out[1].at("geomean_factor_median")), 0.5);
  EXPECT_EQ(integer(out[1].at("refused")), 1);
}

TEST(Place, ScoreTextIsSecondsOrAUnit) {
  EXPECT_EQ(parse_score_text("1.5e-05"), 1.5e-05);
  EXPECT_EQ(parse_score_text("20us"), 2e-05);
  EXPECT_EQ(parse_score_text(" 20 \xC2\xB5s "), 2e-05);
  EXPECT_EQ(parse_score_text("0.015ms"), 0.015 / 1e3);
  EXPECT_EQ(parse_score_text("15000ns"), 15000 / 1e9);
  EXPECT_EQ(parse_score_text("2s"), 2.0);
  for (const char* bad : {"", "fast", "20xs", "-1", "0", "nan", "inf", "1e-400", "12 us s"}) {
    EXPECT_FALSE(parse_score_text(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace kbdata::query
