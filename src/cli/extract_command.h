// `kbdata extract`: writes the code of chosen submissions of a problem to files, with a
// manifest.jsonl describing each (analysis/extract_selection.h, query/extract.h; docs/analyses.md,
// "extract").
//
// The export is built in a temporary folder beside --out and renamed into place when complete,
// so a failure leaves no half-written export.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

#include "cli/command.h"
#include "cli/data_options.h"

namespace kbdata::cli {

struct ExtractOptions {
  DataOptions data;
  std::optional<std::string> problem;
  std::optional<int64_t> top;
  std::optional<std::string> user_id;
  std::optional<std::string> user_name;
  bool all = false;
  std::optional<std::string> runner;
  std::optional<std::string> dedup;  // "exact"
  // --exclude-flagged[=LEVEL]: leave out the rows the audit flags at LEVEL or worse
  std::optional<std::string> exclude_flagged;
  std::string out;
  bool force = false;
};

void run_extract(const ExtractOptions& options, std::FILE* err);

// A name safe as one path component: bytes other than [A-Za-z0-9._-] become '_', a leading '.'
// becomes '_' (so never "." or ".."), at most 80 bytes, "_" when empty.
[[nodiscard]] std::string safe_path_component(const std::string& name);

// Adds `extract` to `app`.
void add_extract_command(CLI::App& app, Commands& commands);

}  // namespace kbdata::cli
