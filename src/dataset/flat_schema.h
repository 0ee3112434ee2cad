// The flat schema of the current configs (docs/dataset.md §4.1): its columns, in file order, and
// their Parquet types. Everything that writes or names flat-schema columns takes them from here.
#pragma once

#include <string>
#include <vector>

#include "parquet/write/row_file_writer.h"

namespace kbdata::dataset {

enum FlatColumn : int {
  SUBMISSION_ID,
  LEADERBOARD_ID,
  PROBLEM_NAME,
  USER_ID,
  USER_NAME,
  CODE_ID,
  FILE_NAME,
  SUBMISSION_TIME,
  STATUS,
  SCORE,
  PASSED,
  MODE,
  RUNNER,
  CODE,
};
inline constexpr int kFlatColumnCount = CODE + 1;

// Column names in FlatColumn order ("submission_id", ..., "code").
[[nodiscard]] const std::vector<std::string>& flat_column_names();

// The field of one column: every column OPTIONAL; ids INT64; submission_time TIMESTAMP (INT64
// µs, UTC); score DOUBLE; passed BOOLEAN; the rest STRING. (The legacy ConvertedType,
// TIMESTAMP_MICROS and UTF8, is written beside the LogicalType, as pyarrow writes it:
// parquet::FieldType.)
[[nodiscard]] parquet::Field flat_field(FlatColumn column);

// The type of a column's field.
[[nodiscard]] parquet::FieldType flat_field_type(FlatColumn column);

}  // namespace kbdata::dataset
