// `kbdata cat FILE [--columns a,b] [--limit N] [--offset N] [--format jsonl|csv|table]`.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "cli/command.h"
#include "tabular/row_writer.h"

namespace kbdata::cli {

struct CatOptions {
  std::string path;
  std::vector<std::string> columns;  // dotted leaf or group paths; empty means all
  std::optional<uint64_t> limit;
  uint64_t offset = 0;
  std::string format_name = "jsonl";  // --format as typed
  tabular::Format format = tabular::Format::JSONL;
  // --where conditions, ANDed (cli/row_filter_options.h); --verify-checksums.
  std::vector<std::string> where;
  bool verify_checksums = false;
  std::optional<int> threads;  // --threads
};

// Streams the selected rows to `out` through one TableScan (parquet/table_scan.h), in file order
// whatever the threads: rows outside --offset/--limit are not read (without --where), and with
// --where rows are pruned by statistics and page indexes, then tested on the conditions' columns
// before the other columns are decoded. Throws UsageError for unknown columns, kbdata::Error for
// unreadable input.
void run_cat(const CatOptions& options, std::FILE* out);

// Adds `cat` to `app`.
void add_cat_command(CLI::App& app, Commands& commands);

}  // namespace kbdata::cli
