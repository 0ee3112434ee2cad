// Small helpers the commands share for writing results: the output formats, how one value reads
// in a table, a CSV field or a JSON string, and the aligned table itself.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/text.h"

namespace kbdata::report {

// The formats of the data commands (`--format`). Tables are for people; the others carry exact
// values (scores in seconds, times in ISO 8601 UTC).
enum class Format { TABLE, CSV, JSON, JSONL, PARQUET };

// Parses table|csv|json|jsonl|parquet (UsageError otherwise).
[[nodiscard]] Format parse_format(const std::string& text);
// "table", "csv", "json", "jsonl", "parquet".
[[nodiscard]] const char* to_string(Format format);

// The format a file's name names (docs/cli.md, "Output files"), by its extension, ASCII case
// ignored: .parquet PARQUET, .csv CSV, .json JSON, .jsonl and .ndjson JSONL; nullopt for any
// other name (a table has no extension of its own).
[[nodiscard]] std::optional<Format> format_of_name(std::string_view path);

// The one rule of a command's output format (docs/cli.md, "Output files"): `given` (--format as
// typed; empty when it was not given) when there is one, else the format `out`'s name names, else
// `fallback` (the command's default). Throws UsageError for an unknown `given`, and when `given`
// and `out`'s name name two different formats (`--format csv --out x.parquet`).
[[nodiscard]] Format output_format(const std::string& given, const std::optional<std::string>& out,
                                   Format fallback = Format::TABLE);

// Writes all of `text` to `out`; throws kbdata::IoError naming the stream on failure.
void write_all(std::FILE* out, std::string_view text);

// Aligns rows (the first is the header) into columns two spaces apart, with a dashed line under
// the header; columns flagged in `right_align` are right-aligned. Widths count code points.
[[nodiscard]] std::string format_table(const std::vector<std::vector<std::string>>& rows,
                                       const std::vector<bool>& right_align);

// Seconds as µs with 2 decimals below 1 ms, ms with 3 decimals below 1 s, else s with 3 decimals
// (docs/dataset.md §5 format_score): "52.30 µs", "1.234 ms", "2.500 s".
[[nodiscard]] std::string format_score(double seconds);

// A string made safe for one table cell: invalid UTF-8 replaced, control characters and
// bidirectional overrides escaped (common/text.h terminal_escape), cut at 40 code points with "…".
[[nodiscard]] std::string table_cell(std::string_view text);
// The same, never cut (a list a reader needs whole: the rules an audit fired, their evidence).
[[nodiscard]] std::string table_cell_whole(std::string_view text);

// `text` made safe for a terminal, whole (no cut): invalid UTF-8 replaced and what
// terminal_escape names escaped; with `keep_layout`, newlines and tabs kept (code).
[[nodiscard]] std::string terminal_text(std::string_view text, bool keep_layout);

// µs since the epoch as ISO 8601 UTC ("2025-11-02T10:00:00.000000Z").
[[nodiscard]] std::string time_text(int64_t micros);
// A time for people, in seconds: "2025-12-18 01:43:44" (UTC); tables and the web explorer's pages.
[[nodiscard]] std::string people_time_text(int64_t micros);

// The shortest text that reads back as `v`; NaN and infinities as NaN / Infinity / -Infinity.
[[nodiscard]] std::string double_text(double v);

// `text` as a JSON string (invalid UTF-8 replaced by U+FFFD): common/text.h's one rule.
using kbdata::append_json_text;

// One CSV field (RFC 4180 quoting when needed; nullopt, a null, is an empty field).
void append_csv_field(std::string& out, const std::optional<std::string>& value);

}  // namespace kbdata::report
