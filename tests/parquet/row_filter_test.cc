// Predicates against statistics (each sort order), against values, and turned into row ranges.
#include "parquet/row_filter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "common/error.h"
#include "parquet/file_reader.h"
#include "parquet/metadata.h"

namespace kbdata::parquet {
namespace {

std::string data_path(const std::string& name) {
  return std::string(KBDATA_TEST_DATA) + "/" + name;
}

template <typename T>
std::string le(T v) {
  std::string s(sizeof(T), '\0');
  std::memcpy(s.data(), &v, sizeof(T));
  return s;
}

SchemaElement leaf(const std::string& name, PhysicalType type,
                   std::optional<LogicalType> logical = std::nullopt, int32_t length = 0) {
  SchemaElement e;
  e.name = name;
  e.type = type;
  e.repetition_type = Repetition::OPTIONAL;
  e.logical_type = logical;
  if (length > 0) e.type_length = length;
  if (logical && logical->kind == LogicalType::Kind::DECIMAL) {
    e.scale = logical->decimal_scale;
    e.precision = logical->decimal_precision;
  }
  return e;
}

Schema test_schema() {
  std::vector<SchemaElement> elements;
  SchemaElement root;
  root.name = "schema";
  root.num_children = 8;
  elements.push_back(root);
  LogicalType unsigned32;
  unsigned32.kind = LogicalType::Kind::INTEGER;
  unsigned32.bit_width = 32;
  unsigned32.is_signed = false;
  LogicalType text;
  text.kind = LogicalType::Kind::STRING;
  LogicalType decimal;
  decimal.kind = LogicalType::Kind::DECIMAL;
  decimal.decimal_scale = 2;
  decimal.decimal_precision = 9;
  elements.push_back(leaf("i", PhysicalType::INT32));
  elements.push_back(leaf("u", PhysicalType::INT32, unsigned32));
  elements.push_back(leaf("s", PhysicalType::BYTE_ARRAY, text));
  elements.push_back(leaf("d", PhysicalType::FIXED_LEN_BYTE_ARRAY, decimal, 4));
  elements.push_back(leaf("di", PhysicalType::INT32, decimal));
  elements.push_back(leaf("f", PhysicalType::DOUBLE));
  elements.push_back(leaf("b", PhysicalType::BOOLEAN));
  elements.push_back(leaf("t", PhysicalType::INT96));
  return Schema::from_elements(elements);
}

// Whether [min, max] may hold a value satisfying `p`.
bool may(const Schema& schema, Predicate p, const std::string& min, const std::string& max) {
  RowFilter filter(schema, {std::move(p)});
  return filter.may_match_range(0, min, max);
}

std::string be32(int32_t v) {
  std::string s(4, '\0');
  for (int i = 0; i < 4; ++i)
    s[static_cast<size_t>(i)] = static_cast<char>((v >> (24 - 8 * i)) & 0xff);
  return s;
}

TEST(RowFilter, BindingRejectsWhatCannotBeCompared) {
  Schema schema = test_schema();
  EXPECT_THROW(RowFilter(schema, {{"nope", CompareOp::EQ, int64_t{1}, {}}}), UsageError);
  EXPECT_THROW(RowFilter(schema, {{"i", CompareOp::EQ, std::string("x"), {}}}), UsageError);
  EXPECT_THROW(RowFilter(schema, {{"s", CompareOp::EQ, int64_t{1}, {}}}), UsageError);
  EXPECT_THROW(RowFilter(schema, {{"t", CompareOp::EQ, int64_t{1}, {}}}), UsageError);
  EXPECT_NO_THROW(RowFilter(schema, {{"t", CompareOp::IS_NULL, {}, {}}}));
  EXPECT_THROW(RowFilter(schema, {{"i", CompareOp::BETWEEN, int64_t{1}, std::string("x")}}),
               UsageError);
}

TEST(RowFilter, SignedIntegers) {
  Schema schema = test_schema();
  std::string min = le<int32_t>(-5), max = le<int32_t>(5);
  EXPECT_FALSE(may(schema, {"i", CompareOp::GT, int64_t{5}, {}}, min, max));
  EXPECT_TRUE(may(schema, {"i", CompareOp::GE, int64_t{5}, {}}, min, max));
  EXPECT_FALSE(may(schema, {"i", CompareOp::LT, int64_t{-5}, {}}, min, max));
  EXPECT_TRUE(may(schema, {"i", CompareOp::LE, int64_t{-5}, {}}, min, max));
  EXPECT_TRUE(may(schema, {"i", CompareOp::EQ, int64_t{0}, {}}, min, max));
  EXPECT_FALSE(may(schema, {"i", CompareOp::EQ, int64_t{6}, {}}, min, max));
  EXPECT_FALSE(may(schema, {"i", CompareOp::EQ, 5.5, {}}, min, max));
  EXPECT_TRUE(may(schema, {"i", CompareOp::EQ, 4.5, {}}, min, max));
  EXPECT_FALSE(may(schema, {"i", CompareOp::BETWEEN, int64_t{6}, int64_t{9}}, min, max));
  EXPECT_TRUE(may(schema, {"i", CompareOp::BETWEEN, int64_t{-9}, int64_t{-5}}, min, max));
  std::string seven = le<int32_t>(7);
  EXPECT_FALSE(may(schema, {"i", CompareOp::NE, int64_t{7}, {}}, seven, seven));
  EXPECT_TRUE(may(schema, {"i", CompareOp::NE, int64_t{7}, {}}, min, max));
}

TEST(RowFilter, UnsignedIntegersCompareUnsigned) {
  Schema schema = test_schema();
  std::string min = le<uint32_t>(1), max = le<uint32_t>(0xFFFFFFFFu);
  // Signed, max would read as -1 and prune this.
  EXPECT_TRUE(may(schema, {"u", CompareOp::GT, int64_t{100}, {}}, min, max));
  EXPECT_FALSE(may(schema, {"u", CompareOp::LT, int64_t{1}, {}}, min, max));
  EXPECT_FALSE(may(schema, {"u", CompareOp::GT, int64_t{4294967295}, {}}, min, max));
  EXPECT_FALSE(may(schema, {"u", CompareOp::LT, int64_t{-1}, {}}, min, max));
}

TEST(RowFilter, StringsCompareAsUnsignedBytes) {
  Schema schema = test_schema();
  EXPECT_FALSE(may(schema, {"s", CompareOp::EQ, std::string("cherry"), {}}, "apple", "banana"));
  EXPECT_TRUE(may(schema, {"s", CompareOp::LT, std::string("b"), {}}, "apple", "banana"));
  EXPECT_FALSE(may(schema, {"s", CompareOp::GE, std::string("c"), {}}, "apple", "banana"));
  EXPECT_TRUE(may(schema, {"s", CompareOp::EQ, std::string("banana"), {}}, "apple", "banana"));
  EXPECT_FALSE(may(schema, {"s", CompareOp::GT, std::string("banana"), {}}, "apple", "banana"));
  // A prefix sorts first; bytes above 0x7f sort after ASCII.
  EXPECT_FALSE(may(schema, {"s", CompareOp::LT, std::string("app"), {}}, "apple", "banana"));
  EXPECT_TRUE(may(schema, {"s", CompareOp::GT, std::string("z"), {}}, "a", "\xc3\xa9t\xc3\xa9"));
}

TEST(RowFilter, DecimalsCompareByValue) {
  Schema schema = test_schema();
  std::string min = be32(-100), max = be32(250);  // -1.00 and 2.50, big-endian two's complement
  EXPECT_FALSE(may(schema, {"d", CompareOp::GT, int64_t{3}, {}}, min, max));
  EXPECT_FALSE(may(schema, {"d", CompareOp::LT, -1.5, {}}, min, max));
  EXPECT_TRUE(may(schema, {"d", CompareOp::EQ, 2.5, {}}, min, max));
  EXPECT_TRUE(may(schema, {"d", CompareOp::LT, -0.99, {}}, min, max));
  EXPECT_FALSE(may(schema, {"di", CompareOp::GE, 2.51, {}}, le<int32_t>(-100), le<int32_t>(250)));
  RowFilter filter(schema, {{"di", CompareOp::EQ, 0.1, {}}});
  std::string ten = le<int32_t>(10);  // 0.10
  EXPECT_TRUE(filter.matches(
      0, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(ten.data()), ten.size())));
}

TEST(RowFilter, UnknownOrMissingStatisticsNeverPrune) {
  Schema schema = test_schema();
  RowFilter filter(schema, {{"i", CompareOp::EQ, int64_t{100}, {}}});
  EXPECT_TRUE(filter.may_match_range(0, std::nullopt, std::nullopt));
  EXPECT_TRUE(filter.may_match_range(0, std::string("ab"), std::string("abc")));  // bad sizes
  double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(may(schema, {"f", CompareOp::EQ, 100.0, {}}, le(nan), le(1.0)));
  // Floating point: != never prunes (NaN is left out of statistics and NaN != x).
  EXPECT_TRUE(may(schema, {"f", CompareOp::NE, 1.0, {}}, le(1.0), le(1.0)));
}

TEST(RowFilter, MatchesValuesAndNulls) {
  Schema schema = test_schema();
  RowFilter filter(schema, {{"i", CompareOp::BETWEEN, int64_t{-1}, int64_t{1}},
                            {"i", CompareOp::IS_NULL, {}, {}},
                            {"i", CompareOp::IS_NOT_NULL, {}, {}},
                            {"f", CompareOp::NE, 2.0, {}},
                            {"b", CompareOp::EQ, true, {}}});
  auto bytes = [](const std::string& s) {
    return std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size());
  };
  std::string one = le<int32_t>(1), two = le<int32_t>(2);
  EXPECT_TRUE(filter.matches(0, bytes(one)));
  EXPECT_FALSE(filter.matches(0, bytes(two)));
  EXPECT_FALSE(filter.matches(0, std::nullopt));
  EXPECT_TRUE(filter.matches(1, std::nullopt));
  EXPECT_FALSE(filter.matches(1, bytes(one)));
  EXPECT_TRUE(filter.matches(2, bytes(one)));
  std::string nan = le(std::numeric_limits<double>::quiet_NaN());
  EXPECT_TRUE(filter.matches(3, bytes(nan)));
  std::string yes(1, '\1');
  EXPECT_TRUE(filter.matches(4, bytes(yes)));
}

TEST(RowFilter, RowRangesOfTheShippedFixture) {
  auto reader = FileReader::open(data_path("page_index.parquet"));
  auto ranges = [&](std::vector<Predicate> predicates, int group) {
    RowFilter filter(reader->schema(), std::move(predicates));
    return filter.row_group_ranges(*reader, group);
  };
  EXPECT_EQ(ranges({{"name", CompareOp::EQ, std::string("n042"), {}}}, 0), (RowRanges{{400, 450}}));
  EXPECT_TRUE(ranges({{"name", CompareOp::EQ, std::string("n042"), {}}}, 1).empty());
  EXPECT_TRUE(ranges({{"name", CompareOp::GT, std::string("n099"), {}}}, 1).empty());
  EXPECT_EQ(ranges({{"score", CompareOp::IS_NOT_NULL, {}, {}}}, 0),
            (RowRanges{{0, 100}, {150, 600}}));
  EXPECT_EQ(ranges({{"score", CompareOp::GT, 10.0, {}}}, 0), (RowRanges{{0, 100}, {150, 600}}));
  EXPECT_EQ(
      ranges({{"id", CompareOp::GE, int64_t{100}, {}}, {"score", CompareOp::IS_NOT_NULL, {}, {}}},
             0),
      (RowRanges{{150, 600}}));
  EXPECT_EQ(ranges({{"id", CompareOp::NE, int64_t{5}, {}}}, 0), (RowRanges{{0, 600}}));
  EXPECT_TRUE(ranges({{"id", CompareOp::IS_NULL, {}, {}}}, 0).empty());  // null_count 0
  EXPECT_EQ(ranges({{"id", CompareOp::LT, int64_t{620}, {}}}, 1), (RowRanges{{0, 50}}));
}

}  // namespace
}  // namespace kbdata::parquet
