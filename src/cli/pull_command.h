// `kbdata pull [OWNER/NAME] [--revision REV] [--config NAME ...] [--include GLOB ...] [--jobs N]
// [--cache-dir DIR]`: a data set's files into the hub's cache (src/hub/pull.h, docs/hub.md).
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "cli/command.h"

namespace kbdata::cli {

struct PullCommandOptions {
  std::string repo = "GPUMODE/kernelbot-data";
  std::string revision = "main";
  std::vector<std::string> configs;   // config names (or file names) of docs/dataset.md
  std::vector<std::string> includes;  // globs on the paths of the data set
  int jobs = 4;
  std::optional<std::string> cache_dir;
};

// Pulls and prints the snapshot folder on `out` and a summary on `err` (with a progress line
// when `err` is a terminal). Throws UsageError for an unknown config, Error when the pull fails.
void run_pull(const PullCommandOptions& options, std::FILE* out, std::FILE* err);

// Adds `pull` to `app`.
void add_pull_command(CLI::App& app, Commands& commands);

}  // namespace kbdata::cli
