// `kbdata configs` as a query: what a data folder holds, config by config, as result tables. The
// caller opens the folder (unreadable files listed, not refused) and reads what the files hold
// (dataset::read_contents, keeping each file's error); the query turns both into the answer's
// tables, which the command renders (a table for people, or one JSON document: json_document) and
// the web explorer serves (/api/configs).
//
// An hf:// data set is listed from the hub's tree (no file read): remote_configs_answer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dataset/data_dir.h"
#include "dataset/loader.h"
#include "result/table.h"

namespace kbdata::query {

// What the rows are (Parquet's kbdata.rule).
extern const char* const kConfigsRule;

struct ConfigsAnswer {
  std::string data;  // the folder, as opened
  // One row per config kbdata knows (dataset::configs(), in its order): config, file, family,
  // present, rows (the footer's; null when absent), leaderboards (JSON: the registry's
  // [{"id","name"[,"note"]}]), leaderboards_found (the leaderboards the file's rows hold; null when
  // absent, and for the leaderboards config), note (the config's).
  result::ResultTable configs;
  // One row per (file, leaderboard, problem, runner) the rows hold, in the files' order: file,
  // leaderboard_id, problem_name, runner, gpu (the hardware table's, null when unknown), rows,
  // registered, note (the leaderboard's reliability note, "" without one).
  result::ResultTable contents;
  // The files that are no config kbdata knows, read as their columns say: file, family, rows.
  result::ResultTable other_files;
  // The *.parquet files not read: file, reason, unreadable.
  result::ResultTable skipped;
  // Why a file's rows could not be read (dataset::FileContents::error), in the files' order.
  std::vector<std::string> errors;
};

// `dir` opened with its unreadable files listed (dir.skipped), and `contents` read from it.
[[nodiscard]] ConfigsAnswer configs_answer(const dataset::DataDir& dir,
                                           const std::vector<dataset::FileContents>& contents);

// A file of a remote data set's tree.
struct RemoteFile {
  std::string path;  // in the repository
  uint64_t size = 0;
};

struct RemoteConfigsAnswer {
  std::string data;  // the address
  // One row per config kbdata knows: config, file, family, present, size (null when absent), note.
  result::ResultTable configs;
  // The tree's *.parquet files that are no config kbdata knows: file, size.
  result::ResultTable other_files;
};

[[nodiscard]] RemoteConfigsAnswer remote_configs_answer(std::string label,
                                                        const std::vector<RemoteFile>& files);

// The answers as one JSON document (`kbdata configs --format json`, /api/configs): {"data":...,
// then each table as report::json_text prints its rows}, one line per row.
[[nodiscard]] std::string json_document(ConfigsAnswer& answer);
[[nodiscard]] std::string json_document(RemoteConfigsAnswer& answer);

}  // namespace kbdata::query
