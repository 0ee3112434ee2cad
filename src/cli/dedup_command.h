// `kbdata dedup IN OUT --exact | --fuzzy [--threshold T] [--shingle-bytes K] [--across-users]
//  [--emit-all] [--threads N]` (docs/dedup.md).
#pragma once

#include <cstdio>
#include <optional>
#include <string>

#include "cli/command.h"
#include "dedup/dedup.h"

namespace kbdata::cli {

struct DedupCommandOptions {
  dedup::DedupOptions dedup;
  std::optional<int> threads;  // --threads (--jobs, -j); else the run's default (cli/threads.h)
  bool exact = false;
  bool fuzzy = false;
  // --exclude-flagged[=LEVEL]: leave out the rows of IN the audit flags at LEVEL or worse
  std::optional<std::string> exclude_flagged;
};

// Runs the dedup and prints its summary on `out`; progress on `err` when it is a terminal.
// Throws UsageError (neither or both of --exact and --fuzzy, invalid parameters, OUT = IN) and
// kbdata::Error for unreadable input or unwritable output (OUT is then left as it was).
void run_dedup_command(DedupCommandOptions& options, std::FILE* out, std::FILE* err);

// Adds `dedup` to `app`.
void add_dedup_command(CLI::App& app, Commands& commands);

}  // namespace kbdata::cli
