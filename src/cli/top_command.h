// `kbdata top`: a problem's leaderboard by the platform's ranking rules (docs/dataset.md §3,
// analysis/ranking.h), one ranking per runner, in every output format (docs/cli.md, "top").
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

#include "cli/command.h"
#include "cli/data_options.h"

namespace kbdata::cli {

struct TopOptions {
  DataOptions data;
  std::optional<std::string> problem;
  std::optional<int64_t> leaderboard;
  std::optional<std::string> runner;
  std::optional<int> epoch;  // --epoch: one harness epoch (dataset/epochs.h)
  int64_t limit = 10;        // -n; 0: everyone
  bool uncertainty = false;  // --uncertainty: intervals from the measured noise (docs/noise.md)
  // --exclude-flagged[=LEVEL]: leave out the rows the audit flags at LEVEL or worse
  std::optional<std::string> exclude_flagged;
  std::string format;  // --format as typed, "" when not given (report::output_format)
  std::optional<std::string> out;
};

void run_top(const TopOptions& options, std::FILE* out, std::FILE* err);

// Adds `top` to `app`.
void add_top_command(CLI::App& app, Commands& commands);

}  // namespace kbdata::cli
