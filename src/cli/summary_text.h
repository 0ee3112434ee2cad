// How a command that writes a file tells what it did (dedup, pairs, extract): its summary, a
// one-row result table (query/dedup.h, query/pairs.h, query/extract.h), read by column name and
// rendered as lines for people, a label padded to a column and its value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "result/table.h"

namespace kbdata::cli {

// The first row of `table`, read by column name. Throws std::logic_error for a name the table
// lacks or a cell of another type (a programmer's error).
class SummaryRow {
 public:
  explicit SummaryRow(result::ResultTable& table);

  // A count (INT64); nullopt when null.
  [[nodiscard]] std::optional<int64_t> count(std::string_view column) const;
  // A number (a DOUBLE, SCORE or FACTOR column); nullopt when null.
  [[nodiscard]] std::optional<double> number(std::string_view column) const;
  // A text (STRING); nullopt when null.
  [[nodiscard]] std::optional<std::string> text(std::string_view column) const;

 private:
  [[nodiscard]] const result::Cell& cell(std::string_view column) const;
  std::vector<result::Column> columns_;
  std::vector<result::Cell> cells_;
};

// `label` padded with spaces to `width` bytes, a space, `value` and a newline.
[[nodiscard]] std::string summary_line(std::string_view label, size_t width,
                                       std::string_view value);

}  // namespace kbdata::cli
