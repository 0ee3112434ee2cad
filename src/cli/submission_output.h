// Rendering the submission model (dataset/submission.h) for `kbdata submissions` and `kbdata show`:
// table, CSV, JSON, JSON Lines and Parquet (the flat schema of docs/dataset.md §4.1).
//
// Scores: tables show them for humans (format_score); every machine format carries seconds.
// Reliability notes (dataset/registry.h note_for): above the table for `table`; a "note" field in
// the objects of `json`/`jsonl` whose leaderboard has one; one stderr line per leaderboard for
// `csv` and `parquet` (a comment line would break CSV readers; Parquet key-value metadata is fixed
// before the first row is seen).
#pragma once

#include <cstdio>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "cli/output.h"
#include "dataset/code_text.h"
#include "dataset/data_dir.h"
#include "dataset/loader.h"
#include "dataset/submission.h"

namespace kbdata::cli {

using SubmissionFormat = OutputFormat;

// The model's field names, in the flat schema's order (code last).
[[nodiscard]] const std::vector<std::string>& submission_fields();

// The fields --columns may name: submission_fields(), then "benchmarks" (a legacy submission's
// benchmark results, docs/data-model.md; a JSON array in every format, JSON text in Parquet).
[[nodiscard]] const std::vector<std::string>& selectable_submission_fields();

// Streams submissions to `out` (or, for PARQUET, to `parquet_path`). `fields` are names of
// submission_fields(); `notes` receives the stderr lines of the CSV and Parquet formats.
class SubmissionWriter {
 public:
  // Throws UsageError for an unknown field (listing the fields), or PARQUET without a path.
  SubmissionWriter(SubmissionFormat format, std::vector<std::string> fields, std::FILE* out,
                   std::FILE* notes, std::optional<std::string> parquet_path);
  ~SubmissionWriter();
  SubmissionWriter(const SubmissionWriter&) = delete;
  SubmissionWriter& operator=(const SubmissionWriter&) = delete;

  void write(const dataset::Submission& s);
  // Ends the output (the table, the JSON array's "]", the Parquet footer and commit).
  void finish();
  [[nodiscard]] uint64_t rows() const { return rows_; }

 private:
  struct Parquet;
  void note_seen(const dataset::Submission& s);
  void append_json_object(std::string& out, const dataset::Submission& s) const;

  SubmissionFormat format_;
  std::vector<int> fields_;  // indexes into selectable_submission_fields()
  std::FILE* out_;
  std::FILE* notes_;
  std::set<int64_t> noted_;  // leaderboards whose note was written (or queued for the table)
  std::vector<std::string> table_notes_;
  std::vector<std::vector<std::string>> table_rows_;
  std::unique_ptr<Parquet> parquet_;
  std::string buffer_;
  uint64_t rows_ = 0;
};

// Data folder options shared by the commands.
struct DataOptions {
  std::optional<std::string> data;  // --data
  bool verbose = false;
  bool skip_bad = false;       // --skip-bad: read the folder without its unreadable files
  std::optional<int> threads;  // --threads; else $KBDATA_THREADS, else every core
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

// After a load: what must be said whatever --verbose (rows dropped because another file of the
// folder already gave them, dataset::LoadStats::repeats), then with --verbose the files, row
// groups read and skipped, bytes and code repairs.
void report_load(const DataOptions& options, const dataset::LoadStats& stats, std::FILE* err);

}  // namespace kbdata::cli
