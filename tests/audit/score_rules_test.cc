#include "audit/score_rules.h"

#include <gtest/gtest.h>

#include <cmath>

#include "audit/audit.h"

namespace kbdata::audit {
namespace {

TEST(ScoreRules, RunnersMapToTheirGpu) {
  EXPECT_EQ(gpu_for_runner("B200_Nebius")->name, "B200");
  EXPECT_EQ(gpu_for_runner("MI300")->name, "MI300X");
  EXPECT_EQ(gpu_for_runner("MI300x8"), nullptr);
  // The NVFP4 competition's on-premise runner is called NVIDIA: a B200 (dataset/hardware.h), in
  // whatever case a file writes it.
  EXPECT_EQ(gpu_for_runner("NVIDIA")->name, "B200");
  EXPECT_EQ(gpu_for_runner(" nvidia ")->name, "B200");
  EXPECT_EQ(gpu_for_runner("b200")->name, "B200");
  EXPECT_EQ(gpu_for_runner("GB300"), nullptr);  // not known: the floor does not apply
  EXPECT_EQ(physical_floor("nvfp4_gemv", "NVIDIA"), physical_floor("nvfp4_gemv", "B200"));
  EXPECT_EQ(physical_floor("nvfp4_gemv", "GB300"), std::nullopt);
  for (const char* name : {"B200", "H100", "A100", "L4", "T4", "MI300X", "MI355X"}) {
    const GpuSpec* g = gpu_for_runner(name);
    ASSERT_NE(g, nullptr) << name;
    EXPECT_GT(g->bandwidth, 0);
    EXPECT_FALSE(g->source.empty());
    // Narrower types are never slower.
    EXPECT_GE(g->fp4, g->fp8);
    EXPECT_GE(g->fp8, g->fp16);
    EXPECT_GE(g->fp16, g->tf32);
    EXPECT_GE(g->tf32, g->fp32);
  }
}

TEST(ScoreRules, GemvFloorIsTheMemoryBoundGeometricMean) {
  // nvfp4_gemv on a B200: each shape reads m*k/2 bytes of e2m1, m*k/16 of scales, the vector, and
  // writes m fp16 values, at 8 TB/s.
  const auto bytes = [](double m, double k) { return (m * k + k) / 2 + (m * k + k) / 16 + m * 2; };
  const double t1 = bytes(7168, 16384) / 8e12, t2 = bytes(4096, 7168) / 8e12,
               t3 = bytes(7168, 2048) / 8e12;
  const double want = std::cbrt(t1 * t2 * t3);
  const std::optional<double> floor = physical_floor("nvfp4_gemv", "B200");
  ASSERT_TRUE(floor.has_value());
  EXPECT_NEAR(*floor, want, want * 1e-12);
  // The task's own speed-of-light figure for its largest shape (8.71 us at 1.5 GHz) is above it.
  EXPECT_LT(t1, 8.71e-6);
  EXPECT_EQ(physical_floor("nvfp4_gemv", "MI300x8"), std::nullopt);
  EXPECT_EQ(physical_floor("trimul", "B200"), std::nullopt);
}

TEST(ScoreRules, EveryKnownProblemHasAFloorBelowItsSpeedOfLight) {
  // The speed-of-light times the tasks publish (B200 at 1.5 GHz, first benchmark) bound the
  // floors from above: a floor must never exceed what the fastest honest kernel could reach.
  const std::pair<const char*, double> sol[] = {{"nvfp4_gemv", 8.71e-6},
                                                {"nvfp4_gemm", 8.994e-6},
                                                {"nvfp4_dual_gemm", 4.708e-6},
                                                {"nvfp4_group_gemm", 18.833e-6}};
  for (const auto& [problem, first] : sol) {
    const ProblemCost* cost = problem_cost(problem);
    ASSERT_NE(cost, nullptr) << problem;
    const GpuSpec* b200 = gpu_for_runner("B200");
    const BenchmarkCost& b = cost->benchmarks.front();
    const double t = std::max(b.flops / b200->fp4, b.bytes / b200->bandwidth);
    EXPECT_LT(t, first) << problem;
    EXPECT_GT(t, first * 0.5) << problem;
  }
}

TEST(ScoreRules, RecordsBefore) {
  // One leaderboard and runner: five users over more than a week make the record established
  // (down to 50 by the fifth), then 4 (a 12.5x jump), then 45 on another runner (its own series).
  // The last row is the same submission as the jump on its runner.
  constexpr int64_t kDay = 86'400'000'000LL;
  std::vector<RecordRow> rows = {
      {1, 0, 0, 1, 100e-6, true, 0},       {1, 0, kDay, 2, 90e-6, true, 1},
      {1, 0, 2 * kDay, 3, 80e-6, true, 2}, {1, 0, 3 * kDay, 4, 70e-6, true, 3},
      {1, 0, 8 * kDay, 5, 50e-6, true, 4}, {1, 0, 9 * kDay, 6, 4e-6, true, 5},
      {1, 1, 9 * kDay, 6, 45e-6, true, 5}, {1, 0, 10 * kDay, 7, 60e-6, false, 6}};
  const auto before = records_before(rows);
  EXPECT_FALSE(before[0].has_value());
  EXPECT_FALSE(before[3].has_value());
  EXPECT_FALSE(before[4].has_value());  // four users before it: not established
  EXPECT_DOUBLE_EQ(*before[5] * 1e6, 50);
  EXPECT_FALSE(before[6].has_value());
  EXPECT_DOUBLE_EQ(*before[7] * 1e6, 4);
  EXPECT_LT(rows[5].score * kJumpFactor, *before[5]);
}

// An honest kernel the day after a PyTorch baseline beats it 24x: no established record yet.
TEST(ScoreRules, AFirstDaysBaselineIsNoRecord) {
  constexpr int64_t kDay = 86'400'000'000LL;
  const std::vector<RecordRow> rows = {{1, 0, 0, 1, 600e-6, true, 0},
                                       {1, 0, kDay, 2, 25e-6, true, 1}};
  EXPECT_FALSE(records_before(rows)[1].has_value());
}

TEST(ScoreRules, AuditSubmissionAppliesStatusAndFloor) {
  dataset::Submission s;
  s.problem_name = "nvfp4_gemv";
  s.runner = "B200";
  s.score = 1e-6;
  s.passed = true;
  s.status = "hacked";
  const auto findings = audit_submission(s, std::nullopt, References{});
  ASSERT_EQ(findings.size(), 2U);
  EXPECT_EQ(findings[0].rule, RuleId::STATUS_HACKED);
  EXPECT_EQ(findings[1].rule, RuleId::BELOW_PHYSICAL_FLOOR);
  EXPECT_EQ(verdict_of(findings), Verdict::CHEAT);
  // A score alone is never a cheat: below the floor is suspicious, and a cheat only with a
  // support rule of the code.
  EXPECT_EQ(verdict_of({findings[1]}), Verdict::SUSPICIOUS);
  EXPECT_EQ(verdict_of({findings[1], Finding{RuleId::RECORD_JUMP, 0, "jump"}}),
            Verdict::SUSPICIOUS);
  EXPECT_EQ(verdict_of({findings[1], Finding{RuleId::CALL_COUNTER, 3, "n += 1"}}), Verdict::CHEAT);
  s.status = "succeeded";
  s.score = 20e-6;
  EXPECT_TRUE(audit_submission(s, std::nullopt, References{}).empty());
}

TEST(ScoreRules, ReferenceCopy) {
  References refs;
  dataset::LeaderboardEntry e;
  e.id = 7;
  e.name = "p";
  e.lang = "py";
  e.reference =
      "import torch\ndef ref_kernel(data):\n    # reference\n    return data[0] + data[1]\n";
  refs.add(e);
  dataset::Submission s;
  s.leaderboard_id = 7;
  s.code = "import torch\n\ndef ref_kernel( data ):\n    return data[0] + data[1]  # mine\n";
  const auto findings = audit_submission(s, *s.code, refs);
  ASSERT_EQ(findings.size(), 1U);
  EXPECT_EQ(findings[0].rule, RuleId::REFERENCE_COPY);
  EXPECT_EQ(verdict_of(findings), Verdict::CLEAN);
}

}  // namespace
}  // namespace kbdata::audit
