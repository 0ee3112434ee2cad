// `kbdata convert IN OUT [--compression C] [--level L] [--row-group-size ROWS|BYTES]
//  [--page-size B] [--page-version 1|2] [--encoding auto|plain|delta] [--checksums]`.
#pragma once

#include <cstdio>
#include <optional>
#include <string>

#include "cli/command.h"
#include "parquet/write/writer_options.h"

namespace kbdata::cli {

struct ConvertOptions {
  std::string input;
  std::string output;
  std::string compression = "lz4_raw";
  std::optional<int> level;
  std::optional<std::string> row_group_size;  // "100000" rows or "64MB" bytes
  std::optional<std::string> page_size;       // "1MiB", "65536"
  int page_version = 1;
  std::string encoding = "auto";
  bool checksums = false;
  std::optional<int> threads;  // --threads: reading and decoding IN
  // The command line, recorded in the output's key-value metadata (kbdata.command).
  std::string command_line;
};

// A size: a number of bytes, or a number with one of the suffixes B, KB, MB, GB (powers of 1000)
// or KiB, MiB, GiB (powers of 1024), case-insensitive. nullopt if `text` is not one.
[[nodiscard]] std::optional<uint64_t> parse_byte_size(const std::string& text);

// Rewrites `options.input` as `options.output` with kbdata's writer: same schema and values, the
// layout and encodings the options ask for, page indexes, provenance metadata. The output appears
// only when complete (AtomicOutputFile). Progress goes to `progress` (nullptr: none) when it is a
// terminal. Throws UsageError for invalid options, kbdata::Error for unreadable input or output.
void run_convert(const ConvertOptions& options, std::FILE* progress);

// Adds `convert` to `app`.
void add_convert_command(CLI::App& app, Commands& commands);

}  // namespace kbdata::cli
