// `kbdata synth --db URL [--scale S] [--seed N]`: the platform tables seeded instead
// (src/platform/). `kbdata synth --out DIR [--scale small|medium|full] [--seed N] [--family
// flat|legacy|both]
//  [--layout published|kbdata] [--leaderboards published|all]`: a synthetic data set (src/synth/,
//  docs/synth.md).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "cli/command.h"

namespace kbdata::cli {

struct SynthCommandOptions {
  std::string out;
  std::string db;  // --db URL: seed a PostgreSQL database instead of writing files
  std::string scale = "small";
  uint64_t seed = 1;
  std::string family = "both";
  std::string layout = "published";
  std::string leaderboards = "published";  // --leaderboards published|all
  bool force = false;  // --force: write into a non-empty folder synth did not make
};

// Writes the data set and prints one line per file (config, file, rows, bytes) to `out`; progress
// goes to `progress` when it is a terminal (cli/progress.h), not for --scale small. Throws
// UsageError for invalid options, IoError if the folder cannot be written.
void run_synth(const SynthCommandOptions& options, std::FILE* out, std::FILE* progress);

// Adds `synth` to `app`.
void add_synth_command(CLI::App& app, Commands& commands);

}  // namespace kbdata::cli
