// query::TasksQuery on hand-built rows: one task per (leaderboard, runner) with a qualifying
// score, the human distribution of the users' bests, --after on the first submission, the epochs
// with their noise and the contamination marks (docs/evaluation.md).
#include "query/tasks.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace kbdata::query {
namespace {

using result::Cell;

constexpr int64_t kDay = 86'400'000'000LL;
constexpr int64_t kNov20 = 20412 * kDay;  // 2025-11-20: epoch 0 of the NVIDIA problems
constexpr int64_t kDec10 = 20432 * kDay;  // epoch 3

dataset::Submission row(int64_t leaderboard, const std::string& problem, const std::string& runner,
                        const std::string& user, std::optional<double> score, int64_t time) {
  static int64_t id = 1;
  dataset::Submission s;
  s.submission_id = id++;
  s.leaderboard_id = leaderboard;
  s.problem_name = problem;
  s.user_id = user;
  s.user_name = user;
  s.score = score;
  s.passed = score.has_value();
  s.status = score ? "succeeded" : "failed";
  s.runner = runner;
  s.submission_time = time;
  return s;
}

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

double number(const Cell& c) { return std::get<double>(c); }
int64_t integer(const Cell& c) { return std::get<int64_t>(c); }

TEST(Tasks, OneTaskPerLeaderboardAndRunnerWithTheHumanDistribution) {
  TasksRequest request;
  request.leaderboards = {
      {597, "nvfp4_gemm", 30 * kDay, "py", "Write a GEMM", "def ref(): ...", {"B200"}}};
  TasksQuery q(request);
  // Five users' bests 1..5 µs on NVIDIA (one with a slower row, one failed row first).
  q.add(row(597, "nvfp4_gemm", "NVIDIA", "x", std::nullopt, kNov20 - kDay), std::nullopt);
  for (int i = 1; i <= 5; ++i) {
    q.add(row(597, "nvfp4_gemm", "NVIDIA", "u" + std::to_string(i), i * 1e-6, kNov20 + i * kDay),
          std::nullopt);
  }
  q.add(row(597, "nvfp4_gemm", "NVIDIA", "u1", 9e-6, kDec10), std::nullopt);
  // A runner with only failed rows is no task.
  q.add(row(597, "nvfp4_gemm", "B200", "y", std::nullopt, kNov20), std::nullopt);
  result::ResultTable table = q.finish({});
  const auto out = rows_of(table);
  ASSERT_EQ(out.size(), 1u);
  const auto& t = out[0];
  EXPECT_EQ(std::get<std::string>(t.at("runner")), "NVIDIA");
  EXPECT_EQ(std::get<std::string>(t.at("gpu")), "B200");
  EXPECT_EQ(std::get<std::string>(t.at("ranking_by")), "geom");
  EXPECT_EQ(integer(t.at("users")), 5);
  EXPECT_EQ(integer(t.at("first_submission")), kNov20 - kDay);  // the failed row counts
  EXPECT_EQ(integer(t.at("last_submission")), kDec10);
  EXPECT_DOUBLE_EQ(number(t.at("record")), 1e-6);
  EXPECT_DOUBLE_EQ(number(t.at("second")), 2e-6);
  EXPECT_DOUBLE_EQ(number(t.at("third")), 3e-6);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(t.at("top10_cut")));
  EXPECT_DOUBLE_EQ(number(t.at("q1")), 2e-6);  // quantile_cont of 1..5: 2, 3, 4
  EXPECT_DOUBLE_EQ(number(t.at("median")), 3e-6);
  EXPECT_DOUBLE_EQ(number(t.at("q3")), 4e-6);
  EXPECT_EQ(std::get<std::string>(t.at("record_user_id")), "u1");
  EXPECT_EQ(integer(t.at("record_time")), kNov20 + kDay);
  EXPECT_EQ(std::get<std::string>(t.at("description")), "Write a GEMM");
  EXPECT_EQ(integer(t.at("deadline")), 30 * kDay);
  // Epochs 0 and 3 hold rows; without a noise estimate their sigma is null.
  const auto& epochs = std::get<result::List>(t.at("epochs"));
  ASSERT_EQ(epochs.size(), 2u);
  EXPECT_EQ(std::get<int64_t>(epochs[0]), 0);
  EXPECT_EQ(std::get<int64_t>(epochs[1]), 3);
  const auto& starts = std::get<result::List>(t.at("epoch_starts"));
  EXPECT_TRUE(std::holds_alternative<std::monostate>(starts[0]));
  EXPECT_EQ(std::get<int64_t>(starts[1]), 20425 * kDay);  // 2025-12-03
  // Not decontaminated: null, not false.
  EXPECT_TRUE(std::holds_alternative<std::monostate>(t.at("contaminated")));
}

TEST(Tasks, AfterKeepsTasksFirstSubmittedLaterAndNoiseIsPerEpoch) {
  TasksRequest request;
  request.after = kNov20;
  request.decontaminate = true;
  TasksQuery q(request);
  q.add(row(597, "nvfp4_gemm", "NVIDIA", "a", 1e-6, kNov20), false);  // at the time: not after
  q.add(row(598, "nvfp4_dual_gemm", "NVIDIA", "a", 1e-6, kDec10), true);
  q.add(row(598, "nvfp4_dual_gemm", "NVIDIA", "b", 2e-6, kDec10 + 1), false);
  analysis::SeriesNoise noise;
  noise.leaderboard_id = 598;
  noise.runner = "NVIDIA";
  noise.combined = analysis::NoiseEstimate{analysis::NoiseSource::COMBINED, 40, 0.25, 0.2, 0.3, 0};
  result::ResultTable table = q.finish({{3, {noise}}});
  const auto out = rows_of(table);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(integer(out[0].at("leaderboard_id")), 598);
  EXPECT_EQ(q.counts().before_after, 1);
  EXPECT_EQ(std::get<bool>(out[0].at("contaminated")), true);
  EXPECT_EQ(integer(out[0].at("contaminated_rows")), 1);
  EXPECT_EQ(q.counts().contaminated, 1);
  const auto& sigma = std::get<result::List>(out[0].at("noise_sigma"));
  ASSERT_EQ(sigma.size(), 1u);
  EXPECT_DOUBLE_EQ(std::get<double>(sigma[0]), 0.25);
  EXPECT_EQ(std::get<int64_t>(std::get<result::List>(out[0].at("noise_pairs"))[0]), 40);
  EXPECT_EQ(std::get<std::string>(out[0].at("reliability_note")).substr(0, 5), "598's");
}

}  // namespace
}  // namespace kbdata::query
