// `kbdata stats`: per config and leaderboard, the counts, score distribution, time span and code
// bytes of a data folder (analysis/stats.h; docs/analyses.md, "stats").
#pragma once

#include <cstdio>
#include <optional>
#include <string>

#include "cli/command.h"
#include "cli/data_options.h"

namespace kbdata::cli {

struct StatsOptions {
  DataOptions data;
  std::optional<std::string> problem;
  bool flagged = false;  // --flagged: the rows kbdata audit flags, per leaderboard
  std::string format;    // --format as typed, "" when not given (report::output_format)
  std::optional<std::string> out;
};

void run_stats(const StatsOptions& options, std::FILE* out, std::FILE* err);

// Adds `stats` to `app`.
void add_stats_command(CLI::App& app, Commands& commands);

}  // namespace kbdata::cli
