// leaderboards.parquet (docs/dataset.md §4.3) as kbdata writes it (synth, export): one row per
// leaderboard.
#pragma once

#include <vector>

#include "parquet/write/row_file_writer.h"

namespace kbdata::dataset {

// The columns in file order; each is one leaf, so these are also the leaf indexes.
enum class LeaderboardColumn : int { ID, NAME, DEADLINE, LANG, DESCRIPTION, REFERENCE, GPU_TYPES };

[[nodiscard]] constexpr size_t leaf(LeaderboardColumn column) {
  return static_cast<size_t>(column);
}

// id INT64, name STRING, deadline TIMESTAMP (UTC), lang (`py` or `cu`), description and reference
// (the reference implementation's source) STRING, gpu_types a list of STRING; all OPTIONAL.
[[nodiscard]] std::vector<parquet::Field> leaderboards_fields();

}  // namespace kbdata::dataset
