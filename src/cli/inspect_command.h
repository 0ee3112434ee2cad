// `kbdata inspect FILE [--json] [--pages]`: what a Parquet file holds, without reading its data
// pages.
#pragma once

#include <cstdio>
#include <string>

namespace kbdata::cli {

struct InspectOptions {
  std::string path;
  bool json = false;
  bool pages = false;  // text: a table of each chunk's pages from its page index
};

// Writes the description to `out`. Throws kbdata::Error for unreadable files.
void run_inspect(const InspectOptions& options, std::FILE* out);

}  // namespace kbdata::cli
