// The data folder options every data command shares (--data, --verbose, --skip-bad, --threads),
// opening the folder they name and loading its submissions with progress and the load's report.
#pragma once

#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "dataset/data_dir.h"
#include "dataset/loader.h"
#include "query/load.h"

namespace kbdata::cli {

// Data folder options shared by the commands.
struct DataOptions {
  std::optional<std::string> data;  // --data
  bool verbose = false;
  bool skip_bad = false;       // --skip-bad: read the folder without its unreadable files
  std::optional<int> threads;  // --threads; else $KBDATA_THREADS, else every core
  // The folder's rows kept in memory by kbdata serve: open_data_dir hands it to the DataDir, whose
  // loads it serves where it can (dataset/resident.h). Null for every other command.
  std::shared_ptr<const dataset::Resident> resident;
};

// Scans the data folder at `path`: a local folder, or an hf:// data set address
// (hub/remote_data.h: the cache's complete snapshot, else the files read remotely, through the
// DataDir's source). `log` (--verbose, may be null) gets what the hub resolved and fetched.
[[nodiscard]] dataset::DataDir scan_data(const std::string& path, std::FILE* log);

// Resolves --data / KBDATA_DATA / the bundled sample and scans the folder (scan_data). Says on
// `err` when the bundled sample is used, and names every *.parquet file that is not read: a file
// that is not a KernelBot config gets a note; an unreadable file is an error (its own, naming the
// file, with a hint at --skip-bad), or with --skip-bad a warning. `list_unreadable` (kbdata
// configs, which lists them first): the caller calls check_unreadable.
[[nodiscard]] dataset::DataDir open_data_dir(const DataOptions& options, std::FILE* err,
                                             bool list_unreadable = false);

// The first unreadable file of `dir` is an error (IoError: its reason, which names it, and a hint
// at --skip-bad); with --skip-bad each is a warning on `err`.
void check_unreadable(const dataset::DataDir& dir, const DataOptions& options, std::FILE* err);

// Loads what `load` selects from `dir` (open_data_dir) into `sink` with progress on a terminal
// ("kbdata: WHAT: N rows"), then reports the load (report_load).
void load_submissions(const dataset::DataDir& dir, const DataOptions& data,
                      const dataset::LoadOptions& load, const std::string& what,
                      const dataset::SubmissionSink& sink, std::FILE* err);

// The queries' loader (query/load.h) over `dir`: load_submissions, its progress line named by the
// query's pass. `dir`, `data` and `err` must outlive it.
[[nodiscard]] query::Loader query_loader(const dataset::DataDir& dir, const DataOptions& data,
                                         std::FILE* err);

// After a load: what must be said whatever --verbose (rows dropped because another file of the
// folder already gave them, dataset::LoadStats::repeats), then with --verbose the files, row
// groups read and skipped, bytes and code repairs.
void report_load(const DataOptions& options, const dataset::LoadStats& stats, std::FILE* err);

}  // namespace kbdata::cli
