// `kbdata audit`: one row per submission with its verdict (clean, suspicious, cheat), the rules
// that fired and, with --with-evidence, where and on what (audit/, docs/audit.md).
#pragma once

#include <cstdio>
#include <optional>
#include <string>

#include "cli/command.h"
#include "cli/data_options.h"
#include "cli/filter_checks.h"

namespace kbdata::cli {

struct AuditOptions {
  DataOptions data;
  RowSelection rows;  // --problem, --user, --runner, --since, --until
  std::string min_verdict = "clean";
  bool with_evidence = false;
  std::string format;  // --format as typed, "" when not given (report::output_format)
  std::optional<std::string> out;
};

void run_audit(const AuditOptions& options, std::FILE* out, std::FILE* err);

// Adds `audit` to `app`.
void add_audit_command(CLI::App& app, Commands& commands);

}  // namespace kbdata::cli
