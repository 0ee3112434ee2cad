// `kbdata serve`: a local web explorer of a data folder (serve/, docs/serve.md). Each page is the
// HTML of a JSON twin at /api/..., which returns what the commands' --format json return.
#pragma once

#include <cstdio>
#include <string>

#include "cli/command.h"
#include "cli/data_options.h"

namespace kbdata::cli {

struct ServeOptions {
  DataOptions data;
  int port = 8000;  // 0: a free port
  std::string bind = "127.0.0.1";
  int64_t index_memory_mb = 2048;  // the in-memory index's bound; 0: no index
};

void run_serve(const ServeOptions& options, std::FILE* out, std::FILE* err);

// Adds `serve` to `app`.
void add_serve_command(CLI::App& app, Commands& commands);

}  // namespace kbdata::cli
