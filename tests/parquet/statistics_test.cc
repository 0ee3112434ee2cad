// Writer statistics: sort orders, value comparison and the min/max/null collector.

#include "parquet/statistics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace kbdata::parquet {
namespace {

using K = LogicalType::Kind;

ColumnDescriptor column(PhysicalType physical, LogicalType logical = {},
                        std::optional<ConvertedType> converted = std::nullopt,
                        int32_t type_length = 0) {
  ColumnDescriptor c;
  c.path = {"c"};
  c.dotted_path = "c";
  c.physical = physical;
  c.logical = logical;
  c.converted = converted;
  c.type_length = type_length;
  return c;
}

LogicalType logical(K kind) {
  LogicalType t;
  t.kind = kind;
  return t;
}

LogicalType integer(int bits, bool is_signed) {
  LogicalType t = logical(K::INTEGER);
  t.bit_width = static_cast<int8_t>(bits);
  t.is_signed = is_signed;
  return t;
}

LogicalType decimal(int precision, int scale) {
  LogicalType t = logical(K::DECIMAL);
  t.decimal_precision = precision;
  t.decimal_scale = scale;
  return t;
}

template <typename T>
std::string plain(T value) {
  std::string out(sizeof(T), '\0');
  std::memcpy(out.data(), &value, sizeof(T));
  return out;
}

template <typename T>
T unplain(const std::string& bytes) {
  EXPECT_EQ(bytes.size(), sizeof(T));
  T value{};
  std::memcpy(&value, bytes.data(), std::min(bytes.size(), sizeof(T)));
  return value;
}

template <typename T>
ValueBuffer fixed(PhysicalType type, const std::vector<T>& values) {
  ValueBuffer buffer = ValueBuffer::for_type(type, static_cast<int>(sizeof(T)));
  for (T value : values) {
    const std::string bytes = plain(value);
    buffer.data.insert(buffer.data.end(), bytes.begin(), bytes.end());
  }
  buffer.count = values.size();
  return buffer;
}

ValueBuffer binary(const std::vector<std::string>& values) {
  ValueBuffer buffer = ValueBuffer::for_type(PhysicalType::BYTE_ARRAY, 0);
  for (const std::string& value : values) {
    buffer.append_binary({reinterpret_cast<const uint8_t*>(value.data()), value.size()});
  }
  return buffer;
}

ValueBuffer flba(int width, const std::vector<std::string>& values) {
  ValueBuffer buffer = ValueBuffer::for_type(PhysicalType::FIXED_LEN_BYTE_ARRAY, width);
  for (const std::string& value : values) {
    EXPECT_EQ(value.size(), static_cast<size_t>(width));
    buffer.data.insert(buffer.data.end(), value.begin(), value.end());
  }
  buffer.count = values.size();
  return buffer;
}

StatisticsCollector collect(const ColumnDescriptor& c, const ValueBuffer& values) {
  StatisticsCollector collector(c);
  collector.update(values, 0, values.count);
  return collector;
}

// Big-endian two's complement in the fewest bytes.
std::string be_decimal(int64_t value) {
  std::string out;
  for (int shift = 56; shift >= 0; shift -= 8) out.push_back(static_cast<char>(value >> shift));
  while (out.size() > 1) {
    const auto first = static_cast<uint8_t>(out[0]);
    const auto second = static_cast<uint8_t>(out[1]);
    if ((first == 0x00 && (second & 0x80) == 0) || (first == 0xFF && (second & 0x80) != 0)) {
      out.erase(0, 1);
    } else {
      break;
    }
  }
  return out;
}

// Big-endian two's complement in exactly `width` bytes.
std::string be_fixed(int64_t value, int width) {
  std::string out;
  for (int i = width - 1; i >= 0; --i) out.push_back(static_cast<char>(value >> (8 * i)));
  return out;
}

TEST(SortOrder, PerType) {
  using P = PhysicalType;
  EXPECT_EQ(sort_order(column(P::BOOLEAN)), SortOrder::UNSIGNED);
  EXPECT_EQ(sort_order(column(P::INT32)), SortOrder::SIGNED);
  EXPECT_EQ(sort_order(column(P::INT64)), SortOrder::SIGNED);
  EXPECT_EQ(sort_order(column(P::INT32, integer(32, true), ConvertedType::INT_32)),
            SortOrder::SIGNED);
  EXPECT_EQ(sort_order(column(P::INT32, integer(32, false))), SortOrder::UNSIGNED);
  EXPECT_EQ(sort_order(column(P::INT32, {}, ConvertedType::UINT_8)), SortOrder::UNSIGNED);
  EXPECT_EQ(sort_order(column(P::INT64, {}, ConvertedType::UINT_64)), SortOrder::UNSIGNED);
  EXPECT_EQ(sort_order(column(P::INT64, integer(64, false), ConvertedType::UINT_64)),
            SortOrder::UNSIGNED);
  EXPECT_EQ(sort_order(column(P::INT32, logical(K::DATE))), SortOrder::SIGNED);
  EXPECT_EQ(sort_order(column(P::INT64, decimal(18, 2))), SortOrder::SIGNED);
  EXPECT_EQ(sort_order(column(P::INT96)), SortOrder::UNDEFINED);
  EXPECT_EQ(sort_order(column(P::FLOAT)), SortOrder::SIGNED);
  EXPECT_EQ(sort_order(column(P::DOUBLE)), SortOrder::SIGNED);
  EXPECT_EQ(sort_order(column(P::BYTE_ARRAY)), SortOrder::UNSIGNED);
  EXPECT_EQ(sort_order(column(P::BYTE_ARRAY, logical(K::STRING), ConvertedType::UTF8)),
            SortOrder::UNSIGNED);
  EXPECT_EQ(sort_order(column(P::BYTE_ARRAY, decimal(30, 4))), SortOrder::SIGNED);
  EXPECT_EQ(sort_order(column(P::BYTE_ARRAY, {}, ConvertedType::DECIMAL)), SortOrder::SIGNED);
  EXPECT_EQ(sort_order(column(P::FIXED_LEN_BYTE_ARRAY, {}, {}, 16)), SortOrder::UNSIGNED);
  EXPECT_EQ(sort_order(column(P::FIXED_LEN_BYTE_ARRAY, logical(K::UUID), {}, 16)),
            SortOrder::UNSIGNED);
  EXPECT_EQ(sort_order(column(P::FIXED_LEN_BYTE_ARRAY, decimal(20, 0), {}, 9)), SortOrder::SIGNED);
  EXPECT_EQ(sort_order(column(P::FIXED_LEN_BYTE_ARRAY, logical(K::FLOAT16), {}, 2)),
            SortOrder::SIGNED);
  EXPECT_EQ(sort_order(column(P::FIXED_LEN_BYTE_ARRAY, {}, ConvertedType::INTERVAL, 12)),
            SortOrder::UNDEFINED);
  EXPECT_EQ(sort_order(column(P::BYTE_ARRAY, logical(K::GEOMETRY))), SortOrder::UNDEFINED);
}

TEST(CompareValues, ByType) {
  using P = PhysicalType;
  EXPECT_LT(compare_values(column(P::INT32), plain<int32_t>(-1), plain<int32_t>(1)), 0);
  const auto u32 = column(P::INT32, {}, ConvertedType::UINT_32);
  EXPECT_GT(compare_values(u32, plain<uint32_t>(0xFFFFFFFF), plain<uint32_t>(1)), 0);
  EXPECT_EQ(compare_values(column(P::DOUBLE), plain(-0.0), plain(0.0)), 0);
  EXPECT_LT(compare_values(column(P::DOUBLE), plain(-1e300), plain(-0.0)), 0);
  const auto bytes = column(P::BYTE_ARRAY);
  EXPECT_LT(compare_values(bytes, "ab", "abc"), 0);
  EXPECT_LT(compare_values(bytes, "", "a"), 0);
  EXPECT_GT(compare_values(bytes, "\x80", "\x7f"), 0);  // unsigned bytes
  EXPECT_EQ(compare_values(bytes, "abc", "abc"), 0);
  const auto dec = column(P::BYTE_ARRAY, decimal(10, 0));
  EXPECT_LT(compare_values(dec, be_decimal(-1), be_decimal(1)), 0);
  EXPECT_LT(compare_values(dec, be_decimal(-256), be_decimal(-1)), 0);
  EXPECT_GT(compare_values(dec, be_decimal(256), be_decimal(255)), 0);
  EXPECT_EQ(compare_values(dec, std::string("\xFF\xFF", 2), std::string("\xFF", 1)), 0);  // -1
  EXPECT_EQ(compare_values(dec, std::string("\x00\x05", 2), std::string("\x05", 1)), 0);
  EXPECT_EQ(compare_values(dec, "", std::string("\x00", 1)), 0);  // empty is zero
  const auto half = column(P::FIXED_LEN_BYTE_ARRAY, logical(K::FLOAT16), {}, 2);
  EXPECT_LT(compare_values(half, plain<uint16_t>(0xC000), plain<uint16_t>(0x3C00)), 0);  // -2 < 1
  EXPECT_EQ(compare_values(half, plain<uint16_t>(0x8000), plain<uint16_t>(0x0000)), 0);
  EXPECT_LT(compare_values(half, plain<uint16_t>(0x0001), plain<uint16_t>(0x0400)), 0);
  EXPECT_LT(compare_values(half, plain<uint16_t>(0xFC00), plain<uint16_t>(0xC000)), 0);  // -inf
}

TEST(Statistics, SignedIntegers) {
  const auto s =
      collect(column(PhysicalType::INT32), fixed<int32_t>(PhysicalType::INT32, {5, -3, 7, 0, -2}));
  ASSERT_TRUE(s.has_min_max());
  EXPECT_EQ(unplain<int32_t>(s.min()), -3);
  EXPECT_EQ(unplain<int32_t>(s.max()), 7);
  const auto s64 = collect(column(PhysicalType::INT64),
                           fixed<int64_t>(PhysicalType::INT64, {-1, INT64_MIN, INT64_MAX, 0}));
  EXPECT_EQ(unplain<int64_t>(s64.min()), INT64_MIN);
  EXPECT_EQ(unplain<int64_t>(s64.max()), INT64_MAX);
}

TEST(Statistics, UnsignedIntegers) {
  const auto values = fixed<uint32_t>(PhysicalType::INT32, {5, 0xFFFFFFFF, 0, 0x80000000});
  for (const auto& c : {column(PhysicalType::INT32, {}, ConvertedType::UINT_32),
                        column(PhysicalType::INT32, integer(32, false))}) {
    const auto s = collect(c, values);
    EXPECT_EQ(unplain<uint32_t>(s.min()), 0u);
    EXPECT_EQ(unplain<uint32_t>(s.max()), 0xFFFFFFFFu);
  }
  // The same bits as signed: 0xFFFFFFFF is -1, 0x80000000 the minimum.
  const auto signed_stats = collect(column(PhysicalType::INT32), values);
  EXPECT_EQ(unplain<int32_t>(signed_stats.min()), INT32_MIN);
  EXPECT_EQ(unplain<int32_t>(signed_stats.max()), 5);
  const auto s64 = collect(column(PhysicalType::INT64, {}, ConvertedType::UINT_64),
                           fixed<uint64_t>(PhysicalType::INT64, {1, UINT64_MAX, 7}));
  EXPECT_EQ(unplain<uint64_t>(s64.min()), 1u);
  EXPECT_EQ(unplain<uint64_t>(s64.max()), UINT64_MAX);
}

TEST(Statistics, Booleans) {
  const auto c = column(PhysicalType::BOOLEAN);
  const auto all_true = collect(c, fixed<uint8_t>(PhysicalType::BOOLEAN, {1, 1}));
  EXPECT_EQ(all_true.min(), std::string(1, '\1'));
  EXPECT_EQ(all_true.max(), std::string(1, '\1'));
  const auto both = collect(c, fixed<uint8_t>(PhysicalType::BOOLEAN, {1, 0, 1}));
  EXPECT_EQ(both.min(), std::string(1, '\0'));
  EXPECT_EQ(both.max(), std::string(1, '\1'));
}

template <typename T>
void check_float_rules(PhysicalType type) {
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const auto c = column(type);
  // NaN is skipped.
  auto s = collect(c, fixed<T>(type, {nan, T(2.5), nan, T(-1), nan}));
  ASSERT_TRUE(s.has_min_max());
  EXPECT_EQ(unplain<T>(s.min()), T(-1));
  EXPECT_EQ(unplain<T>(s.max()), T(2.5));
  // A page of NaNs only has no min or max.
  s = collect(c, fixed<T>(type, {nan, nan}));
  EXPECT_FALSE(s.has_min_max());
  EXPECT_FALSE(s.to_thrift().min_value);
  // A zero min is -0.0, a zero max +0.0, whichever zero was seen.
  s = collect(c, fixed<T>(type, {T(0), T(3)}));
  EXPECT_TRUE(std::signbit(unplain<T>(s.min())));
  EXPECT_EQ(unplain<T>(s.min()), T(0));
  s = collect(c, fixed<T>(type, {T(-3), -T(0)}));
  EXPECT_FALSE(std::signbit(unplain<T>(s.max())));
  EXPECT_EQ(unplain<T>(s.max()), T(0));
  s = collect(c, fixed<T>(type, {T(0)}));
  EXPECT_TRUE(std::signbit(unplain<T>(s.min())));
  EXPECT_FALSE(std::signbit(unplain<T>(s.max())));
  // The rule holds across updates and merges.
  StatisticsCollector a(c);
  a.update(fixed<T>(type, {T(5)}), 0, 1);
  a.update(fixed<T>(type, {T(0)}), 0, 1);
  StatisticsCollector b(c);
  b.update(fixed<T>(type, {-T(0), T(-7)}), 0, 2);
  EXPECT_TRUE(std::signbit(unplain<T>(a.min())));
  EXPECT_FALSE(std::signbit(unplain<T>(b.max())));
  a.merge(b);
  EXPECT_EQ(unplain<T>(a.min()), T(-7));
  EXPECT_EQ(unplain<T>(a.max()), T(5));
  // Infinities are values like any other.
  s = collect(c, fixed<T>(type, {std::numeric_limits<T>::infinity(), T(1),
                                 -std::numeric_limits<T>::infinity()}));
  EXPECT_EQ(unplain<T>(s.min()), -std::numeric_limits<T>::infinity());
  EXPECT_EQ(unplain<T>(s.max()), std::numeric_limits<T>::infinity());
}

TEST(Statistics, FloatRules) { check_float_rules<float>(PhysicalType::FLOAT); }
TEST(Statistics, DoubleRules) { check_float_rules<double>(PhysicalType::DOUBLE); }

TEST(Statistics, Float16Rules) {
  const auto c = column(PhysicalType::FIXED_LEN_BYTE_ARRAY, logical(K::FLOAT16), {}, 2);
  auto half = [](std::vector<uint16_t> bits) {
    std::vector<std::string> values;
    for (uint16_t b : bits) values.push_back(plain(b));
    return flba(2, values);
  };
  // 1.0, -2.0, NaN, 0.5, a NaN with the sign bit
  auto s = collect(c, half({0x3C00, 0xC000, 0x7E00, 0x3800, 0xFE01}));
  ASSERT_TRUE(s.has_min_max());
  EXPECT_EQ(unplain<uint16_t>(s.min()), 0xC000);
  EXPECT_EQ(unplain<uint16_t>(s.max()), 0x3C00);
  EXPECT_FALSE(collect(c, half({0x7E00, 0x7C01})).has_min_max());
  s = collect(c, half({0x0000, 0x3C00}));
  EXPECT_EQ(unplain<uint16_t>(s.min()), 0x8000);  // -0
  s = collect(c, half({0x8000, 0xBC00}));
  EXPECT_EQ(unplain<uint16_t>(s.max()), 0x0000);  // +0
  EXPECT_EQ(unplain<uint16_t>(s.min()), 0xBC00);  // -1
  // Subnormals below normals, infinities at the ends.
  s = collect(c, half({0x0400, 0x0001, 0x7C00, 0xFC00}));
  EXPECT_EQ(unplain<uint16_t>(s.min()), 0xFC00);
  EXPECT_EQ(unplain<uint16_t>(s.max()), 0x7C00);
  s = collect(c, half({0x0400, 0x0001, 0x0200}));
  EXPECT_EQ(unplain<uint16_t>(s.min()), 0x0001);
  EXPECT_EQ(unplain<uint16_t>(s.max()), 0x0400);
}

TEST(Statistics, StringsUnsignedBytewise) {
  const auto s = collect(column(PhysicalType::BYTE_ARRAY, logical(K::STRING)),
                         binary({"b", "abc", "ab", "\xC3\xA9t\xC3\xA9", "zz", "a"}));
  EXPECT_EQ(s.min(), "a");
  EXPECT_EQ(s.max(), "\xC3\xA9t\xC3\xA9");  // 0xC3 sorts after 'z'
  const auto prefix = collect(column(PhysicalType::BYTE_ARRAY), binary({"abc", "ab", "abcd"}));
  EXPECT_EQ(prefix.min(), "ab");
  EXPECT_EQ(prefix.max(), "abcd");
  const auto empty = collect(column(PhysicalType::BYTE_ARRAY), binary({"x", "", "y"}));
  ASSERT_TRUE(empty.has_min_max());
  EXPECT_EQ(empty.min(), "");
  EXPECT_EQ(empty.max(), "y");
  const auto fixed_bytes = collect(column(PhysicalType::FIXED_LEN_BYTE_ARRAY, {}, {}, 2),
                                   flba(2, {std::string("\x01\xFF", 2), std::string("\xFF\x00", 2),
                                            std::string("\x01\x00", 2)}));
  EXPECT_EQ(fixed_bytes.min(), std::string("\x01\x00", 2));
  EXPECT_EQ(fixed_bytes.max(), std::string("\xFF\x00", 2));
}

TEST(Statistics, DecimalsNumerically) {
  const auto byte_array = column(PhysicalType::BYTE_ARRAY, decimal(20, 2));
  auto s = collect(byte_array, binary({be_decimal(127), be_decimal(-1), be_decimal(256),
                                       be_decimal(-129), be_decimal(-256), be_decimal(0)}));
  EXPECT_EQ(s.min(), be_decimal(-256));
  EXPECT_EQ(s.max(), be_decimal(256));
  s = collect(byte_array, binary({be_decimal(-5), be_decimal(-300), be_decimal(-1)}));
  EXPECT_EQ(s.min(), be_decimal(-300));
  EXPECT_EQ(s.max(), be_decimal(-1));
  const auto fixed_decimal = column(PhysicalType::FIXED_LEN_BYTE_ARRAY, decimal(9, 0), {}, 4);
  s = collect(fixed_decimal, flba(4, {be_fixed(1000, 4), be_fixed(-70000, 4), be_fixed(-1, 4),
                                      be_fixed(65536, 4)}));
  EXPECT_EQ(s.min(), be_fixed(-70000, 4));
  EXPECT_EQ(s.max(), be_fixed(65536, 4));
  const auto int32_decimal = column(PhysicalType::INT32, decimal(9, 2));
  s = collect(int32_decimal, fixed<int32_t>(PhysicalType::INT32, {-500, 20}));
  EXPECT_EQ(unplain<int32_t>(s.min()), -500);
}

TEST(Statistics, SubrangeOnly) {
  const auto values = fixed<int32_t>(PhysicalType::INT32, {-100, 4, 2, 9, 100});
  StatisticsCollector s(column(PhysicalType::INT32));
  s.update(values, 1, 4);
  EXPECT_EQ(unplain<int32_t>(s.min()), 2);
  EXPECT_EQ(unplain<int32_t>(s.max()), 9);
  s.update(values, 4, 4);  // empty range: no change
  EXPECT_EQ(unplain<int32_t>(s.max()), 9);
  const auto strings = binary({"z", "m", "k", "a"});
  StatisticsCollector t(column(PhysicalType::BYTE_ARRAY));
  t.update(strings, 1, 3);
  EXPECT_EQ(t.min(), "k");
  EXPECT_EQ(t.max(), "m");
}

TEST(Statistics, MergeAndReset) {
  const auto c = column(PhysicalType::INT64);
  StatisticsCollector chunk(c);
  StatisticsCollector page1(c);
  page1.update(fixed<int64_t>(PhysicalType::INT64, {10, 20}), 0, 2);
  page1.update_nulls(3);
  StatisticsCollector page2(c);
  page2.update(fixed<int64_t>(PhysicalType::INT64, {-5, 15}), 0, 2);
  StatisticsCollector page3(c);  // nulls only
  page3.update_nulls(4);
  chunk.merge(page1);
  chunk.merge(page3);
  chunk.merge(page2);
  EXPECT_EQ(unplain<int64_t>(chunk.min()), -5);
  EXPECT_EQ(unplain<int64_t>(chunk.max()), 20);
  EXPECT_EQ(chunk.null_count(), 7);
  // Merging into an empty collector copies.
  StatisticsCollector empty(c);
  empty.merge(page2);
  EXPECT_EQ(unplain<int64_t>(empty.min()), -5);
  EXPECT_EQ(unplain<int64_t>(empty.max()), 15);
  chunk.reset();
  EXPECT_FALSE(chunk.has_min_max());
  EXPECT_EQ(chunk.null_count(), 0);
  chunk.update(fixed<int64_t>(PhysicalType::INT64, {42}), 0, 1);
  EXPECT_EQ(unplain<int64_t>(chunk.min()), 42);
  EXPECT_EQ(unplain<int64_t>(chunk.max()), 42);
}

TEST(Statistics, NullsOnly) {
  StatisticsCollector s(column(PhysicalType::BYTE_ARRAY));
  s.update_nulls(5);
  s.update_nulls(2);
  EXPECT_FALSE(s.has_min_max());
  const Statistics t = s.to_thrift();
  EXPECT_EQ(t.null_count, 7);
  EXPECT_FALSE(t.min_value);
  EXPECT_FALSE(t.max_value);
  EXPECT_FALSE(t.is_min_value_exact);
  EXPECT_FALSE(t.is_max_value_exact);
  EXPECT_FALSE(t.min);
  EXPECT_FALSE(t.max);
  EXPECT_EQ(StatisticsCollector(column(PhysicalType::INT32)).to_thrift().null_count, 0);
}

TEST(Statistics, ToThrift) {
  StatisticsCollector s(column(PhysicalType::INT32));
  s.update(fixed<int32_t>(PhysicalType::INT32, {3, -4}), 0, 2);
  s.update_nulls(1);
  const Statistics t = s.to_thrift();
  EXPECT_EQ(t.null_count, 1);
  EXPECT_EQ(t.min_value, plain<int32_t>(-4));
  EXPECT_EQ(t.max_value, plain<int32_t>(3));
  EXPECT_EQ(t.is_min_value_exact, true);
  EXPECT_EQ(t.is_max_value_exact, true);
  EXPECT_FALSE(t.min);  // deprecated fields never written
  EXPECT_FALSE(t.max);
  EXPECT_FALSE(t.distinct_count);
}

TEST(Statistics, UndefinedOrderHasNoMinMax) {
  ValueBuffer int96 = ValueBuffer::for_type(PhysicalType::INT96, 0);
  int96.data.assign(24, 7);
  int96.count = 2;
  auto s = collect(column(PhysicalType::INT96), int96);
  EXPECT_FALSE(s.has_min_max());
  s.update_nulls(1);
  EXPECT_EQ(s.to_thrift().null_count, 1);
  const auto interval = column(PhysicalType::FIXED_LEN_BYTE_ARRAY, {}, ConvertedType::INTERVAL, 12);
  EXPECT_FALSE(collect(interval, flba(12, {std::string(12, 'a')})).has_min_max());
}

// The collector, fed in random slices and merged, agrees with the ends of a reference sort;
// compare_values sorts as the reference does.
template <typename Value, typename Less>
void cross_check(const ColumnDescriptor& c, const std::vector<Value>& values,
                 const std::vector<std::string>& plains, const ValueBuffer& buffer, Less less,
                 std::mt19937& rng) {
  ASSERT_EQ(values.size(), buffer.count);
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end(), less);
  StatisticsCollector whole(c);
  StatisticsCollector merged(c);
  size_t begin = 0;
  while (begin < buffer.count) {
    const size_t end = std::min(buffer.count, begin + 1 + rng() % 50);
    StatisticsCollector page(c);
    page.update(buffer, begin, end);
    merged.merge(page);
    whole.update(buffer, begin, end);
    begin = end;
  }
  for (const auto* s : {&whole, &merged}) {
    ASSERT_TRUE(s->has_min_max());
    EXPECT_EQ(s->min(), plains[static_cast<size_t>(lo - values.begin())]);
    EXPECT_EQ(s->max(), plains[static_cast<size_t>(hi - values.begin())]);
  }
  std::vector<size_t> by_reference(values.size());
  for (size_t i = 0; i < values.size(); ++i) by_reference[i] = i;
  std::vector<size_t> by_compare = by_reference;
  std::stable_sort(by_reference.begin(), by_reference.end(),
                   [&](size_t a, size_t b) { return less(values[a], values[b]); });
  std::stable_sort(by_compare.begin(), by_compare.end(),
                   [&](size_t a, size_t b) { return compare_values(c, plains[a], plains[b]) < 0; });
  EXPECT_EQ(by_reference, by_compare);
}

template <typename T>
void cross_check_fixed(const ColumnDescriptor& c, std::mt19937& rng, size_t n) {
  std::uniform_int_distribution<uint64_t> bits;
  std::vector<T> values;
  std::vector<std::string> plains;
  for (size_t i = 0; i < n; ++i) {
    // Draw from a small pool now and then so that duplicates occur.
    const uint64_t raw = rng() % 4 == 0 ? rng() % 5 : bits(rng);
    T value;
    if constexpr (std::is_floating_point_v<T>) {
      value = static_cast<T>(static_cast<int64_t>(raw)) / T(1024);
      if (value == T(0)) value = T(1);  // zeros are rewritten (-0.0 min, +0.0 max): tested above
    } else {
      value = static_cast<T>(raw);
    }
    values.push_back(value);
    plains.push_back(plain(value));
  }
  cross_check(c, values, plains, fixed<T>(c.physical, values), std::less<T>(), rng);
}

// Values longer than kMaxExactStatisticsBytes are kept as bounds of that length, yet the bounds
// are the same whatever the order and the pages: the smallest value's prefix, the largest value's
// prefix incremented; a short smallest or largest value is always found exact.
TEST(Statistics, LongBytesKeptAsBounds) {
  constexpr size_t kCap = kMaxExactStatisticsBytes;
  const auto c = column(PhysicalType::BYTE_ARRAY);
  auto upper = [](std::string prefix) {
    while (!prefix.empty() && static_cast<uint8_t>(prefix.back()) == 0xFF) prefix.pop_back();
    prefix.back() = static_cast<char>(static_cast<uint8_t>(prefix.back()) + 1);
    return prefix;
  };
  std::mt19937 rng(20261207);
  for (int round = 0; round < 200; ++round) {
    SCOPED_TRACE(round);
    // Long values share long runs of 'a' (so prefixes tie) and end in a few bytes of a small
    // alphabet with 0xFF; short values come from the same alphabet.
    std::vector<std::string> strings;
    const size_t n = 1 + rng() % 12;
    for (size_t i = 0; i < n; ++i) {
      std::string s;
      if (rng() % 2 == 0) {
        s.assign(kCap - 3 + rng() % 7, 'a');
        for (size_t k = s.size() - 1 - rng() % 4; k < s.size(); ++k) s[k] = "a\x01\xff"[rng() % 3];
      } else {
        s.assign(rng() % 4, 'a');
        for (char& ch : s) ch = "a\x01\xff"[rng() % 3];
      }
      strings.push_back(s);
    }
    const std::string lo = *std::min_element(strings.begin(), strings.end());
    const std::string hi = *std::max_element(strings.begin(), strings.end());
    // Fed as one page, and as pages of random sizes merged into a chunk.
    std::vector<StatisticsCollector> collectors;
    collectors.push_back(collect(c, binary(strings)));
    StatisticsCollector chunk(c);
    for (size_t begin = 0; begin < n;) {
      const size_t end = std::min(n, begin + 1 + rng() % 3);
      StatisticsCollector page(c);
      page.update(binary(strings), begin, end);
      chunk.merge(page);
      begin = end;
    }
    collectors.push_back(chunk);
    for (const StatisticsCollector& s : collectors) {
      ASSERT_TRUE(s.has_min_max());
      EXPECT_EQ(s.min_exact(), lo.size() <= kCap);
      EXPECT_EQ(s.min(), lo.size() <= kCap ? lo : lo.substr(0, kCap));
      EXPECT_EQ(s.max_exact(), hi.size() <= kCap);
      EXPECT_EQ(s.max(), hi.size() <= kCap ? hi : upper(hi.substr(0, kCap)));
      const Statistics t = s.to_thrift();
      EXPECT_EQ(t.min_value.has_value(), lo.size() <= kCap && hi.size() <= kCap);
      EXPECT_EQ(t.max_value.has_value(), t.min_value.has_value());
    }
  }
  // A largest value whose prefix is only 0xFF bytes has no shorter upper bound: it is kept whole.
  const std::string ff(kCap + 5, '\xff');
  const auto whole = collect(c, binary({"a", ff}));
  EXPECT_TRUE(whole.max_exact());
  EXPECT_EQ(whole.max(), ff);
}

TEST(Statistics, RandomCrossCheck) {
  std::mt19937 rng(20261129);
  for (int round = 0; round < 20; ++round) {
    SCOPED_TRACE(round);
    const size_t n = 1 + rng() % 400;
    cross_check_fixed<int32_t>(column(PhysicalType::INT32), rng, n);
    cross_check_fixed<uint32_t>(column(PhysicalType::INT32, {}, ConvertedType::UINT_32), rng, n);
    cross_check_fixed<int64_t>(column(PhysicalType::INT64), rng, n);
    cross_check_fixed<uint64_t>(column(PhysicalType::INT64, integer(64, false)), rng, n);
    cross_check_fixed<double>(column(PhysicalType::DOUBLE), rng, n);
    cross_check_fixed<float>(column(PhysicalType::FLOAT), rng, n);

    // Strings: bytes from a small alphabet with high bytes, so prefixes and ties are common.
    std::vector<std::string> strings;
    for (size_t i = 0; i < n; ++i) {
      std::string s(rng() % 6, '\0');
      for (char& ch : s) ch = "a\x01\x7f\x80\xff"[rng() % 5];
      strings.push_back(s);
    }
    // std::string compares chars as unsigned char (char_traits<char>::lt).
    cross_check(column(PhysicalType::BYTE_ARRAY), strings, strings, binary(strings),
                std::less<std::string>(), rng);

    // Decimals of varying byte lengths and both signs.
    std::vector<int64_t> numbers;
    std::vector<std::string> encoded;
    for (size_t i = 0; i < n; ++i) {
      const int shift = static_cast<int>(rng() % 63);
      const int64_t magnitude = static_cast<int64_t>(rng() >> (rng() % 32)) << (shift % 31);
      const int64_t number = rng() % 2 == 0 ? magnitude : -magnitude;
      numbers.push_back(number);
      encoded.push_back(be_decimal(number));
    }
    cross_check(column(PhysicalType::BYTE_ARRAY, decimal(38, 0)), numbers, encoded, binary(encoded),
                std::less<int64_t>(), rng);
    std::vector<std::string> fixed8;
    for (int64_t number : numbers) fixed8.push_back(be_fixed(number, 8));
    cross_check(column(PhysicalType::FIXED_LEN_BYTE_ARRAY, decimal(18, 0), {}, 8), numbers, fixed8,
                flba(8, fixed8), std::less<int64_t>(), rng);
  }
}

}  // namespace
}  // namespace kbdata::parquet
