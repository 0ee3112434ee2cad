// The flat schema of the current configs (docs/dataset.md §4.1): its columns, in file order, and
// their Parquet types. Everything that writes or names flat-schema columns takes them from here.
#pragma once

#include <string>
#include <vector>

#include "parquet/metadata.h"

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

// The schema element of one column: every column OPTIONAL; ids INT64; submission_time INT64
// TIMESTAMP(MICROS, UTC); score DOUBLE; passed BOOLEAN; the rest BYTE_ARRAY STRING. The legacy
// ConvertedType (TIMESTAMP_MICROS, UTF8) is set beside the LogicalType, as pyarrow writes it.
[[nodiscard]] parquet::SchemaElement flat_column_element(FlatColumn column);

// The footer schema (root first) of a file holding `columns`, in that order; all 14 by default.
[[nodiscard]] std::vector<parquet::SchemaElement> flat_schema(
    const std::vector<FlatColumn>& columns);
[[nodiscard]] std::vector<parquet::SchemaElement> flat_schema();

}  // namespace kbdata::dataset
