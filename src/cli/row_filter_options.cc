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
  auto floor_div = [](int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); };
  if (c.logical.kind == Kind::DATE) return floor_div(micros, int64_t{86400} * 1000000);
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

void cat_where(FileReader& reader, const CatOptions& options, std::FILE* out) {
  const parquet::Schema& schema = reader.schema();
  std::vector<parquet::Predicate> predicates;
  for (const auto& text : options.where) predicates.push_back(parse_where(text, schema));
  parquet::RowFilter filter(schema, std::move(predicates));

  // Output columns, then the filter's columns not among them: each leaf read once.
  std::vector<int> outputs;
  if (options.columns.empty()) {
    for (size_t i = 0; i < schema.leaves().size(); ++i) outputs.push_back(static_cast<int>(i));
  } else {
    for (const auto& name : options.columns) {
      auto leaf = schema.find_leaf(name);
      if (!leaf) {
        throw UsageError("no column '" + name + "'" + did_you_mean(name, column_names(schema)));
      }
      outputs.push_back(*leaf);
    }
  }
  std::vector<int> leaves;
  auto slot_of = [&](int leaf) {
    auto it = std::find(leaves.begin(), leaves.end(), leaf);
    if (it != leaves.end()) return static_cast<size_t>(it - leaves.begin());
    leaves.push_back(leaf);
    return leaves.size() - 1;
  };
  std::vector<size_t> output_slots, filter_slots;
  for (int leaf : outputs) output_slots.push_back(slot_of(leaf));
  for (size_t i = 0; i < filter.predicates().size(); ++i)
    filter_slots.push_back(slot_of(filter.leaf(i)));
  std::vector<const ColumnDescriptor*> descriptors;
  for (int leaf : leaves) {
    const ColumnDescriptor& c = schema.leaves()[static_cast<size_t>(leaf)];
    if (c.max_rep > 0) {
      throw UsageError("--where reads flat columns only; '" + c.dotted_path + "' is repeated");
    }
  }
  for (int leaf : outputs) descriptors.push_back(&schema.leaves()[static_cast<size_t>(leaf)]);

  tabular::FileSink sink(out, "<stdout>");
  tabular::RowWriter writer(options.format, descriptors, sink);
  uint64_t to_skip = options.offset;
  uint64_t to_print = options.limit.value_or(UINT64_MAX);
  std::vector<ColumnBatch> batches(leaves.size());
  std::vector<const ColumnBatch*> output_batches;
  for (size_t slot : output_slots) output_batches.push_back(&batches[slot]);
  // Per filter column: row -> index of its value in the batch, or -1 for null.
  std::vector<std::vector<int64_t>> value_index(filter_slots.size());

  for (int g = 0; g < reader.num_row_groups() && to_print > 0; ++g) {
    const int64_t group_rows = reader.metadata().row_groups[static_cast<size_t>(g)].num_rows;
    parquet::RowRanges ranges = filter.row_group_ranges(reader, g);
    if (ranges.empty()) continue;
    bool whole = ranges.size() == 1 && ranges[0].begin == 0 && ranges[0].end == group_rows;
    uint64_t rows_left = 0;
    for (const auto& r : ranges) rows_left += static_cast<uint64_t>(r.end - r.begin);
    std::vector<std::unique_ptr<parquet::ColumnReader>> columns;
    for (int leaf : leaves) {
      columns.push_back(reader.column(g, leaf));
      if (!whole) {
        std::optional<parquet::OffsetIndex> index = reader.offset_index(g, leaf);
        columns.back()->select_rows(ranges, index ? &*index : nullptr, group_rows);
      }
    }
    size_t batch_rows = kBatchRows;
    while (rows_left > 0 && to_print > 0) {
      size_t want = static_cast<size_t>(std::min<uint64_t>(batch_rows, rows_left));
      size_t short_at = columns.size();  // the first column that returned fewer rows
      size_t got = want;
      for (size_t c = 0; c < columns.size() && short_at == columns.size(); ++c) {
        got = columns[c]->read_batch(want, batches[c]);
        // Only a whole row group's batches end early (for the batch cap on values; selected
        // rows never do): anything else is a chunk that ends too soon.
        if (got == 0 || (got < want && !whole)) {
          FormatError error("column chunk ends before the row group's " +
                            std::to_string(group_rows) + " rows");
          error.locate_column(columns[c]->column().dotted_path);
          error.locate_row_group(g);
          throw error;
        }
        if (got < want) short_at = c;
      }
      if (short_at < columns.size()) {
        // As in cat (stream_rows): the column kept its values under the batch cap; read this
        // batch again with as many rows as it gave, for the rest of the row group.
        batch_rows = got;
        const uint64_t rows_done = static_cast<uint64_t>(group_rows) - rows_left;
        for (size_t c = 0; c <= short_at; ++c) {
          columns[c].reset();
          columns[c] = reader.column(g, leaves[c]);
          if (rows_done > 0) columns[c]->skip(rows_done);
        }
        continue;
      }
      for (size_t i = 0; i < filter_slots.size(); ++i) {
        const ColumnBatch& b = batches[filter_slots[i]];
        int max_def = columns[filter_slots[i]]->column().max_def;
        auto& index = value_index[i];
        index.assign(want, -1);
        int64_t next = 0;
        for (size_t r = 0; r < want; ++r) {
          if (max_def == 0 || b.def_levels[r] == max_def) index[r] = next++;
        }
      }
      auto matches = [&](size_t r) {
        for (size_t i = 0; i < filter_slots.size(); ++i) {
          const ColumnBatch& b = batches[filter_slots[i]];
          int64_t v = value_index[i][r];
          std::optional<std::span<const uint8_t>> value;
          if (v >= 0) value = b.values.bytes(static_cast<size_t>(v));
          if (!filter.matches(i, value)) return false;
        }
        return true;
      };
      // Write each run of matching rows, after the offset and within the limit.
      for (size_t r = 0; r < want && to_print > 0;) {
        if (!matches(r)) {
          ++r;
          continue;
        }
        size_t end = r + 1;
        while (end < want && matches(end)) ++end;
        size_t count = end - r;
        size_t skip = static_cast<size_t>(std::min<uint64_t>(to_skip, count));
        to_skip -= skip;
        size_t print = static_cast<size_t>(std::min<uint64_t>(to_print, count - skip));
        if (print > 0) {
          writer.write(std::span<const ColumnBatch* const>(output_batches), r + skip, print);
          to_print -= print;
        }
        r = end;
      }
      rows_left -= want;
    }
  }
  writer.finish();
}

}  // namespace kbdata::cli
