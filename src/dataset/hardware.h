// Runners are names, GPUs are facts: the one table of the runner names kbdata knows and the GPU
// each runs on (docs/data-model.md, "Runners and GPUs"), and how the spellings of a runner or a
// status found in files compare. A runner the table lacks is data like any other: it is ranked,
// filtered and shown; only a rule that needs the hardware (the audit's physical floor) cannot
// apply to it, and says so.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace kbdata::dataset {

// One runner name of the platform and its hardware.
struct RunnerHardware {
  std::string_view runner;  // the platform's spelling: "NVIDIA", "B200_Nebius", "MI300x8"
  std::string_view gpu;     // "B200", "MI300X": a name of known_gpus()
  int devices = 1;          // GPUs per run (MI300x8: 8)
  std::string_view device;  // the device name its runs' system info reports ("NVIDIA B200")
  std::string_view where;   // what the name is, for docs
};

// Every runner of the table, in its order.
[[nodiscard]] std::span<const RunnerHardware> known_runners();

// The GPU names of the table: B200, H100, A100, L4, T4, MI250, MI300X, MI355X.
[[nodiscard]] std::span<const std::string_view> known_gpus();

// The table's entry for `runner` compared as the platform means it (same_runner), or nullptr for
// a runner the table lacks.
[[nodiscard]] const RunnerHardware* runner_hardware(std::string_view runner);

// The hardware a runner runs on: the table's entry (runner_hardware), else, for a runner the
// table lacks whose name names a GPU as a device name does (`AMD Instinct MI355X`, the runner a
// legacy run falls back to), that GPU, one per run. nullopt when neither says.
struct RunnerGpu {
  std::string_view gpu;
  int devices = 1;
};
[[nodiscard]] std::optional<RunnerGpu> gpu_of_runner(std::string_view runner);

// The GPU a device name names: the longest GPU of known_gpus() found in `device` as a whole word
// (ASCII letters and digits delimit words; case ignored): "AMD Instinct MI300X" -> MI300X,
// "NVIDIA H100 80GB HBM3" -> H100. nullopt when none is.
[[nodiscard]] std::optional<std::string_view> gpu_of_device(std::string_view device);

// `text` without leading and trailing ASCII blanks (space, tab, CR, LF, VT, FF).
[[nodiscard]] std::string_view trim_blanks(std::string_view text);

// Runners compare trimmed and ignoring ASCII case ("b200", "B200 " and "B200" are one runner).
[[nodiscard]] bool same_runner(std::string_view a, std::string_view b);

// The spelling a runner is shown with: a known runner's own (runner_hardware), else the written
// name trimmed.
[[nodiscard]] std::string canonical_runner(std::string_view written);

// The spelling a status is shown and compared with: trimmed, ASCII lower case (the platform's
// statuses are lower case: "HACKED " is "hacked").
[[nodiscard]] std::string canonical_status(std::string_view written);

// The runner of a legacy run, which records only its machine (run_system_info.gpu and
// device_count): the entry of the leaderboard's `gpu_types` that runs on the device's GPU (when
// several do, the one with device_count GPUs), else the device name as written (trimmed). nullopt
// when the device is null or blank.
[[nodiscard]] std::optional<std::string> legacy_runner(std::optional<std::string_view> device,
                                                       std::optional<int64_t> device_count,
                                                       std::span<const std::string> gpu_types);

}  // namespace kbdata::dataset
