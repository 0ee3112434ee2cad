#include "report/text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/closest_name.h"
#include "common/error.h"
#include "common/text.h"
#include "tabular/value_format.h"

namespace kbdata::report {
namespace {

size_t display_width(const std::string& text) {
  size_t points = 0;
  for (unsigned char c : text) {
    if ((c & 0xC0) != 0x80) ++points;
  }
  return points;
}

}  // namespace

Format parse_format(const std::string& text) {
  if (text == "table") return Format::TABLE;
  if (text == "csv") return Format::CSV;
  if (text == "json") return Format::JSON;
  if (text == "jsonl") return Format::JSONL;
  if (text == "parquet") return Format::PARQUET;
  throw UsageError("unknown format '" + text +
                   "'; the formats are table, csv, json, jsonl, parquet");
}

const char* to_string(Format format) {
  switch (format) {
    case Format::TABLE:
      return "table";
    case Format::CSV:
      return "csv";
    case Format::JSON:
      return "json";
    case Format::JSONL:
      return "jsonl";
    case Format::PARQUET:
      return "parquet";
  }
  return "table";
}

std::optional<Format> format_of_name(std::string_view path) {
  const size_t slash = path.find_last_of('/');
  const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  const size_t dot = name.find_last_of('.');
  if (dot == std::string_view::npos || dot == 0) return std::nullopt;  // none, or a hidden name
  const std::string_view extension = name.substr(dot + 1);
  if (equals_ignoring_case(extension, "parquet")) return Format::PARQUET;
  if (equals_ignoring_case(extension, "csv")) return Format::CSV;
  if (equals_ignoring_case(extension, "json")) return Format::JSON;
  if (equals_ignoring_case(extension, "jsonl") || equals_ignoring_case(extension, "ndjson")) {
    return Format::JSONL;
  }
  return std::nullopt;
}

Format output_format(const std::string& given, const std::optional<std::string>& out,
                     Format fallback) {
  const std::optional<Format> named = out ? format_of_name(*out) : std::nullopt;
  if (given.empty()) return named.value_or(fallback);
  const Format format = parse_format(given);
  if (named && *named != format) {
    throw UsageError(OptionName("format", given), " and ", OptionName("out", *out),
                     " disagree: the file's name says ", to_string(*named), "; give one of them");
  }
  return format;
}

std::string format_score(double seconds) {
  if (std::isnan(seconds) || std::isinf(seconds)) return double_text(seconds);
  if (std::fabs(seconds) < 1e-3) return fmt::format("{:.2f} µs", seconds * 1e6);
  if (std::fabs(seconds) < 1.0) return fmt::format("{:.3f} ms", seconds * 1e3);
  return fmt::format("{:.3f} s", seconds);
}

// A string made safe for one table cell: control characters and bidirectional overrides escaped
// (terminal_escape), cut at kTableCellWidth.
namespace {

std::string table_cell_cut(std::string_view text, size_t width) {
  std::string repaired;
  if (!is_valid_utf8(text)) {
    append_utf8_repaired(repaired, text);
    text = repaired;
  }
  std::string out;
  (void)append_table_cell(out, text, width);
  return out;
}

}  // namespace

std::string table_cell(std::string_view text) { return table_cell_cut(text, kTableCellWidth); }

std::string table_cell_whole(std::string_view text) { return table_cell_cut(text, 0); }

std::string terminal_text(std::string_view text, bool keep_layout) {
  std::string repaired;
  if (!is_valid_utf8(text)) {
    append_utf8_repaired(repaired, text);
    text = repaired;
  }
  std::string out;
  append_terminal_safe(out, text, keep_layout);
  return out;
}

std::string time_text(int64_t micros) {
  std::string out;
  tabular::append_timestamp(out, micros, parquet::TimeUnit::MICROS, true);
  return out;
}

std::string people_time_text(int64_t micros) {
  std::string text = time_text(micros);
  if (text.size() >= 19 && text[10] == 'T') text = text.substr(0, 10) + " " + text.substr(11, 8);
  return text;
}

std::string double_text(double v) {
  if (!std::isfinite(v)) return non_finite_text(v);
  std::string out;
  append_double(out, v);
  return out;
}

void append_csv_field(std::string& out, const std::optional<std::string>& value) {
  if (!value) return;  // null: an empty field
  std::string repaired;
  std::string_view text = *value;
  if (!is_valid_utf8(text)) {
    append_utf8_repaired(repaired, *value);
    text = repaired;
  }
  if (csv_needs_quotes(text)) {
    append_csv_quoted(out, text);
  } else {
    out += text;
  }
}

void write_all(std::FILE* out, std::string_view text) {
  if (std::fwrite(text.data(), 1, text.size(), out) != text.size() || std::fflush(out) != 0) {
    IoError error("cannot write the output");
    error.locate_file(out == stdout ? "<stdout>" : "<output>");
    throw error;
  }
}

std::string format_table(const std::vector<std::vector<std::string>>& rows,
                         const std::vector<bool>& right_align) {
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], display_width(row[c]));
  }
  std::string out;
  for (size_t r = 0; r < rows.size(); ++r) {
    const std::vector<std::string>& row = rows[r];
    append_table_line(
        out, std::span<const size_t>(widths.data(), row.size()), right_align,
        [&](size_t c) -> std::string_view { return row[c]; },
        [&](size_t c) { return display_width(row[c]); });
    if (r == 0) append_table_rule(out, widths);
  }
  return out;
}

}  // namespace kbdata::report
