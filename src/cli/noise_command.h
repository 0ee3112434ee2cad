// `kbdata noise`: the measurement noise of each (leaderboard, runner) from every source the data
// offers, its change of level over time and, with --plot, the noise over time with the harness
// epochs marked (analysis/noise.h, docs/noise.md).
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

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

// Adds `noise` to `app`.
void add_noise_command(CLI::App& app, Commands& commands);

}  // namespace kbdata::cli
