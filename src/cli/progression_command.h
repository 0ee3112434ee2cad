// `kbdata progression`: one user's submissions on a problem in time order, with the running best,
// the improvements and their factors (analysis/progression.h); `--plot` draws it as SVG.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

#include "cli/command.h"
#include "cli/data_options.h"

namespace kbdata::cli {

struct ProgressionOptions {
  DataOptions data;
  std::string user;  // a user id or a user name
  std::optional<std::string> problem;
  std::optional<int64_t> leaderboard;
  std::optional<std::string> runner;
  std::optional<int> epoch;         // --epoch: one harness epoch (dataset/epochs.h)
  std::optional<std::string> plot;  // SVG file
  // When set, the chart is also rendered into it (kbdata serve's pages, which write no file);
  // left as it was when there is nothing to draw.
  std::string* svg = nullptr;
  std::string format;  // --format as typed, "" when not given (report::output_format)
  std::optional<std::string> out;
};

void run_progression(const ProgressionOptions& options, std::FILE* out, std::FILE* err);

void add_progression_command(CLI::App& app, Commands& commands);

}  // namespace kbdata::cli
