#include "parquet/statistics.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <optional>

namespace kbdata::parquet {
namespace {

using Kind = StatisticsCollector::Kind;

bool is_decimal(const ColumnDescriptor& column) {
  return column.logical.kind == LogicalType::Kind::DECIMAL ||
         column.converted == ConvertedType::DECIMAL;
}

bool is_unsigned_integer(const ColumnDescriptor& column) {
  if (column.logical.kind == LogicalType::Kind::INTEGER) return !column.logical.is_signed;
  if (!column.converted) return false;
  switch (*column.converted) {
    case ConvertedType::UINT_8:
    case ConvertedType::UINT_16:
    case ConvertedType::UINT_32:
    case ConvertedType::UINT_64:
      return true;
    default:
      return false;
  }
}

Kind kind_of(const ColumnDescriptor& column) {
  const SortOrder order = sort_order(column);
  if (order == SortOrder::UNDEFINED) return Kind::NONE;
  const bool is_signed = order == SortOrder::SIGNED;
  switch (column.physical) {
    case PhysicalType::BOOLEAN:
      return Kind::BOOLEAN;
    case PhysicalType::INT32:
      return is_signed ? Kind::INT32 : Kind::UINT32;
    case PhysicalType::INT64:
      return is_signed ? Kind::INT64 : Kind::UINT64;
    case PhysicalType::FLOAT:
      return Kind::FLOAT;
    case PhysicalType::DOUBLE:
      return Kind::DOUBLE;
    case PhysicalType::BYTE_ARRAY:
      return is_signed ? Kind::DECIMAL_BYTES : Kind::BYTES;
    case PhysicalType::FIXED_LEN_BYTE_ARRAY:
      if (column.logical.kind == LogicalType::Kind::FLOAT16) return Kind::FLOAT16;
      return is_signed ? Kind::DECIMAL_BYTES : Kind::BYTES;
    default:
      return Kind::NONE;
  }
}

template <typename T>
T load(std::string_view bytes) {
  assert(bytes.size() == sizeof(T));
  T value;
  std::memcpy(&value, bytes.data(), sizeof(T));
  return value;
}

template <typename T>
std::string_view bytes_of(const T& value) {
  return {reinterpret_cast<const char*>(&value), sizeof(T)};
}

template <typename T>
int three_way(T a, T b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

// A half float's order key: its magnitude bits grow with its magnitude (IEEE 754), and both zeros
// map to 0. REQUIRES: not NaN.
int half_key(uint16_t bits) {
  const int magnitude = bits & 0x7FFF;
  return (bits & 0x8000) != 0 ? -magnitude : magnitude;
}

bool half_is_nan(uint16_t bits) { return (bits & 0x7FFF) > 0x7C00; }

// Unsigned bytewise, a prefix before the longer value.
int compare_bytes(std::string_view a, std::string_view b) {
  const size_t common = std::min(a.size(), b.size());
  if (common > 0) {
    const int c = std::memcmp(a.data(), b.data(), common);
    if (c != 0) return c < 0 ? -1 : 1;
  }
  return three_way(a.size(), b.size());
}

// Big-endian two's complement integers of any lengths (empty is zero): opposite signs order by
// sign; equal signs compare bytewise once the shorter is sign-extended to the longer's length.
int compare_decimal(std::string_view a, std::string_view b) {
  const bool a_negative = !a.empty() && (static_cast<uint8_t>(a[0]) & 0x80) != 0;
  const bool b_negative = !b.empty() && (static_cast<uint8_t>(b[0]) & 0x80) != 0;
  if (a_negative != b_negative) return a_negative ? -1 : 1;
  const uint8_t pad = a_negative ? 0xFF : 0x00;
  const size_t n = std::max(a.size(), b.size());
  const size_t a_pad = n - a.size();
  const size_t b_pad = n - b.size();
  for (size_t i = 0; i < n; ++i) {
    const uint8_t x = i < a_pad ? pad : static_cast<uint8_t>(a[i - a_pad]);
    const uint8_t y = i < b_pad ? pad : static_cast<uint8_t>(b[i - b_pad]);
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

int compare_kind(Kind kind, std::string_view a, std::string_view b) {
  switch (kind) {
    case Kind::BOOLEAN:
      return three_way(static_cast<uint8_t>(a[0]) != 0, static_cast<uint8_t>(b[0]) != 0);
    case Kind::INT32:
      return three_way(load<int32_t>(a), load<int32_t>(b));
    case Kind::UINT32:
      return three_way(load<uint32_t>(a), load<uint32_t>(b));
    case Kind::INT64:
      return three_way(load<int64_t>(a), load<int64_t>(b));
    case Kind::UINT64:
      return three_way(load<uint64_t>(a), load<uint64_t>(b));
    case Kind::FLOAT:
      return three_way(load<float>(a), load<float>(b));
    case Kind::DOUBLE:
      return three_way(load<double>(a), load<double>(b));
    case Kind::FLOAT16:
      return three_way(half_key(load<uint16_t>(a)), half_key(load<uint16_t>(b)));
    case Kind::BYTES:
      return compare_bytes(a, b);
    case Kind::DECIMAL_BYTES:
      return compare_decimal(a, b);
    case Kind::NONE:
      break;
  }
  assert(false && "compare_values on a column without a sort order");
  return 0;
}

template <typename T>
struct Range {
  T lo;
  T hi;
};

// Min and max of `n` integers at `data`; REQUIRES n > 0.
template <typename T>
Range<T> integer_range(const uint8_t* data, size_t n) {
  T first;
  std::memcpy(&first, data, sizeof(T));
  Range<T> range{first, first};
  for (size_t i = 1; i < n; ++i) {
    T value;
    std::memcpy(&value, data + i * sizeof(T), sizeof(T));
    range.lo = value < range.lo ? value : range.lo;
    range.hi = value > range.hi ? value : range.hi;
  }
  return range;
}

// Min and max of the non-NaN floats among `n` at `data`, with a zero min as -0.0 and a zero max
// as +0.0; nullopt if all are NaN.
template <typename T>
std::optional<Range<T>> float_range(const uint8_t* data, size_t n) {
  size_t i = 0;
  T first{};
  for (; i < n; ++i) {
    std::memcpy(&first, data + i * sizeof(T), sizeof(T));
    if (!std::isnan(first)) break;
  }
  if (i == n) return std::nullopt;
  Range<T> range{first, first};
  for (++i; i < n; ++i) {
    T value;
    std::memcpy(&value, data + i * sizeof(T), sizeof(T));
    if (std::isnan(value)) continue;
    range.lo = value < range.lo ? value : range.lo;
    range.hi = value > range.hi ? value : range.hi;
  }
  if (range.lo == T{0}) range.lo = -T{0};
  if (range.hi == T{0}) range.hi = T{0};
  return range;
}

// The same for half floats (bits), zeros written as 0x8000 (min) and 0x0000 (max).
std::optional<Range<uint16_t>> half_range(const uint8_t* data, size_t n) {
  std::optional<Range<uint16_t>> range;
  int lo_key = 0;
  int hi_key = 0;
  for (size_t i = 0; i < n; ++i) {
    uint16_t value;
    std::memcpy(&value, data + i * 2, 2);
    if (half_is_nan(value)) continue;
    const int key = half_key(value);
    if (!range) {
      range = Range<uint16_t>{value, value};
      lo_key = hi_key = key;
      continue;
    }
    if (key < lo_key) {
      range->lo = value;
      lo_key = key;
    }
    if (key > hi_key) {
      range->hi = value;
      hi_key = key;
    }
  }
  if (range) {
    if (lo_key == 0) range->lo = 0x8000;
    if (hi_key == 0) range->hi = 0x0000;
  }
  return range;
}

}  // namespace

SortOrder sort_order(const ColumnDescriptor& column) {
  switch (column.physical) {
    case PhysicalType::BOOLEAN:
      return SortOrder::UNSIGNED;
    case PhysicalType::INT32:
    case PhysicalType::INT64:
      return is_unsigned_integer(column) ? SortOrder::UNSIGNED : SortOrder::SIGNED;
    case PhysicalType::FLOAT:
    case PhysicalType::DOUBLE:
      return SortOrder::SIGNED;
    case PhysicalType::BYTE_ARRAY:
    case PhysicalType::FIXED_LEN_BYTE_ARRAY:
      if (is_decimal(column)) return SortOrder::SIGNED;
      switch (column.logical.kind) {
        case LogicalType::Kind::FLOAT16:
          // The spec defines FLOAT16 on FIXED_LEN_BYTE_ARRAY(2) only.
          return column.physical == PhysicalType::FIXED_LEN_BYTE_ARRAY && column.type_length == 2
                     ? SortOrder::SIGNED
                     : SortOrder::UNDEFINED;
        case LogicalType::Kind::GEOMETRY:
        case LogicalType::Kind::GEOGRAPHY:
          return SortOrder::UNDEFINED;
        default:
          break;
      }
      if (column.converted == ConvertedType::INTERVAL) return SortOrder::UNDEFINED;
      return SortOrder::UNSIGNED;
    default:  // INT96
      return SortOrder::UNDEFINED;
  }
}

int compare_values(const ColumnDescriptor& column, std::string_view a, std::string_view b) {
  return compare_kind(kind_of(column), a, b);
}

StatisticsCollector::StatisticsCollector(const ColumnDescriptor& column)
    : kind_(kind_of(column)), physical_(column.physical) {}

void StatisticsCollector::update(const ValueBuffer& values, size_t begin, size_t end) {
  assert(values.type == physical_);
  assert(begin <= end && end <= values.count);
  if (begin >= end) return;
  const size_t n = end - begin;
  const uint8_t* data = values.data.data() + begin * static_cast<size_t>(values.width);
  switch (kind_) {
    case Kind::NONE:
      return;
    case Kind::BOOLEAN: {
      bool any_false = false;
      bool any_true = false;
      for (size_t i = 0; i < n; ++i) {
        if (data[i] != 0) {
          any_true = true;
        } else {
          any_false = true;
        }
      }
      const uint8_t lo = any_false ? 0 : 1;
      const uint8_t hi = any_true ? 1 : 0;
      offer(bytes_of(lo), bytes_of(hi));
      return;
    }
    case Kind::INT32: {
      const auto range = integer_range<int32_t>(data, n);
      offer(bytes_of(range.lo), bytes_of(range.hi));
      return;
    }
    case Kind::UINT32: {
      const auto range = integer_range<uint32_t>(data, n);
      offer(bytes_of(range.lo), bytes_of(range.hi));
      return;
    }
    case Kind::INT64: {
      const auto range = integer_range<int64_t>(data, n);
      offer(bytes_of(range.lo), bytes_of(range.hi));
      return;
    }
    case Kind::UINT64: {
      const auto range = integer_range<uint64_t>(data, n);
      offer(bytes_of(range.lo), bytes_of(range.hi));
      return;
    }
    case Kind::FLOAT:
      if (const auto range = float_range<float>(data, n)) {
        offer(bytes_of(range->lo), bytes_of(range->hi));
      }
      return;
    case Kind::DOUBLE:
      if (const auto range = float_range<double>(data, n)) {
        offer(bytes_of(range->lo), bytes_of(range->hi));
      }
      return;
    case Kind::FLOAT16:
      if (const auto range = half_range(data, n)) {
        offer(bytes_of(range->lo), bytes_of(range->hi));
      }
      return;
    case Kind::BYTES:
    case Kind::DECIMAL_BYTES: {
      // Views into `values`; only the winners are copied, by offer().
      const auto compare = kind_ == Kind::BYTES ? compare_bytes : compare_decimal;
      std::string_view lo = values.string(begin);
      std::string_view hi = lo;
      for (size_t i = begin + 1; i < end; ++i) {
        const std::string_view value = values.string(i);
        if (compare(value, lo) < 0) {
          lo = value;
        } else if (compare(value, hi) > 0) {
          hi = value;
        }
      }
      offer(lo, hi);
      return;
    }
  }
}

void StatisticsCollector::update_nulls(int64_t n) { null_count_ += n; }

void StatisticsCollector::merge(const StatisticsCollector& other) {
  assert(other.kind_ == kind_);
  null_count_ += other.null_count_;
  if (other.has_min_max_) offer(other.min_, other.max_, other.min_exact_, other.max_exact_);
}

void StatisticsCollector::reset() {
  has_min_max_ = false;
  min_.clear();
  max_.clear();
  min_exact_ = true;
  max_exact_ = true;
  null_count_ = 0;
}

void StatisticsCollector::offer(std::string_view lo, std::string_view hi, bool lo_exact,
                                bool hi_exact) {
  if (!has_min_max_) {
    has_min_max_ = true;
    keep_min(lo, lo_exact);
    keep_max(hi, hi_exact);
    return;
  }
  // A value equal to a bound makes the bound exact: every value seen lies on its side of it.
  if (const int c = compare_kind(kind_, lo, min_); c < 0) {
    keep_min(lo, lo_exact);
  } else if (c == 0 && lo_exact) {
    min_exact_ = true;
  }
  if (const int c = compare_kind(kind_, hi, max_); c > 0) {
    keep_max(hi, hi_exact);
  } else if (c == 0 && hi_exact) {
    max_exact_ = true;
  }
}

// A smallest value longer than the limit is kept as its prefix (a lower bound). A later value is
// compared with the prefix: one smaller is smaller than the value; one equal to the prefix makes it
// exact; and a value of at most the limit's length that is larger than the prefix is also larger
// than the value (they differ within the prefix), so the true smallest value, when it is short, is
// always found exact.
void StatisticsCollector::keep_min(std::string_view value, bool exact) {
  if (kind_ == Kind::BYTES && value.size() > kMaxExactStatisticsBytes) {
    value = value.substr(0, kMaxExactStatisticsBytes);
    exact = false;
  }
  min_.assign(value);
  min_exact_ = exact;
}

// A largest value longer than the limit is kept as its prefix with the trailing 0xFF bytes dropped
// and the last byte incremented (an upper bound; the same reasoning as keep_min() finds a short
// true largest value exact).
void StatisticsCollector::keep_max(std::string_view value, bool exact) {
  if (kind_ == Kind::BYTES && value.size() > kMaxExactStatisticsBytes) {
    std::string_view prefix = value.substr(0, kMaxExactStatisticsBytes);
    while (!prefix.empty() && static_cast<uint8_t>(prefix.back()) == 0xFF) prefix.remove_suffix(1);
    if (!prefix.empty()) {
      max_.assign(prefix);
      max_.back() = static_cast<char>(static_cast<uint8_t>(max_.back()) + 1);
      max_exact_ = false;
      return;
    }
  }
  max_.assign(value);
  max_exact_ = exact;
}

Statistics StatisticsCollector::to_thrift() const {
  Statistics statistics;
  statistics.null_count = null_count_;
  if (has_min_max_ && min_exact_ && max_exact_) {
    statistics.min_value = min_;
    statistics.max_value = max_;
    statistics.is_min_value_exact = true;
    statistics.is_max_value_exact = true;
  }
  return statistics;
}

}  // namespace kbdata::parquet
