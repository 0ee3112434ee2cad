// `kbdata cat --where 'COL OP VALUE'`: parsing the conditions (cat_command.cc scans the rows that
// satisfy them all; parquet/row_filter.h prunes by statistics and page indexes).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "parquet/row_filter.h"

namespace kbdata::parquet {
class FileReader;
}

namespace kbdata::cli {

// Every name --columns and --where take for `schema`: its top-level fields, then its leaves'
// dotted paths (for "did you mean").
[[nodiscard]] std::vector<std::string> column_names(const parquet::Schema& schema);

// UsageError when `columns` (--columns) names a column twice.
void refuse_repeated_columns(const std::vector<std::string>& columns);

// Parses one condition: `COL OP VALUE` with OP one of = != < <= > >=, or `COL is null`, `COL is
// not null` (keywords in any case). VALUE may be quoted with '...' or "..."; it is read as the
// column's type: text for strings and binaries, true/false for BOOLEAN, a number otherwise
// (DECIMAL as its decimal value; DATE, TIME and TIMESTAMP as the stored integer). Throws
// UsageError naming the condition if it cannot be parsed or does not fit the column.
[[nodiscard]] parquet::Predicate parse_where(const std::string& text,
                                             const parquet::Schema& schema);

}  // namespace kbdata::cli
