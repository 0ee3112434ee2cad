// `kbdata inspect FILE [--json] [--pages]`: what a Parquet file holds, without reading its data
// pages.
#pragma once

#include <cstdio>
#include <string>

#include "cli/command.h"

namespace kbdata::cli {

struct InspectOptions {
  std::string path;
  bool json = false;
  bool pages = false;  // text: a table of each chunk's pages from its page index
};

// Writes the description to `out`. Throws kbdata::Error for unreadable files.
void run_inspect(const InspectOptions& options, std::FILE* out);

// Adds `inspect` to `app`.
void add_inspect_command(CLI::App& app, Commands& commands);

}  // namespace kbdata::cli
