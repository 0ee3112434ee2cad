// `kbdata configs`: the registry's configs, which of their files a data folder holds, and their
// row counts from the footers; then the folder's other Parquet files and their detected family.
#pragma once

#include <cstdio>
#include <string>

#include "cli/command.h"
#include "cli/data_options.h"

namespace kbdata::cli {

struct ConfigsOptions {
  DataOptions data;
  std::string format = "table";  // table or json
};

void run_configs(const ConfigsOptions& options, std::FILE* out, std::FILE* err);

// The configs query's answer over `data` as one JSON document, as `--format json` prints it (the
// web explorer's /api/configs); what opening the data says goes to `err`. Throws as run_configs
// does, the document made first.
[[nodiscard]] std::string configs_json_document(const DataOptions& data, std::FILE* err);

// Adds `configs` to `app`.
void add_configs_command(CLI::App& app, Commands& commands);

}  // namespace kbdata::cli
