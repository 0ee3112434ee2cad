// `kbdata fastest`: the lowest-score qualifying submission per (leaderboard, runner), as the
// public get_fastest_submission (docs/dataset.md §5) without its defects (analysis/fastest.h;
// docs/analyses.md, "fastest").
#pragma once

#include <cstdio>
#include <optional>
#include <string>

#include "cli/command.h"
#include "cli/data_options.h"

namespace kbdata::cli {

struct FastestOptions {
  DataOptions data;
  std::optional<std::string> problem;
  std::optional<std::string> user_id;
  std::optional<std::string> user_name;
  std::optional<std::string> runner;
  std::optional<int> epoch;  // --epoch: one harness epoch (dataset/epochs.h)
  bool with_code = false;
  // --exclude-flagged[=LEVEL]: leave out the rows the audit flags at LEVEL or worse
  std::optional<std::string> exclude_flagged;
  std::string format;  // --format as typed, "" when not given (report::output_format)
  std::optional<std::string> out;
};

void run_fastest(const FastestOptions& options, std::FILE* out, std::FILE* err);

// Adds `fastest` to `app`.
void add_fastest_command(CLI::App& app, Commands& commands);

}  // namespace kbdata::cli
