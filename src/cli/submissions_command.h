// `kbdata submissions`: the submissions of a data folder, filtered (pushed down), in the model of
// docs/data-model.md, as a table, CSV, JSON, JSON Lines or Parquet.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/data_options.h"
#include "dataset/filter.h"

namespace kbdata::cli {

struct SubmissionsOptions {
  DataOptions data;
  std::optional<std::string> problem;
  std::optional<int64_t> leaderboard;
  std::optional<std::string> user_id;
  std::optional<std::string> user_name;
  std::optional<std::string> runner;
  bool passed = false;
  bool scored = false;
  std::optional<std::string> since;
  std::optional<std::string> until;
  std::vector<std::string> columns;  // empty: the format's default
  bool with_code = false;
  std::string format;              // --format as typed, "" when not given (report::output_format)
  std::optional<std::string> out;  // --format parquet only
};

// The filter the options ask for. Throws UsageError for an unparsable time or an empty range
// (since >= until).
[[nodiscard]] dataset::Filter build_filter(const SubmissionsOptions& options);

// Default fields: table: submission_id, problem_name, user_id, user_name, submission_time, status,
// score, passed, runner; other formats: every field but code. --with-code adds code.
void run_submissions(const SubmissionsOptions& options, std::FILE* out, std::FILE* err);

// Adds `submissions` to `app`.
void add_submissions_command(CLI::App& app, Commands& commands);

}  // namespace kbdata::cli
