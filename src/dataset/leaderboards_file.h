// Reading leaderboards.parquet (docs/dataset.md §4.3): the columns kbdata uses, one entry per row.
// The file is small (one row per leaderboard); it is read whole. It only adds detail: the published
// one has held only some leaderboards, so every leaderboard a config file names is complete without
// it (docs/data-model.md, "Leaderboards").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dataset/data_dir.h"

namespace kbdata::dataset {

struct LeaderboardEntry {
  std::optional<int64_t> id;
  std::string name;
  std::optional<int64_t> deadline;         // µs since the epoch, UTC
  std::optional<std::string> lang;         // "py" or "cu"
  std::optional<std::string> description;  // the task's text for competitors
  std::optional<std::string> reference;    // the reference implementation's source
  std::vector<std::string> gpu_types;      // the runners it took; empty when null or absent
};

// The rows of the leaderboards file `file` of `dir`, read through the folder's source (a local
// file, or a remote data set's). Columns it lacks are left null (`name` empty). `id` may be an
// integer of any width, or a DOUBLE/FLOAT holding an integer (what pandas writes for an int column
// with a gap); `deadline` a timestamp (INT64 in any unit, or INT96); `gpu_types` a list of
// strings; the others strings. Throws FormatError / UnsupportedError (located at the file) for a
// file that cannot be read, a column of another type or a value that does not fit (a fractional
// id), IoError when it cannot be opened.
[[nodiscard]] std::vector<LeaderboardEntry> read_leaderboards(const DataDir& dir,
                                                              const DataFile& file);

// The leaderboards files of a data folder (family LEADERBOARDS), in the folder's order.
[[nodiscard]] std::vector<const DataFile*> leaderboards_files(const DataDir& dir);

}  // namespace kbdata::dataset
