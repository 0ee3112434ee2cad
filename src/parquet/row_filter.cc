#include "parquet/row_filter.h"

#include <cmath>
#include <cstring>
#include <string>

#include "common/error.h"
#include "parquet/file_reader.h"
#include "parquet/metadata.h"

namespace kbdata::parquet {
namespace {

std::optional<long double> numeric(const Literal& literal) {
  if (const auto* i = std::get_if<int64_t>(&literal)) return static_cast<long double>(*i);
  if (const auto* d = std::get_if<double>(&literal)) {
    if (std::isnan(*d)) return std::nullopt;
    return static_cast<long double>(*d);
  }
  return std::nullopt;
}

template <typename T>
int three_way(T a, T b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

template <typename T>
T load(std::span<const uint8_t> bytes) {
  T value;
  std::memcpy(&value, bytes.data(), sizeof(T));
  return value;
}

std::span<const uint8_t> as_bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;

bool is_comparison(CompareOp op) {
  return op != CompareOp::IS_NULL && op != CompareOp::IS_NOT_NULL;
}

}  // namespace

RowFilter::RowFilter(const Schema& schema, std::vector<Predicate> predicates)
    : predicates_(std::move(predicates)) {
  for (const Predicate& p : predicates_) {
    std::optional<int> leaf = schema.find_leaf(p.column);
    if (!leaf) throw UsageError("no column '" + p.column + "' to filter on");
    Bound b;
    b.leaf = *leaf;
    b.column = &schema.leaves()[static_cast<size_t>(*leaf)];
    const ColumnDescriptor& c = *b.column;
    if (c.max_rep > 0) {
      throw UsageError("cannot filter on repeated column '" + p.column + "'");
    }
    using K = LogicalType::Kind;
    if (c.logical.kind == K::DECIMAL) {
      b.order = Order::DECIMAL;
    } else if (c.converted == ConvertedType::INTERVAL || c.logical.kind == K::FLOAT16) {
      b.order = Order::NONE;
    } else {
      switch (c.physical) {
        case PhysicalType::INT32:
        case PhysicalType::INT64:
          b.order = c.logical.kind == K::INTEGER && !c.logical.is_signed ? Order::UNSIGNED
                                                                         : Order::SIGNED;
          break;
        case PhysicalType::FLOAT:
        case PhysicalType::DOUBLE:
          b.order = Order::FLOATING;
          break;
        case PhysicalType::BOOLEAN:
          b.order = Order::BOOL;
          break;
        case PhysicalType::BYTE_ARRAY:
        case PhysicalType::FIXED_LEN_BYTE_ARRAY:
          b.order = Order::BYTES;
          break;
        case PhysicalType::INT96:
          b.order = Order::NONE;
          break;
      }
    }
    if (is_comparison(p.op)) {
      if (b.order == Order::NONE) {
        throw UsageError("column '" + p.column + "' has a type that cannot be compared");
      }
      auto fits = [&](const Literal& l) {
        switch (b.order) {
          case Order::BYTES:
            return std::holds_alternative<std::string>(l);
          case Order::BOOL:
            return std::holds_alternative<bool>(l);
          default:
            return std::holds_alternative<int64_t>(l) || std::holds_alternative<double>(l);
        }
      };
      if (!fits(p.value) || (p.op == CompareOp::BETWEEN && !fits(p.upper))) {
        throw UsageError("the value compared with column '" + p.column +
                         "' does not fit its type " + to_string(c.physical));
      }
    }
    bound_.push_back(b);
  }
}

std::optional<int> RowFilter::compare(const Bound& b, std::span<const uint8_t> value,
                                      const Literal& literal) const {
  const ColumnDescriptor& c = *b.column;
  switch (b.order) {
    case Order::BYTES: {
      const auto& text = std::get<std::string>(literal);
      if (c.physical == PhysicalType::FIXED_LEN_BYTE_ARRAY &&
          value.size() != static_cast<size_t>(c.type_length)) {
        return std::nullopt;
      }
      size_t n = std::min(value.size(), text.size());
      int r = n == 0 ? 0 : std::memcmp(value.data(), text.data(), n);
      if (r != 0) return r < 0 ? -1 : 1;
      return three_way(value.size(), text.size());
    }
    case Order::BOOL: {
      if (value.size() != 1) return std::nullopt;
      return three_way<int>(value[0] != 0, std::get<bool>(literal) ? 1 : 0);
    }
    case Order::SIGNED:
    case Order::UNSIGNED:
    case Order::FLOATING: {
      auto lit = numeric(literal);
      if (!lit) return std::nullopt;
      long double v;
      if (c.physical == PhysicalType::INT32 && value.size() == 4) {
        v = b.order == Order::SIGNED ? static_cast<long double>(load<int32_t>(value))
                                     : static_cast<long double>(load<uint32_t>(value));
      } else if (c.physical == PhysicalType::INT64 && value.size() == 8) {
        v = b.order == Order::SIGNED ? static_cast<long double>(load<int64_t>(value))
                                     : static_cast<long double>(load<uint64_t>(value));
      } else if (c.physical == PhysicalType::FLOAT && value.size() == 4) {
        v = load<float>(value);
      } else if (c.physical == PhysicalType::DOUBLE && value.size() == 8) {
        v = load<double>(value);
      } else {
        return std::nullopt;
      }
      if (std::isnan(v)) return std::nullopt;
      return three_way(v, *lit);
    }
    case Order::DECIMAL: {
      auto lit = numeric(literal);
      if (!lit) return std::nullopt;
      Int128 unscaled = 0;
      if (c.physical == PhysicalType::INT32 && value.size() == 4) {
        unscaled = load<int32_t>(value);
      } else if (c.physical == PhysicalType::INT64 && value.size() == 8) {
        unscaled = load<int64_t>(value);
      } else if ((c.physical == PhysicalType::BYTE_ARRAY ||
                  c.physical == PhysicalType::FIXED_LEN_BYTE_ARRAY) &&
                 !value.empty() && value.size() <= 16) {
        // Big-endian two's complement: sign-extend from the first byte.
        unscaled = (value[0] & 0x80) ? -1 : 0;
        for (uint8_t byte : value) {
          unscaled = static_cast<Int128>(static_cast<UInt128>(unscaled) << 8) | byte;
        }
      } else {
        return std::nullopt;
      }
      // In double, as a decimal literal parsed from text is: both sides are then the nearest
      // double to their decimal value, so equal decimals compare equal.
      double v = static_cast<double>(unscaled) /
                 std::pow(10.0, static_cast<double>(c.logical.decimal_scale));
      return three_way(static_cast<long double>(v),
                       static_cast<long double>(static_cast<double>(*lit)));
    }
    case Order::NONE:
      return std::nullopt;
  }
  return std::nullopt;
}

bool RowFilter::matches(size_t i, std::optional<std::span<const uint8_t>> value) const {
  const Predicate& p = predicates_[i];
  if (!value) return p.op == CompareOp::IS_NULL;
  if (p.op == CompareOp::IS_NULL) return false;
  if (p.op == CompareOp::IS_NOT_NULL) return true;
  std::optional<int> c = compare(bound_[i], *value, p.value);
  if (!c) return p.op == CompareOp::NE;  // NaN or a malformed value: only != holds
  switch (p.op) {
    case CompareOp::EQ:
      return *c == 0;
    case CompareOp::NE:
      return *c != 0;
    case CompareOp::LT:
      return *c < 0;
    case CompareOp::LE:
      return *c <= 0;
    case CompareOp::GT:
      return *c > 0;
    case CompareOp::GE:
      return *c >= 0;
    case CompareOp::BETWEEN: {
      if (*c < 0) return false;
      std::optional<int> u = compare(bound_[i], *value, p.upper);
      return u && *u <= 0;
    }
    default:
      return false;
  }
}

bool RowFilter::may_match_range(size_t i, const std::optional<std::string>& min,
                                const std::optional<std::string>& max) const {
  const Predicate& p = predicates_[i];
  const Bound& b = bound_[i];
  if (!is_comparison(p.op)) return true;
  auto cmp = [&](const std::optional<std::string>& bound, const Literal& l) -> std::optional<int> {
    if (!bound) return std::nullopt;
    return compare(b, as_bytes(*bound), l);
  };
  std::optional<int> min_v = cmp(min, p.value);
  std::optional<int> max_v = cmp(max, p.value);
  // A bound that is present but not a valid value (NaN, wrong size) discredits both.
  if ((min && !min_v) || (max && !max_v)) return true;
  switch (p.op) {
    case CompareOp::EQ:
      return !((min_v && *min_v > 0) || (max_v && *max_v < 0));
    case CompareOp::NE:
      // All values equal the literal only if min == max == literal. Not for floating point,
      // whose statistics leave NaN out (and NaN != x holds).
      return b.order == Order::FLOATING || !(min_v && *min_v == 0 && max_v && *max_v == 0);
    case CompareOp::LT:
      return !(min_v && *min_v >= 0);
    case CompareOp::LE:
      return !(min_v && *min_v > 0);
    case CompareOp::GT:
      return !(max_v && *max_v <= 0);
    case CompareOp::GE:
      return !(max_v && *max_v < 0);
    case CompareOp::BETWEEN: {
      std::optional<int> min_upper = cmp(min, p.upper);
      return !((max_v && *max_v < 0) || (min_upper && *min_upper > 0));
    }
    default:
      return true;
  }
}

RowRanges RowFilter::chunk_ranges(FileReader& reader, int row_group, size_t i) const {
  const Predicate& p = predicates_[i];
  const Bound& b = bound_[i];
  const RowGroup& group = reader.metadata().row_groups[static_cast<size_t>(row_group)];
  const int64_t rows = group.num_rows;
  RowRanges all;
  append_range(all, 0, rows);
  const ColumnChunk& chunk = group.columns[static_cast<size_t>(b.leaf)];
  if (!chunk.meta_data) return all;
  const ColumnMetaData& meta = *chunk.meta_data;

  // Row group statistics.
  if (meta.statistics) {
    const Statistics& s = *meta.statistics;
    bool all_null = s.null_count && *s.null_count == meta.num_values && meta.num_values == rows;
    if (p.op == CompareOp::IS_NULL && s.null_count && *s.null_count == 0) return {};
    if (p.op != CompareOp::IS_NULL && all_null) return {};
    if (is_comparison(p.op)) {
      std::optional<std::string> min = s.min_value, max = s.max_value;
      bool legacy_ok =
          b.order == Order::SIGNED || b.order == Order::FLOATING || b.order == Order::BOOL;
      if (!s.min_value && !s.max_value && legacy_ok) {
        min = s.min;
        max = s.max;
      }
      if (!may_match_range(i, min, max)) return {};
    }
  }

  // Page index: needs both the offsets (rows of each page) and the column index (stats).
  std::optional<OffsetIndex> offsets = reader.offset_index(row_group, b.leaf);
  if (!offsets) return all;
  std::optional<ColumnIndex> index = reader.column_index(row_group, b.leaf);
  if (!index) return all;
  check_page_counts(*offsets, *index, chunk.column_index_offset.value_or(0));
  RowRanges out;
  for (size_t page = 0; page < offsets->page_locations.size(); ++page) {
    int64_t first = offsets->page_locations[page].first_row_index;
    int64_t count = page_row_count(*offsets, page, rows);
    bool keep = true;
    bool null_page = index->null_pages[page];
    std::optional<int64_t> nulls;
    if (index->null_counts) nulls = (*index->null_counts)[page];
    switch (p.op) {
      case CompareOp::IS_NULL:
        keep = !(nulls && *nulls == 0) || null_page;
        break;
      case CompareOp::IS_NOT_NULL:
        keep = !null_page && !(nulls && *nulls == count);
        break;
      default:
        keep = !null_page && !(nulls && *nulls == count) &&
               may_match_range(i, index->min_values[page], index->max_values[page]);
    }
    if (keep) append_range(out, first, first + count);
  }
  return out;
}

RowRanges RowFilter::row_group_ranges(FileReader& reader, int row_group) const {
  const RowGroup& group = reader.metadata().row_groups.at(static_cast<size_t>(row_group));
  RowRanges ranges;
  append_range(ranges, 0, group.num_rows);
  for (size_t i = 0; i < predicates_.size() && !ranges.empty(); ++i) {
    ranges = intersect(ranges, chunk_ranges(reader, row_group, i));
  }
  return ranges;
}

}  // namespace kbdata::parquet
