// The legacy per-run schema (docs/dataset.md §4.2) as kbdata writes it (synth's AMD files,
// `kbdata export --legacy`): the run columns, in file order, then the struct columns, whose fields
// each writer decides (synth: the tester's keys it models; export: the union of the keys the
// database holds).
#pragma once

#include <array>
#include <vector>

#include "parquet/write/row_file_writer.h"

namespace kbdata::dataset {

// The run columns, in file order (their leaf indexes: they come first).
enum class LegacyColumn : int {
  SUBMISSION_ID,
  LEADERBOARD_ID,
  USER_ID,  // the anonymised integer
  SUBMISSION_TIME,
  FILE_NAME,
  CODE,
  CODE_ID,
  RUN_ID,
  RUN_START_TIME,
  RUN_END_TIME,
  RUN_MODE,
  RUN_SCORE,
  RUN_PASSED,
};
inline constexpr int kLegacyColumnCount = static_cast<int>(LegacyColumn::RUN_PASSED) + 1;

// The leaf index of a run column.
[[nodiscard]] constexpr size_t leaf(LegacyColumn column) { return static_cast<size_t>(column); }

// The struct columns, after the run columns in this order.
inline constexpr std::array<const char*, 4> kLegacyStructColumns = {
    "run_compilation", "run_meta", "run_result", "run_system_info"};

// How the columns whose type varies between the published files are written.
struct LegacyColumnTypes {
  // TIMESTAMP (UTC) or LOCAL_TIMESTAMP (naive, as the first AMD files).
  parquet::FieldType submission_time = parquet::FieldType::TIMESTAMP;
  // STRING, or BINARY (submissions.parquet's unannotated bytes).
  parquet::FieldType code = parquet::FieldType::STRING;
};

// The run columns' fields, all OPTIONAL: ids INT64, run times TIMESTAMP, run_score DOUBLE,
// run_passed BOOLEAN, file_name and run_mode STRING; submission_time and code as `types`.
[[nodiscard]] std::vector<parquet::Field> legacy_run_fields(const LegacyColumnTypes& types);

}  // namespace kbdata::dataset
