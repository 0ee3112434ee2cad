// The score rules of the audit (docs/audit.md): a physical floor per leaderboard and runner, from
// the problem's benchmark shapes and a table of GPUs; a jump of more than 10x over the record of
// the leaderboard and runner at that time.
//
// The floor of one benchmark shape on one GPU is max(flops / peak, bytes / bandwidth,
// launch_latency): no kernel does the shape's arithmetic faster than the GPU's peak rate for the
// problem's type, nor moves the bytes it must read and write faster than the memory bandwidth
// (the harness clears the L2 cache before every timed call), nor finishes before a launch does.
// The floor of a score combines the shapes' floors as the score combines the benchmarks' means
// (geometric mean for `geom`): each mean is at least its floor, so the score is at least theirs.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace kbdata::audit {

// The arithmetic type a problem's work runs in (the rate its floor takes).
enum class MathType : uint8_t { FP4, FP8, FP16, TF32, FP32 };

// Dense (not sparse) peak rates in FLOP/s, memory bandwidth in bytes/s, the shortest time a
// kernel launch takes in seconds, and where the figures come from. A type the GPU lacks takes the
// rate of the fastest type it has that can emulate it without loss of speed (FP4 on H100 at its
// FP8 rate, FP8 on A100 at its INT8 rate): a floor must never be too high.
struct GpuSpec {
  std::string_view name;
  double fp4 = 0;
  double fp8 = 0;
  double fp16 = 0;
  double tf32 = 0;
  double fp32 = 0;
  double bandwidth = 0;
  double launch_latency = 0;
  std::string_view source;

  [[nodiscard]] double peak(MathType type) const;
};

// The GPUs of the table: B200, H100, A100, L4, T4, MI300X, MI355X.
[[nodiscard]] std::span<const GpuSpec> gpus();

// The GPU a runner runs on (dataset/hardware.h gpu_of_runner: NVIDIA and B200_Nebius are B200s,
// MI300 an MI300X), or nullptr for a runner of several GPUs (MI300x8), one whose GPU is not known,
// or a GPU this table lacks.
[[nodiscard]] const GpuSpec* gpu_for_runner(std::string_view runner);

struct BenchmarkCost {
  double flops = 0;  // arithmetic of one call
  double bytes = 0;  // bytes one call must read and write at least
};

// The benchmark shapes of a problem (the `benchmarks` of its task), as costs.
struct ProblemCost {
  std::string_view problem;
  MathType type;
  std::vector<BenchmarkCost> benchmarks;
};

// The problems whose benchmark shapes kbdata knows (the NVFP4 competition's four), or nullptr.
[[nodiscard]] const ProblemCost* problem_cost(std::string_view problem);

// The floor of a score (seconds) of `problem` on `runner`, combined by geometric mean; nullopt
// when the problem's shapes or the runner's GPU are unknown.
[[nodiscard]] std::optional<double> physical_floor(std::string_view problem,
                                                   std::string_view runner);

// A jump: a score more than kJumpFactor times lower than the established record before it.
inline constexpr double kJumpFactor = 10.0;

// A record is established (docs/audit.md, "Record jumps") once the leaderboard and runner have
// qualifying rows from at least kEstablishedUsers distinct users, the first of them at least
// kEstablishedDays before: a first day's PyTorch baseline is no record an honest kernel jumps.
inline constexpr int kEstablishedUsers = 5;
inline constexpr int64_t kEstablishedDays = 7;

// One scored row of a leaderboard, for the record series.
struct RecordRow {
  int64_t leaderboard_id = 0;
  int runner = -1;              // an index the caller gives each distinct runner; -1 for none
  int64_t submission_time = 0;  // µs since the epoch
  int64_t submission_id = 0;
  double score = 0;
  bool sets_record = true;  // a row that may become the record (qualifying, not a cheat)
  int64_t user = -1;        // an index the caller gives each distinct user
};

// The established record each row faced: for every row, the lowest score of the rows of the same
// leaderboard and runner submitted before it (earlier time, or the same time and a lower
// submission id) that may set records, once those rows are established (above); nullopt when
// there was none. Rows of the same submission never face each other. Sorts a copy of the rows'
// keys: memory is a few words per row.
[[nodiscard]] std::vector<std::optional<double>> records_before(const std::vector<RecordRow>& rows);

}  // namespace kbdata::audit
