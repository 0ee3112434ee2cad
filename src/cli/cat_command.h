// `kbdata cat FILE [--columns a,b] [--limit N] [--offset N] [--format jsonl|csv|table]`.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "tabular/row_writer.h"

namespace kbdata::cli {

struct CatOptions {
  std::string path;
  std::vector<std::string> columns;  // dotted leaf or group paths; empty means all
  std::optional<uint64_t> limit;
  uint64_t offset = 0;
  tabular::Format format = tabular::Format::JSONL;
  // --where conditions, ANDed (cli/row_filter_options.h); --verify-checksums.
  std::vector<std::string> where;
  bool verify_checksums = false;
};

// Streams the selected rows to `out`, row group by row group and batch by batch: memory stays
// bounded by one page per column and the dictionaries. Throws UsageError for unknown columns,
// kbdata::Error for unreadable input.
void run_cat(const CatOptions& options, std::FILE* out);

}  // namespace kbdata::cli
