// `kbdata show SUBMISSION_ID`: one submission with its metadata, its code, and (legacy files) its
// runs.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

#include "cli/command.h"
#include "cli/data_options.h"

namespace kbdata::cli {

struct ShowOptions {
  DataOptions data;
  int64_t submission_id = 0;
  std::string format = "table";  // table, json, jsonl
  // Instead of the submission: its near-duplicates on its leaderboard (analysis/near_duplicates.h)
  // at or above `threshold`, most similar first.
  bool near_duplicates = false;
  std::optional<double> threshold;  // default 0.8
};

// Prints every model row of the submission (a flat file holds one per runner), or its
// near-duplicates. Throws kbdata::Error (exit 1) when the folder has no such submission.
void run_show(const ShowOptions& options, std::FILE* out, std::FILE* err);

// Adds `show` to `app`.
void add_show_command(CLI::App& app, Commands& commands);

}  // namespace kbdata::cli
