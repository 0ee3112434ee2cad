// `kbdata techniques`: one row per submission with the technology of its hot loop, every
// technology present, feature tags and size measures (techniques/, docs/techniques.md).
#pragma once

#include <cstdio>
#include <optional>
#include <string>

#include "cli/command.h"
#include "cli/data_options.h"
#include "cli/filter_checks.h"

namespace kbdata::cli {

struct TechniquesOptions {
  DataOptions data;
  RowSelection rows;   // --problem, --user, --runner, --since, --until
  std::string format;  // --format as typed, "" when not given (report::output_format)
  std::optional<std::string> out;
  bool trend = false;               // per week: shares of submissions, users and the week's top
  bool winners = false;             // per tag: the top users' best kernels against the rest
  std::optional<int64_t> top;       // the top's size (default 10)
  std::optional<std::string> plot;  // --trend: small multiples SVG
  // When set, the --trend chart is also rendered into it (kbdata serve's pages write no file).
  std::string* svg = nullptr;
  std::optional<std::string> exclude_flagged;  // --exclude-flagged[=cheat|suspicious]
};

void run_techniques(const TechniquesOptions& options, std::FILE* out, std::FILE* err);

// Adds `techniques` to `app`.
void add_techniques_command(CLI::App& app, Commands& commands);

}  // namespace kbdata::cli
