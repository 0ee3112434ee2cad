// A data folder: which Parquet files it holds, which registry config each one is, and which schema
// family each has (detected from its columns), plus where the bundled sample is found.
// docs/data-model.md, "Data folders", describes the rules.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/file.h"
#include "dataset/registry.h"

namespace kbdata::parquet {
class Schema;
}

namespace kbdata::dataset {

class Resident;

// The family a file's columns say it has, or nullopt when they match none:
//   LEGACY_RUNS   submission_id, leaderboard_id, user_id, submission_time, run_id, run_mode
//   FLAT          submission_id, leaderboard_id, problem_name, user_id, submission_time
//   LEADERBOARDS  id, name, deadline
// (checked in this order).
[[nodiscard]] std::optional<SchemaFamily> detect_family(const parquet::Schema& schema);

struct DataFile {
  std::string path;                          // dir + "/" + name: what DataDir::source opens
  std::string name;                          // file name
  const ConfigInfo* config = nullptr;        // the registry config named by the file name, if any
  SchemaFamily family = SchemaFamily::FLAT;  // detected from the columns
  int64_t num_rows = 0;                      // from the footer
  int num_row_groups = 0;
};

// A *.parquet file of a data folder that is not read.
struct SkippedFile {
  std::string name;    // file name
  std::string reason;  // one line: the error, or why it is not a config
  // True when the file could not be read (not Parquet, truncated, a corrupt footer, not a regular
  // file, a model column of a type the model cannot read or a required one missing): commands
  // refuse the folder unless told to skip such files (--skip-bad). False when it is valid Parquet
  // whose columns match no KernelBot schema (a ranking saved there, say).
  bool unreadable = false;
};

struct DataDir {
  std::string path;             // a folder, or a remote data set's address (hf://...), for messages
  std::vector<DataFile> files;  // every *.parquet file whose family was detected, by name
  std::vector<SkippedFile> skipped;  // every other *.parquet entry, by name
  // Opens the files' paths: the local file system, or a remote data set (a FileSource the caller
  // made; the data set module knows nothing of where the bytes come from).
  std::shared_ptr<const FileSource> source = std::make_shared<LocalFileSource>();
  // The folder's rows kept in memory (resident.h), which load_dir uses where it serves the load;
  // null: every load reads the files.
  std::shared_ptr<const Resident> resident;
  // For a folder a command fetched (a hub snapshot): the command that fetches a config it lacks,
  // with "{config}" where the config's name goes; named in the message of a problem the folder
  // does not hold but a registry config does. Empty for other folders.
  std::string pull_command;

  // source->open(file.path).
  [[nodiscard]] std::unique_ptr<RandomAccessFile> open(const DataFile& file) const {
    return source->open(file.path);
  }
};

// Scans `dir` (not recursively): opens the footer of every *.parquet entry (every entry, so that
// a FIFO or a folder named *.parquet is reported rather than passed over) and notes each file as
// an input of the process (common/output_target.h: no output may replace it). Throws UsageError
// if `dir` is not a folder.
[[nodiscard]] DataDir scan_data_dir(const std::string& dir);

// A data folder whose *.parquet files are given rather than listed: `paths` (each "FOLDER/NAME",
// the file name after the last '/') opened through `source`, footers read in the order given.
// `label` names the folder in messages. Otherwise as scan_data_dir (files sorted by name, the
// same families, checks and skipped files); nothing is noted as an input (the source's own
// opens do that for local files).
[[nodiscard]] DataDir scan_data_files(std::string label, const std::vector<std::string>& paths,
                                      std::shared_ptr<const FileSource> source);

// Where the data comes from.
struct DataDirChoice {
  std::string path;
  bool bundled_sample = false;  // neither --data nor KBDATA_DATA was given
};

// `flag` (--data), else `env` (KBDATA_DATA, when non-empty), else the bundled sample:
// <exe dir>/../share/kbdata/sample, <exe dir>/../data/sample, then <KBDATA_SOURCE_DIR>/data/sample
// (the source tree the binary was built from), the first that is a folder. Throws UsageError
// naming the places looked at when none is.
[[nodiscard]] DataDirChoice choose_data_dir(const std::optional<std::string>& flag,
                                            const char* env);

// The places searched for the bundled sample, in order (for messages and tests).
[[nodiscard]] std::vector<std::string> bundled_sample_candidates();

}  // namespace kbdata::dataset
