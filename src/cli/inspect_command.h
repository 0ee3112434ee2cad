// `kbdata inspect FILE [--json]`: what a Parquet file holds, without reading its data pages.
#pragma once

#include <cstdio>
#include <string>

namespace kbdata::cli {

struct InspectOptions {
  std::string path;
  bool json = false;
};

// Writes the description to `out`. Throws kbdata::Error for unreadable files.
void run_inspect(const InspectOptions& options, std::FILE* out);

}  // namespace kbdata::cli
