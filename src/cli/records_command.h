// `kbdata records`: a leaderboard's record over time, per runner: each time the best score across
// all users improved, who set it and by how much (analysis/records.h); `--plot` draws the record
// curve as SVG.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

#include "cli/command.h"
#include "cli/data_options.h"

namespace kbdata::cli {

struct RecordsOptions {
  DataOptions data;
  std::optional<std::string> problem;
  std::optional<int64_t> leaderboard;
  std::optional<std::string> runner;
  std::optional<int> epoch;         // --epoch: one harness epoch (dataset/epochs.h)
  std::optional<std::string> plot;  // SVG file
  // When set, the chart is also rendered into it (kbdata serve's pages, which write no file);
  // left as it was when there is nothing to draw.
  std::string* svg = nullptr;
  // --exclude-flagged[=LEVEL]: leave out the rows the audit flags at LEVEL or worse
  std::optional<std::string> exclude_flagged;
  std::string format;  // --format as typed, "" when not given (report::output_format)
  std::optional<std::string> out;
};

void run_records(const RecordsOptions& options, std::FILE* out, std::FILE* err);

void add_records_command(CLI::App& app, Commands& commands);

}  // namespace kbdata::cli
