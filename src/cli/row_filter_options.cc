#include "cli/row_filter_options.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/cat_command.h"
#include "common/calendar.h"
#include "common/closest_name.h"
#include "common/error.h"
#include "dataset/filter.h"
#include "parquet/file_reader.h"
#include "tabular/row_writer.h"

namespace kbdata::cli {
namespace {

using parquet::ColumnBatch;
using parquet::ColumnDescriptor;
using parquet::CompareOp;
using parquet::FileReader;
using parquet::Literal;

constexpr size_t kBatchRows = 1024;

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

[[noreturn]] void bad(const std::string& text, const std::string& why) {
  throw UsageError("--where '" + text + "': " + why);
}

// A DATE or TIMESTAMP value given as an ISO date or time (as --since takes it), in the column's
// stored unit; nullopt for other columns and for plain integers (the stored value, as before).
std::optional<int64_t> parse_time_literal(const std::string& where, const std::string& value,
                                          const ColumnDescriptor& c) {
  using Kind = parquet::LogicalType::Kind;
  if (c.logical.kind != Kind::TIMESTAMP && c.logical.kind != Kind::DATE) return std::nullopt;
  const size_t digits = !value.empty() && value[0] == '-' ? 1 : 0;
  const bool integer =
      value.size() > digits && value.find_first_not_of("0123456789", digits) == std::string::npos;
  if (integer) return std::nullopt;
  const int64_t micros = dataset::parse_utc_time(value, "--where '" + where + "'");
  if (c.logical.kind == Kind::DATE) return floor_div(micros, kMicrosPerDay);
  switch (c.logical.unit) {
    case parquet::TimeUnit::MILLIS:
      return floor_div(micros, 1000);
    case parquet::TimeUnit::MICROS:
      return micros;
    case parquet::TimeUnit::NANOS:
      if (micros > INT64_MAX / 1000 || micros < INT64_MIN / 1000) {
        bad(where, "'" + value + "' is outside the nanosecond timestamps' range");
      }
      return micros * 1000;
  }
  return micros;
}

Literal parse_literal(const std::string& where, std::string value, const ColumnDescriptor& c) {
  const bool opens = !value.empty() && (value.front() == '\'' || value.front() == '"');
  const bool closes = !value.empty() && (value.back() == '\'' || value.back() == '"');
  if (opens || closes) {
    if (value.size() < 2 || !opens || !closes || value.back() != value.front()) {
      bad(where, "unbalanced quote in " + value);
    }
    value = value.substr(1, value.size() - 2);
  }
  if (std::optional<int64_t> time = parse_time_literal(where, value, c)) return *time;
  using parquet::PhysicalType;
  bool decimal = c.logical.kind == parquet::LogicalType::Kind::DECIMAL;
  if (!decimal && (c.physical == PhysicalType::BYTE_ARRAY ||
                   c.physical == PhysicalType::FIXED_LEN_BYTE_ARRAY)) {
    return value;
  }
  if (c.physical == PhysicalType::BOOLEAN) {
    std::string v = lower(value);
    if (v == "true") return true;
    if (v == "false") return false;
    bad(where, "'" + value + "' is not true or false");
  }
  if (value.empty()) bad(where, "no value");
  const char* begin = value.c_str();
  char* end = nullptr;
  errno = 0;
  long long i = std::strtoll(begin, &end, 10);
  if (errno == 0 && *end == '\0') return static_cast<int64_t>(i);
  errno = 0;
  double d = std::strtod(begin, &end);
  if (*end != '\0' || errno == ERANGE) bad(where, "'" + value + "' is not a number");
  return d;
}

}  // namespace

std::vector<std::string> column_names(const parquet::Schema& schema) {
  std::vector<std::string> names;
  for (const auto& field : schema.root().children) names.push_back(field.name);
  for (const ColumnDescriptor& leaf : schema.leaves()) {
    if (std::find(names.begin(), names.end(), leaf.dotted_path) == names.end()) {
      names.push_back(leaf.dotted_path);
    }
  }
  return names;
}

void refuse_repeated_columns(const std::vector<std::string>& columns) {
  for (size_t i = 0; i < columns.size(); ++i) {
    if (std::find(columns.begin(), columns.begin() + static_cast<std::ptrdiff_t>(i), columns[i]) !=
        columns.begin() + static_cast<std::ptrdiff_t>(i)) {
      throw UsageError("--columns names '" + columns[i] + "' twice");
    }
  }
}

parquet::Predicate parse_where(const std::string& text, const parquet::Schema& schema) {
  parquet::Predicate p;
  std::string t = trim(text);
  std::string low = lower(t);
  auto resolve = [&](const std::string& column) -> const ColumnDescriptor& {
    auto leaf = schema.find_leaf(column);
    if (!leaf) bad(text, "no column '" + column + "'" + did_you_mean(column, column_names(schema)));
    return schema.leaves()[static_cast<size_t>(*leaf)];
  };
  for (const auto& [suffix, op] :
       {std::pair<std::string, CompareOp>{" is not null", CompareOp::IS_NOT_NULL},
        {" is null", CompareOp::IS_NULL}}) {
    if (low.size() > suffix.size() &&
        low.compare(low.size() - suffix.size(), suffix.size(), suffix) == 0) {
      p.column = trim(t.substr(0, t.size() - suffix.size()));
      p.op = op;
      resolve(p.column);
      return p;
    }
  }
  size_t at = t.find_first_of("=!<>");
  if (at == std::string::npos || at == 0) {
    bad(text, "expected 'COLUMN OP VALUE' (OP one of = != < <= > >=) or 'COLUMN is [not] null'");
  }
  p.column = trim(t.substr(0, at));
  std::string rest = t.substr(at);
  static const std::pair<const char*, CompareOp> kOps[] = {
      {"!=", CompareOp::NE}, {"<=", CompareOp::LE}, {">=", CompareOp::GE},
      {"=", CompareOp::EQ},  {"<", CompareOp::LT},  {">", CompareOp::GT}};
  bool found = false;
  for (const auto& [symbol, op] : kOps) {
    std::string s = symbol;
    if (rest.compare(0, s.size(), s) == 0) {
      p.op = op;
      rest = rest.substr(s.size());
      found = true;
      break;
    }
  }
  if (!found) bad(text, "unknown operator");
  const ColumnDescriptor& column = resolve(p.column);
  p.value = parse_literal(text, trim(rest), column);
  return p;
}

}  // namespace kbdata::cli
