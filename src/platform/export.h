// `kbdata export`: the platform database (docs/dataset.md §2) to the published configs, in one
// READ ONLY, REPEATABLE READ transaction (a snapshot shared by every connection with --jobs),
// streamed through server-side cursors, written with kbdata's layout (page index, bounded row
// groups, provenance metadata). docs/export.md states the rules and the SQL.
//
// Nothing in the output folder changes before everything succeeded: every file is written into a
// temporary folder beside it (export_folder.h), flushed and synced, and that folder then takes
// DIR's place in one rename. On any failure it is removed and DIR stays exactly as it was; after
// success DIR holds exactly the files the card lists.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "common/progress.h"
#include "dataset/code_text.h"

namespace kbdata::platform {

// A public export was asked for a leaderboard whose deadline has not passed or whose visibility
// is not 'public'.
class ExportRefused : public Error {
 public:
  using Error::Error;
};

// One config to write: NAME=ID,ID,...
struct ConfigSpec {
  std::string name;
  std::vector<int64_t> leaderboards;
  bool legacy = false;  // the legacy per-run schema (--legacy)
};

// Parses "NAME=ID,ID,..." (NAME: letters, digits, '_', '-'). Throws UsageError naming `option`.
[[nodiscard]] ConfigSpec parse_config_spec(std::string_view text, bool legacy,
                                           std::string_view option);

// The file a config is written to: the registry's file for a registered config name, else
// NAME.parquet.
[[nodiscard]] std::string config_file_name(const std::string& config);

// The query that streams a config's rows (one statement, no trailing ';'), as run by the export:
// `kbdata export --show-sql` prints it and bench/export_bench.sh times COPY of it.
[[nodiscard]] std::string config_query(const ConfigSpec& spec);

// A legacy config holds only passing runs when it is the registry's amd_successful_submissions.
[[nodiscard]] bool passing_runs_only(const std::string& config);

struct ExportOptions {
  std::string url;
  std::string out_dir;
  std::vector<ConfigSpec> configs;
  // --private: leaderboards whose deadline is in the future or that are not public too; files
  // 0600 and DIR 0700.
  bool allow_open = false;
  bool force = false;  // --force: remove files of an earlier export the new card does not list
  int jobs = 1;        // configs written at once, each worker on a connection of its own
  int threads = 1;     // each file's compression threads (parquet::WriterOptions::threads)
  std::string license = "cc-by-4.0";
  // Test only: seeds the legacy user id permutation. Without it the permutation comes from
  // std::random_device and is never written anywhere.
  std::optional<uint64_t> permutation_seed;
  // Each file's rows as they are fetched, the file's name as the stage (may be empty); called by
  // one worker at a time.
  ProgressFn progress;
};

struct ExportedFile {
  std::string config;
  std::string file;
  int64_t rows = 0;
  uint64_t bytes = 0;
};

struct ExportResult {
  std::vector<ExportedFile> files;  // the configs, leaderboards.parquet, README.md
  dataset::CodeRepairCounts code;
  std::vector<std::string> removed;  // files of an earlier export removed (--force)
  std::string kept_previous;         // see ExportFolder::kept_previous()
};

// Runs the export. Throws UsageError for invalid options or an output folder that must not be
// replaced (export_folder.h), ExportRefused for a leaderboard a public export must not contain
// (before anything is written), DatabaseError for the database, IoError for the folder,
// FormatError for a value the output cannot hold.
ExportResult run_export(const ExportOptions& options);

}  // namespace kbdata::platform
