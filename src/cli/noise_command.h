// `kbdata noise`: the measurement noise of each (leaderboard, runner) from every source the data
// offers, its change of level over time and, with --plot, the noise over time with the harness
// epochs marked (analysis/noise.h, docs/noise.md).
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/noise.h"
#include "cli/command.h"
#include "cli/data_options.h"

namespace kbdata::cli {

struct NoiseOptions {
  DataOptions data;
  std::optional<std::string> problem;
  std::optional<int64_t> leaderboard;
  std::optional<std::string> runner;
  std::optional<int> epoch;
  double similarity = 0.98;
  std::optional<std::string> plot;
  std::string format;  // --format as typed, "" when not given (report::output_format)
  std::optional<std::string> out;
};

void run_noise(const NoiseOptions& options, std::FILE* out, std::FILE* err);

// The noise of the series that `filter` selects from `dir` (problem, leaderboard, runner, epoch;
// the load reads code, details, runs and results): what noise and top --uncertainty estimate from.
[[nodiscard]] std::vector<analysis::SeriesNoise> measure_noise(const dataset::DataDir& dir,
                                                               const DataOptions& data,
                                                               const dataset::Filter& filter,
                                                               double similarity, std::FILE* err);

// The same, each harness epoch (dataset/epochs.h) of each series estimated apart, from one load: a
// pair or run counts in the epoch of its row's submission time. Epochs without an estimate have
// an empty vector or no entry.
[[nodiscard]] std::map<int, std::vector<analysis::SeriesNoise>> measure_noise_by_epoch(
    const dataset::DataDir& dir, const DataOptions& data, const dataset::Filter& filter,
    double similarity, std::FILE* err);

// Adds `noise` to `app`.
void add_noise_command(CLI::App& app, Commands& commands);

}  // namespace kbdata::cli
