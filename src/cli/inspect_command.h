// `kbdata inspect FILE [--json] [--pages]`: what a Parquet file holds, without reading its data
// pages.
#pragma once

#include <cstdio>
#include <string>

#include "cli/command.h"

namespace kbdata::cli {

struct InspectOptions {
  std::string path;  // a local file, or hf://datasets/OWNER/NAME[@REV]/PATH (cli/input_file.h)
  bool json = false;
  bool pages = false;    // text: a table of each chunk's pages from its page index
  bool verbose = false;  // an hf:// file's requests and bytes on stderr
};

// Writes the description to `out`. Throws kbdata::Error for unreadable files.
void run_inspect(const InspectOptions& options, std::FILE* out);

// Adds `inspect` to `app`.
void add_inspect_command(CLI::App& app, Commands& commands);

}  // namespace kbdata::cli
