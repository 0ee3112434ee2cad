// `kbdata cat --where 'COL OP VALUE'`: parsing the conditions and printing the rows that satisfy
// them all.
//
// Rows are pruned first (parquet/row_filter.h: row groups by their statistics, pages by the page
// index, pages outside the surviving rows never read), then every remaining row is tested exactly.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "parquet/row_filter.h"

namespace kbdata::parquet {
class FileReader;
}

namespace kbdata::cli {

struct CatOptions;

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

// Prints the rows of `reader` that satisfy every condition of options.where, honouring columns,
// offset (counted in matching rows), limit and format. Flat columns only (UsageError otherwise).
void cat_where(parquet::FileReader& reader, const CatOptions& options, std::FILE* out);

}  // namespace kbdata::cli
