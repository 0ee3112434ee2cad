// Which Parquet types each column of the model accepts (docs/data-model.md, "Accepted column
// types"): the variants pandas, pyarrow, DuckDB and polars write. A type outside them is an error
// naming the column, its type and what was expected; a value that does not fit (a fractional id,
// a 2 in a boolean) is the loader's error naming the row. Nothing is read as 0 or "" because it was
// not understood.
#pragma once

#include <string>
#include <vector>

#include "dataset/registry.h"
#include "parquet/schema.h"

namespace kbdata::dataset {

// What a column of the model holds.
enum class ColumnRole {
  ID,       // an integer id: integers of any width and signedness, DOUBLE/FLOAT holding integers,
            // DECIMAL holding integers, or the id's decimal text
  ID_TEXT,  // a string that may be stored as an id (user_id): strings, or what ID accepts
  TEXT,     // a string: BYTE_ARRAY (STRING, ENUM, JSON or unannotated binary)
  TIME,     // INT64 TIMESTAMP in ms, µs or ns (UTC-adjusted or naive, taken as UTC), or INT96
  SCORE,    // DOUBLE, FLOAT, DECIMAL or an integer
  BOOL,     // BOOLEAN, or an integer holding 0 or 1
  NUMBER,   // run_result values: a number, or text holding one
};

// One column the model reads: by top-level name, or (leaf >= 0) by leaf index.
struct ModelColumn {
  std::string name;  // empty: not read (and absent)
  ColumnRole role = ColumnRole::TEXT;
  bool required = false;  // a file without it is an error
  bool nullable = true;   // a null in it is an error naming the row when false
  int leaf = -1;
};

// The model's columns of `family` (FLAT or LEGACY_RUNS), in the loader's order. Flat:
// submission_id, leaderboard_id, problem_name, user_id, user_name, code_id, file_name,
// submission_time, status, score, passed, mode, runner, code. Legacy: submission_id,
// leaderboard_id, user_id, submission_time, file_name, code_id, run_id, run_mode, run_score,
// run_passed, run_start_time, run_end_time, code. `code` is marked not required: it is required
// only by a load that reads code.
[[nodiscard]] const std::vector<ModelColumn>& model_columns(SchemaFamily family);

[[nodiscard]] bool is_integer_type(const parquet::ColumnDescriptor& d);
[[nodiscard]] bool is_decimal_type(const parquet::ColumnDescriptor& d);
[[nodiscard]] bool is_floating_type(const parquet::ColumnDescriptor& d);
[[nodiscard]] bool is_text_type(const parquet::ColumnDescriptor& d);
[[nodiscard]] bool is_time_type(const parquet::ColumnDescriptor& d);

// Whether a leaf of this type can hold a value of `role`.
[[nodiscard]] bool accepts(ColumnRole role, const parquet::ColumnDescriptor& d);
// What `role` accepts, for messages ("a timestamp (INT64 TIMESTAMP in ms, us or ns, or INT96)").
[[nodiscard]] const char* expected_types(ColumnRole role);
// The leaf's type for messages: "INT64 (TIMESTAMP(MICROS,UTC))", "FIXED_LEN_BYTE_ARRAY(16) ...".
[[nodiscard]] std::string type_text(const parquet::ColumnDescriptor& d);

// The top-level group (struct, list, map) named `name`, or nullptr.
[[nodiscard]] const parquet::SchemaNode* top_level_node(const parquet::Schema& schema,
                                                        const std::string& name);

// The leaf index of model column `column` in `schema`, or -1 when the file lacks it. Throws
// UnsupportedError (located at the column) when the column is nested or of a type its role does
// not accept, FormatError when it is required and missing.
int open_model_column(const parquet::Schema& schema, const ModelColumn& column);

// Checks every model column of `family` the schema holds, and that the required ones are there
// (code excepted): what a data folder's scan asks before it lists a file as readable.
void check_model_columns(const parquet::Schema& schema, SchemaFamily family);

}  // namespace kbdata::dataset
