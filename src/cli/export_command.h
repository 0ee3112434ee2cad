// `kbdata export --db URL --out DIR --config NAME=IDS [--config ...] [--legacy NAME=IDS]
//  [--private] [--force] [--jobs N]`: the platform database to the published configs
//  (src/platform/,
// docs/export.md).
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "cli/command.h"

namespace kbdata::cli {

struct ExportCommandOptions {
  std::string db;
  std::string out;
  std::vector<std::string> configs;
  std::vector<std::string> legacy;
  bool is_private = false;
  bool force = false;
  bool show_sql = false;
  int jobs = 1;
  std::string license = "cc-by-4.0";
  std::optional<uint64_t> test_permutation_seed;
};

// Exports and prints one line per file (config, file, rows, bytes) to `out`; progress and the
// code repair counts go to `progress` (progress only when it is a terminal: cli/progress.h).
void run_export(const ExportCommandOptions& options, std::FILE* out, std::FILE* progress);

// Adds `export` to `app`.
void add_export_command(CLI::App& app, Commands& commands);

}  // namespace kbdata::cli
