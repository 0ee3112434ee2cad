// Reading leaderboards.parquet (docs/dataset.md §4.3): the columns the analyses use, one entry per
// row. The file is small (one row per leaderboard); it is read whole.
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
  std::optional<std::string> lang;         // "py" or "cu"
  std::optional<std::string> description;  // the task's text for competitors
  std::optional<std::string> reference;    // the reference implementation's source
};

// The rows of the leaderboards file `file` of `dir`, read through the folder's source (a local
// file, or a remote data set's). Columns it lacks are left null (`name` empty); `id` may be any
// integer type, the others strings. Throws FormatError / UnsupportedError (located at the file)
// for a file that cannot be read or a column of another type, IoError when it cannot be opened.
[[nodiscard]] std::vector<LeaderboardEntry> read_leaderboards(const DataDir& dir,
                                                              const DataFile& file);

// The leaderboards files of a data folder (family LEADERBOARDS), in the folder's order.
[[nodiscard]] std::vector<const DataFile*> leaderboards_files(const DataDir& dir);

}  // namespace kbdata::dataset
