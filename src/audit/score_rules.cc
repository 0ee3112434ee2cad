#include "audit/score_rules.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <unordered_set>

#include "dataset/hardware.h"

namespace kbdata::audit {
namespace {

constexpr double T = 1e12;  // tera
constexpr double P = 1e15;  // peta

// Dense rates; the sources are the vendors' datasheets (docs/audit.md, "The GPU table").
constexpr std::array<GpuSpec, 7> kGpus = {{
    {"B200", 9 * P, 4.5 * P, 2.25 * P, 1.1 * P, 75 * T, 8e12, 1e-6,
     "NVIDIA HGX B200 / DGX B200 datasheets (per GPU, dense)"},
    {"H100", 1979 * T, 1979 * T, 989.5 * T, 494.5 * T, 67 * T, 3.35e12, 1e-6,
     "NVIDIA H100 Tensor Core GPU datasheet (SXM5, dense); FP4 at the FP8 rate"},
    {"A100", 1248 * T, 624 * T, 312 * T, 156 * T, 19.5 * T, 2.039e12, 1e-6,
     "NVIDIA A100 Tensor Core GPU datasheet (SXM 80GB, dense); FP8 at the INT8 rate, FP4 at INT4"},
    {"L4", 242.5 * T, 242.5 * T, 121 * T, 60 * T, 30.3 * T, 0.3e12, 1e-6,
     "NVIDIA L4 Tensor Core GPU datasheet (dense); FP4 at the FP8 rate"},
    {"T4", 260 * T, 130 * T, 65 * T, 65 * T, 8.1 * T, 0.32e12, 1e-6,
     "NVIDIA T4 Tensor Core GPU datasheet; FP8 at INT8, FP4 at INT4, TF32 at FP16"},
    {"MI300X", 2614.9 * T, 2614.9 * T, 1307.4 * T, 653.7 * T, 163.4 * T, 5.3e12, 1e-6,
     "AMD Instinct MI300X datasheet (dense); FP4 at the FP8 rate"},
    {"MI355X", 10.1 * P, 5.0 * P, 2.5 * P, 2.5 * P, 157.3 * T, 8e12, 1e-6,
     "AMD Instinct MI355X datasheet (dense); TF32 at the FP16 rate"},
}};

// An NVFP4 block-scaled GEMM of m x k by n x k, l batches: e2m1 operands (half a byte), one e4m3
// scale per 16 values, an fp16 result; `gemms` GEMMs sharing the left operand (dual GEMM: 2).
BenchmarkCost nvfp4_gemm(double m, double n, double k, double l, int gemms = 1) {
  BenchmarkCost c;
  c.flops = 2 * m * n * k * l * gemms;
  const double operands = m * k + gemms * n * k;
  c.bytes = l * (operands / 2 + operands / 16 + m * n * 2);
  return c;
}

std::vector<ProblemCost> make_costs() {
  std::vector<ProblemCost> out;
  // nvfp4_gemv: benchmarks {m, k, l}: (7168, 16384, 1), (4096, 7168, 1), (7168, 2048, 1); the
  // vector is one row (n = 1).
  out.push_back({"nvfp4_gemv",
                 MathType::FP4,
                 {nvfp4_gemm(7168, 1, 16384, 1), nvfp4_gemm(4096, 1, 7168, 1),
                  nvfp4_gemm(7168, 1, 2048, 1)}});
  // nvfp4_gemm: {m, n, k, l}: (7168, 128, 16384, 1), (4096, 128, 7168, 1), (7168, 128, 2048, 1).
  out.push_back({"nvfp4_gemm",
                 MathType::FP4,
                 {nvfp4_gemm(7168, 128, 16384, 1), nvfp4_gemm(4096, 128, 7168, 1),
                  nvfp4_gemm(7168, 128, 2048, 1)}});
  // nvfp4_dual_gemm (and the same problem on Modal): {m, n, k}: (256, 4096, 7168),
  // (512, 4096, 7168), (256, 3072, 4096), (512, 3072, 7168), l = 1, two GEMMs.
  const std::vector<BenchmarkCost> dual = {
      nvfp4_gemm(256, 4096, 7168, 1, 2), nvfp4_gemm(512, 4096, 7168, 1, 2),
      nvfp4_gemm(256, 3072, 4096, 1, 2), nvfp4_gemm(512, 3072, 7168, 1, 2)};
  out.push_back({"nvfp4_dual_gemm", MathType::FP4, dual});
  out.push_back({"modal_nvfp4_dual_gemm", MathType::FP4, dual});
  // nvfp4_group_gemm: each benchmark a group of GEMMs (its m per group, n and k shared).
  const auto group = [](std::vector<double> ms, double n, double k) {
    BenchmarkCost total;
    for (double m : ms) {
      const BenchmarkCost c = nvfp4_gemm(m, n, k, 1);
      total.flops += c.flops;
      total.bytes += c.bytes;
    }
    return total;
  };
  out.push_back({"nvfp4_group_gemm",
                 MathType::FP4,
                 {group({80, 176, 128, 72, 64, 248, 96, 160}, 4096, 7168),
                  group({40, 76, 168, 72, 164, 148, 196, 160}, 7168, 2048),
                  group({192, 320}, 3072, 4096), group({128, 384}, 4096, 1536)}});
  return out;
}

const std::vector<ProblemCost>& costs() {
  static const std::vector<ProblemCost> table = make_costs();
  return table;
}

}  // namespace

double GpuSpec::peak(MathType type) const {
  switch (type) {
    case MathType::FP4:
      return fp4;
    case MathType::FP8:
      return fp8;
    case MathType::FP16:
      return fp16;
    case MathType::TF32:
      return tf32;
    case MathType::FP32:
      return fp32;
  }
  return fp32;
}

std::span<const GpuSpec> gpus() { return kGpus; }

const GpuSpec* gpu_for_runner(std::string_view runner) {
  const std::optional<dataset::RunnerGpu> hardware = dataset::gpu_of_runner(runner);
  if (!hardware || hardware->devices != 1) return nullptr;
  for (const GpuSpec& g : kGpus) {
    if (g.name == hardware->gpu) return &g;
  }
  return nullptr;
}

const ProblemCost* problem_cost(std::string_view problem) {
  for (const ProblemCost& c : costs()) {
    if (c.problem == problem) return &c;
  }
  return nullptr;
}

std::optional<double> physical_floor(std::string_view problem, std::string_view runner) {
  const ProblemCost* cost = problem_cost(problem);
  const GpuSpec* gpu = gpu_for_runner(runner);
  if (cost == nullptr || gpu == nullptr || cost->benchmarks.empty()) return std::nullopt;
  double log_sum = 0;
  for (const BenchmarkCost& b : cost->benchmarks) {
    const double t =
        std::max({b.flops / gpu->peak(cost->type), b.bytes / gpu->bandwidth, gpu->launch_latency});
    log_sum += std::log(t);
  }
  return std::exp(log_sum / static_cast<double>(cost->benchmarks.size()));
}

std::vector<std::optional<double>> records_before(const std::vector<RecordRow>& rows) {
  std::vector<uint32_t> order(rows.size());
  std::iota(order.begin(), order.end(), 0U);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const RecordRow& x = rows[a];
    const RecordRow& y = rows[b];
    if (x.leaderboard_id != y.leaderboard_id) return x.leaderboard_id < y.leaderboard_id;
    if (x.runner != y.runner) return x.runner < y.runner;
    if (x.submission_time != y.submission_time) return x.submission_time < y.submission_time;
    if (x.submission_id != y.submission_id) return x.submission_id < y.submission_id;
    return a < b;
  });
  std::vector<std::optional<double>> out(rows.size());
  constexpr int64_t kMicrosPerDay = 86'400'000'000LL;
  std::optional<double> record;
  std::unordered_set<int64_t> users;  // distinct users of the rows that may set records
  int64_t since = 0;                  // the first such row's time (once there is a record)
  for (size_t i = 0; i < order.size();) {
    const RecordRow& first = rows[order[i]];
    if (i == 0 || first.leaderboard_id != rows[order[i - 1]].leaderboard_id ||
        first.runner != rows[order[i - 1]].runner) {
      record.reset();
      users.clear();
    }
    const bool established = record && users.size() >= static_cast<size_t>(kEstablishedUsers) &&
                             first.submission_time - since >= kEstablishedDays * kMicrosPerDay;
    // The rows of one submission face the same record, then update it together.
    size_t j = i;
    while (j < order.size() && rows[order[j]].leaderboard_id == first.leaderboard_id &&
           rows[order[j]].runner == first.runner &&
           rows[order[j]].submission_id == first.submission_id) {
      if (established) out[order[j]] = record;
      ++j;
    }
    for (size_t s = i; s < j; ++s) {
      const RecordRow& r = rows[order[s]];
      if (!r.sets_record) continue;
      if (!record) since = r.submission_time;
      if (!record || r.score < *record) record = r.score;
      users.insert(r.user);
    }
    i = j;
  }
  return out;
}

}  // namespace kbdata::audit
