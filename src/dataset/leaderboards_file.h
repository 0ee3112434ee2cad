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

// The rows of a leaderboards file. Columns it lacks are left null (`name` empty); `id` may be
// any integer type, the others strings. Throws FormatError / UnsupportedError (located at the
// file) for a file that cannot be read or a column of another type.
[[nodiscard]] std::vector<LeaderboardEntry> read_leaderboards(const std::string& path);

// The leaderboards files of a data folder (family LEADERBOARDS), in the folder's order.
[[nodiscard]] std::vector<const DataFile*> leaderboards_files(const DataDir& dir);

}  // namespace kbdata::dataset
