#include "cli/summary_text.h"

#include <stdexcept>
#include <variant>

namespace kbdata::cli {

SummaryRow::SummaryRow(result::ResultTable& table) : columns_(table.columns()) {
  table.visit([](const std::string&) {},
              [&](std::vector<result::Cell>&& cells, const result::ResultTable::Leaderboard*) {
                if (cells_.empty()) cells_ = std::move(cells);
              });
  if (cells_.empty()) throw std::logic_error("SummaryRow: the summary has no row");
}

const result::Cell& SummaryRow::cell(std::string_view column) const {
  for (size_t i = 0; i < columns_.size(); ++i) {
    if (columns_[i].name == column) return cells_[i];
  }
  throw std::logic_error("SummaryRow: no column " + std::string(column));
}

std::optional<int64_t> SummaryRow::count(std::string_view column) const {
  const result::Cell& c = cell(column);
  if (std::holds_alternative<std::monostate>(c)) return std::nullopt;
  return std::get<int64_t>(c);
}

std::optional<double> SummaryRow::number(std::string_view column) const {
  const result::Cell& c = cell(column);
  if (std::holds_alternative<std::monostate>(c)) return std::nullopt;
  return std::get<double>(c);
}

std::optional<std::string> SummaryRow::text(std::string_view column) const {
  const result::Cell& c = cell(column);
  if (std::holds_alternative<std::monostate>(c)) return std::nullopt;
  return std::get<std::string>(c);
}

std::string summary_line(std::string_view label, size_t width, std::string_view value) {
  std::string line(label);
  if (line.size() < width) line.append(width - line.size(), ' ');
  line += ' ';
  line += value;
  line += '\n';
  return line;
}

}  // namespace kbdata::cli
