// Loading submissions into the model (submission.h) from files of either family, streaming, with
// filters pushed down and only the columns the caller needs read.
//
//   flat file    row by row: one Submission per row that matches, in file order
//   legacy file  runs grouped per submission_id in a hash map (the file's order is not assumed),
//                then one Submission per group that matches, by submission_id; memory holds one
//                Submission per matching submission (its code once, not once per run)
//
// Columns read: the model's metadata columns (small), `code` only when LoadOptions::with_code,
// the legacy run times only when LoadOptions::with_runs; legacy nested run_* structs never.
#pragma once

#include <any>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/progress.h"
#include "dataset/code_text.h"
#include "dataset/data_dir.h"
#include "dataset/filter.h"
#include "dataset/leaderboard_directory.h"
#include "dataset/submission.h"

namespace kbdata::parquet {
class FileReader;
}

namespace kbdata::dataset {

// A prepare step (LoadOptions::prepare and code_wanted) named so that a load can ask for what it
// made in advance. The key names the pair: two steps with one key must do the same.
struct PrepareStep {
  std::string key;
  std::function<bool(const Submission&)> code_wanted;  // null: every row's code
  std::function<void(Submission&, std::optional<std::string_view>)> prepare;
  // The bytes a prepared value holds on the heap (std::any keeps most values there), for the
  // memory bound of a folder kept in memory.
  std::function<size_t(const std::any&)> bytes;
};

struct LoadOptions {
  Filter filter;
  bool with_code = false;  // read and decode `code`
  // With with_code: the rows for which it returns false (it sees every field but the code) keep
  // no code, which is never decoded; null decodes every row's. In a legacy file it is asked only
  // with a prepare step (whose second pass sees complete submissions); without one, every
  // submission's code is decoded (a score is known only once the file is read). Called where
  // prepare is: it must be safe to call concurrently.
  std::function<bool(const Submission&)> code_wanted;
  // Read `code` and keep only its decoded size (Submission::code_bytes): what decoding would make
  // of it, measured without building the text (code_text.h, decoded_code_size).
  bool with_code_bytes = false;
  bool with_runs = false;  // legacy: keep every run in Submission::runs
  // Legacy: read run_result's benchmark.N.{mean,std,err,runs,best,worst} keys into each run's
  // `benchmarks` (kept with with_runs) and the scoring run's into Submission::benchmarks.
  bool with_results = false;
  // Flat files: read code_id, file_name and mode. Without them (analyses of scores need none)
  // those fields stay 0, "" and nullopt, and their columns are never read.
  bool with_details = true;
  // Threads decoding a file and building its rows (parquet::TableScan), at least 1: the caller
  // decides (the command line: cli/threads.h). The sink is always called on the calling thread,
  // with the same submissions in the same order whatever the threads.
  int threads = 1;
  // Runs on each submission before the sink gets it: in a flat file on the scan worker that built
  // it (several batches at once, so it must be safe to call concurrently); in a legacy file, once
  // the file's runs are grouped, on the scan worker that decoded the submission's code in a
  // second pass over the code column (so the file's code is never held at once), or, for a load
  // without code, on the load's threads (all submissions at once). With a prepare step the code
  // is never kept in the submission: it is handed to the step as `code`, the decoded text (a view
  // into the scan's batch, or into a buffer of the worker where decoding changed it), valid only
  // during the call; nullopt when the load reads no code for the row or it is null. The step may
  // change the submission, keeping what it worked out in Submission::prepared. This is how work per
  // submission uses every core while the sink still sees submissions in file order.
  std::function<void(Submission&, std::optional<std::string_view> code)> prepare;
  // What is known of the leaderboards besides their rows: a legacy file's problem names and the
  // runners its runs chose among (leaderboard_directory.h). Null: the registry only; load_dir
  // reads the folder's leaderboards files when it loads a legacy file and this is null.
  std::shared_ptr<const LeaderboardDirectory> leaderboards;
  // Names `prepare` with its `code_wanted` (PrepareStep): a folder kept in memory (resident.h)
  // that prepared rows under this key in advance hands them over without reading the code. Empty:
  // the step has no name and only the files serve the load.
  std::string prepare_key;

  // prepare, code_wanted and prepare_key from `step`.
  void prepare_with(const PrepareStep& step) {
    prepare = step.prepare;
    code_wanted = step.code_wanted;
    prepare_key = step.key;
  }
};

// What a load did, for --verbose and for tests of pushdown.
struct LoadStats {
  uint64_t files_read = 0;
  uint64_t files_skipped = 0;       // the filter excluded the whole file
  uint64_t row_groups = 0;          // row groups of the files read
  uint64_t row_groups_skipped = 0;  // pruned by statistics or the page index
  uint64_t rows_read = 0;           // rows decoded after pruning (legacy: runs)
  uint64_t bytes_read = 0;          // bytes read from the files, footers included
  CodeRepairCounts code;
  // Rows dropped because a file already gave the same submission on the same runner: an earlier
  // file of the folder (a dedup output or a converted copy saved beside its source), or the same
  // file (earlier_file == file: the row appears twice in it). One entry per (file, earlier file),
  // to be reported, never passed over in silence.
  struct Repeats {
    std::string file;
    std::string earlier_file;
    uint64_t rows = 0;
  };
  std::vector<Repeats> repeats;
  // A flat file that gives one (submission_id, runner) twice with different fields (another user,
  // score, time, ...): the file contradicts itself; the first row is kept. The first kMaxNamed
  // such rows, and how many there were in all.
  struct Inconsistent {
    std::string file;
    int64_t submission_id = 0;
    std::optional<std::string> runner;
  };
  static constexpr size_t kMaxNamed = 5;
  std::vector<Inconsistent> inconsistent;
  uint64_t inconsistent_rows = 0;
  // Rows whose runner or status was written another way than it is shown (dataset/hardware.h:
  // trimmed, a known runner's spelling, a status in lower case, an unknown runner's first spelling
  // in the load), with up to kMaxNamed of the spellings met.
  uint64_t respelled_runners = 0;
  uint64_t respelled_statuses = 0;
  std::vector<std::string> respellings;
  // The leaderboards of the rows handed over that the registry does not know (registry.h
  // is_registered), as (leaderboard_id, problem_name), in the order met.
  std::vector<std::pair<int64_t, std::string>> unregistered;

  // The spelling a runner the hardware table lacks is shown with in this load: the first met of
  // its spellings (they compare ignoring case). Rewrites `runner` and counts it when it differs.
  void respell_unknown_runner(std::string& runner);

 private:
  std::vector<std::pair<std::string, std::string>> unknown_runners_;  // lower-cased -> shown
};

using SubmissionSink = std::function<void(Submission&&)>;

// Loads the submissions of one open file of `family` (FLAT or LEGACY_RUNS; other families load
// nothing) that match options.filter, and hands each to `sink`. Throws FormatError /
// UnsupportedError for corrupt or unsupported files (located at the file).
void load_file(parquet::FileReader& reader, SchemaFamily family, const LoadOptions& options,
               const SubmissionSink& sink, LoadStats& stats);

// The files of `dir` a load reads, registry configs first, each group in name order: FLAT and
// LEGACY_RUNS files, without amd_successful_submissions when amd_submissions is present (it is a
// subset of it). Which problems a file holds is the file's to say: none is left out by a list.
[[nodiscard]] std::vector<const DataFile*> files_for(const DataDir& dir);

// The files of files_for(dir) a load with `filter` reads rows of: those whose statistics (chunk
// statistics, page indexes) may hold a matching row (the pushdown of filter.h). Reads footers and
// page indexes, no rows.
[[nodiscard]] std::vector<const DataFile*> files_for(const DataDir& dir, const Filter& filter);

// What one file holds, read from its rows: each (leaderboard, problem, runner) with its model rows
// (flat: rows; legacy: submissions), in (leaderboard_id, problem_name, runner) order.
struct FileContents {
  struct Entry {
    int64_t leaderboard_id = 0;
    std::string problem_name;
    std::optional<std::string> runner;
    uint64_t rows = 0;
  };
  const DataFile* file = nullptr;
  std::vector<Entry> entries;
  std::string error;  // with ContentsOptions::keep_errors: why the file's rows could not be read
};

struct ContentsOptions {
  // What is known of the leaderboards (null: the folder's, LeaderboardDirectory::of).
  std::shared_ptr<const LeaderboardDirectory> leaderboards;
  // Told the rows read so far (may be empty).
  ProgressFn progress;
  int threads = 1;  // each file's scan (LoadOptions::threads)
  // A file whose rows cannot be read gets FileContents::error instead of failing the whole read.
  bool keep_errors = false;
};

// The contents of every flat and legacy file of `dir` (in the folder's order; a subset of another,
// amd_successful_submissions, too), read with the metadata columns only (no code).
// Throws as load_file does (unless options.keep_errors).
[[nodiscard]] std::vector<FileContents> read_contents(const DataDir& dir,
                                                      const ContentsOptions& options = {});

// The problem names `contents` hold, sorted and unique.
[[nodiscard]] std::vector<std::string> problems_in(const std::vector<FileContents>& contents);

// Throws UsageError (exit 2) when no file of `dir` holds `problem`: the message lists the problems
// the files hold, with the closest ("did you mean"), and where a registry config that places the
// problem is absent from the folder, names that config's file (and for an hf:// data set, the
// `kbdata pull` that fetches it).
void require_problem(const DataDir& dir, const std::string& problem);

// load_file over files_for(dir); bytes_read counts every file read. A submission is handed over
// once: a row whose (submission_id, runner) an earlier file already gave is dropped and counted in
// stats.repeats. When dir.resident serves the load (resident.h), the rows come from memory
// instead: the same rows in the same order, no file read. When the filter names a problem and no
// row is handed over, require_problem() tells an unknown problem from an empty selection.
void load_dir(const DataDir& dir, const LoadOptions& options, const SubmissionSink& sink,
              LoadStats& stats);

// load_dir from the files (never from dir.resident), telling the sink which of dir.files each
// row comes from.
using FileSubmissionSink = std::function<void(Submission&&, const DataFile& file)>;
void load_dir_files(const DataDir& dir, const LoadOptions& options, const FileSubmissionSink& sink,
                    LoadStats& stats);

}  // namespace kbdata::dataset
