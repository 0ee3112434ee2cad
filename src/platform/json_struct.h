// The legacy schema's nested struct columns (run_compilation, run_meta, run_result,
// run_system_info; docs/dataset.md §4.2) built from the runs' jsonb values: the union of the keys
// seen, one typed field per key, missing keys null, null and empty objects a null struct.
//
// A field's type comes from the jsonb values of its key: all strings -> STRING, all booleans ->
// BOOLEAN, all numbers -> INT64 when every one is integral and within int64, else DOUBLE; a key
// that only ever holds null -> STRING. What a struct cannot hold is an error naming the run:
// a value that is not an object, a nested object or array, a key with two types.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parquet/write/row_file_writer.h"
#include "platform/connection.h"

namespace kbdata::platform {

struct StructShape {
  std::string column;  // the Parquet column, e.g. "run_meta"
  std::string source;  // the jsonb column of leaderboard.runs, e.g. "meta"
  // By key, in byte order: STRING, INT64, DOUBLE or BOOLEAN.
  std::vector<std::pair<std::string, parquet::FieldType>> fields;
};

// Finds the shape of `source` over the runs that `runs_from_where` selects (SQL text after
// SELECT ...: "FROM leaderboard.runs r JOIN ... WHERE ...", with the runs aliased `r`). Throws
// DatabaseError naming a run whose value the struct cannot hold.
[[nodiscard]] StructShape discover_struct(Connection& db, const std::string& column,
                                          const std::string& source,
                                          const std::string& runs_from_where);

// The struct's field: an OPTIONAL group of one OPTIONAL leaf per field. A shape without fields (no
// run had a non-empty object) has none: the column is left out.
[[nodiscard]] std::optional<parquet::Field> struct_field(const StructShape& shape);

// Gives one run's value (jsonb text, or nullopt for SQL null) to the struct's leaves in `out`,
// which start at leaf `first_leaf`. Throws FormatError naming the run if the value does not fit
// the shape.
void append_struct_value(const StructShape& shape, std::optional<std::string_view> json,
                         parquet::RowFileWriter& out, size_t first_leaf, int64_t run_id);

}  // namespace kbdata::platform
