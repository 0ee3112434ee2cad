// The normalisation rules of the conformance test (column_rules.h, file_check.h), one case each,
// matching and mismatching, so that a lenient rule cannot hide a reader bug (docs/conformance.md).
#include <gtest/gtest.h>

#include "conformance/file_check.h"

namespace kbdata::conformance {
namespace {

ColumnDescriptor make_column(PhysicalType physical, LogicalType logical = {}, int32_t length = 0) {
  ColumnDescriptor column;
  column.path = {"c"};
  column.dotted_path = "c";
  column.physical = physical;
  column.type_length = length;
  column.logical = logical;
  return column;
}

LogicalType logical(LogicalType::Kind kind) {
  LogicalType type;
  type.kind = kind;
  return type;
}

LogicalType timestamp(TimeUnit unit, bool utc) {
  LogicalType type = logical(LogicalType::Kind::TIMESTAMP);
  type.unit = unit;
  type.is_adjusted_to_utc = utc;
  return type;
}

LogicalType time_of_day(TimeUnit unit, bool utc) {
  LogicalType type = logical(LogicalType::Kind::TIME);
  type.unit = unit;
  type.is_adjusted_to_utc = utc;
  return type;
}

LogicalType decimal(int32_t precision, int32_t scale) {
  LogicalType type = logical(LogicalType::Kind::DECIMAL);
  type.decimal_precision = precision;
  type.decimal_scale = scale;
  return type;
}

Verdict::Kind verdict(const ColumnDescriptor& column, Oracle oracle, std::string_view ours,
                      const Json& expected, bool explicit_logical_type = true) {
  return ColumnRule(column, oracle, explicit_logical_type).compare(ours, expected).kind;
}

constexpr auto kEqual = Verdict::Kind::kEqual;
constexpr auto kMismatch = Verdict::Kind::kMismatch;

TEST(ConformanceRules, NullsAndNumbers) {
  const auto int64 = make_column(PhysicalType::INT64);
  EXPECT_EQ(verdict(int64, Oracle::kDuckDb, "null", nullptr), kEqual);
  EXPECT_EQ(verdict(int64, Oracle::kDuckDb, "0", nullptr), kMismatch);
  EXPECT_EQ(verdict(int64, Oracle::kDuckDb, "null", "0"), kMismatch);
  EXPECT_EQ(verdict(int64, Oracle::kDuckDb, "-9223372036854775807", "-9223372036854775807"),
            kEqual);
  EXPECT_EQ(verdict(int64, Oracle::kHyparquet, "45", 45), kEqual);
  EXPECT_EQ(verdict(int64, Oracle::kDuckDb, "45", "46"), kMismatch);
  LogicalType u64 = logical(LogicalType::Kind::INTEGER);
  u64.bit_width = 64;
  u64.is_signed = false;
  EXPECT_EQ(verdict(make_column(PhysicalType::INT64, u64), Oracle::kHyparquet,
                    "18446744073709551615", Json::parse("18446744073709551615")),
            kEqual);

  const auto float32 = make_column(PhysicalType::FLOAT);
  EXPECT_EQ(verdict(float32, Oracle::kDuckDb, "4.6", 4.599999904632568), kEqual);
  EXPECT_EQ(verdict(float32, Oracle::kDuckDb, "4.6", 4.6), kMismatch);
  EXPECT_EQ(verdict(float32, Oracle::kDuckDb, "\"NaN\"", "NaN"), kEqual);
  EXPECT_EQ(verdict(float32, Oracle::kDuckDb, "\"-Infinity\"", "-Infinity"), kEqual);
  EXPECT_EQ(verdict(float32, Oracle::kDuckDb, "\"Infinity\"", "-Infinity"), kMismatch);
  EXPECT_EQ(verdict(float32, Oracle::kHyparquet, "\"NaN\"", nullptr), kEqual);
  EXPECT_EQ(verdict(float32, Oracle::kDuckDb, "\"NaN\"", nullptr), kMismatch);
  const auto float16 =
      make_column(PhysicalType::FIXED_LEN_BYTE_ARRAY, logical(LogicalType::Kind::FLOAT16), 2);
  EXPECT_EQ(verdict(float16, Oracle::kDuckDb, "0.5", 0.5), kEqual);
  const auto float64 = make_column(PhysicalType::DOUBLE);
  EXPECT_EQ(verdict(float64, Oracle::kDuckDb, "4.7", 4.7), kEqual);
  EXPECT_EQ(verdict(float64, Oracle::kDuckDb, "4.7", 4.700000000000001), kMismatch);

  const auto dec = make_column(PhysicalType::INT32, decimal(3, 2));
  EXPECT_EQ(verdict(dec, Oracle::kDuckDb, "\"4.80\"", "4.80"), kEqual);
  EXPECT_EQ(verdict(dec, Oracle::kDuckDb, "\"-0.05\"", "-0.05"), kEqual);
  EXPECT_EQ(verdict(dec, Oracle::kDuckDb, "\"4.80\"", "4.81"), kMismatch);
  EXPECT_EQ(verdict(dec, Oracle::kDuckDb, "\"0.05\"", "-0.05"), kMismatch);
  EXPECT_EQ(verdict(dec, Oracle::kHyparquet, "\"1.00\"", 1), kEqual);
  EXPECT_EQ(verdict(dec, Oracle::kHyparquet, "\"1.01\"", 1), kMismatch);
  EXPECT_EQ(verdict(make_column(PhysicalType::BYTE_ARRAY, decimal(70, 0)), Oracle::kDuckDb,
                    "\"578960446186580977117854925043439539266\"", 5.7896044618658096e+38),
            kEqual);
}

TEST(ConformanceRules, DatesAndTimes) {
  const auto date = make_column(PhysicalType::INT32, logical(LogicalType::Kind::DATE));
  EXPECT_EQ(verdict(date, Oracle::kDuckDb, "\"2020-01-10\"", "2020-01-10"), kEqual);
  EXPECT_EQ(verdict(date, Oracle::kDuckDb, "\"2020-01-10\"", "2020-01-11"), kMismatch);
  EXPECT_EQ(verdict(date, Oracle::kDuckDb, "\"0000-01-01\"", "0001-01-01 (BC)"), kEqual);
  EXPECT_EQ(verdict(date, Oracle::kDuckDb, "\"-0001-03-01\"", "0002-03-01 (BC)"), kEqual);
  EXPECT_EQ(verdict(date, Oracle::kHyparquet, "\"2024-01-30\"", "2024-01-30T00:00:00.000Z"),
            kEqual);

  const auto local_ms = make_column(PhysicalType::INT64, timestamp(TimeUnit::MILLIS, false));
  EXPECT_EQ(
      verdict(local_ms, Oracle::kDuckDb, "\"2019-11-26T20:11:42.501\"", "2019-11-26 20:11:42.501"),
      kEqual);
  EXPECT_EQ(
      verdict(local_ms, Oracle::kDuckDb, "\"2019-11-26T20:11:42.501\"", "2019-11-26 20:11:42.502"),
      kMismatch);
  EXPECT_EQ(
      verdict(local_ms, Oracle::kDuckDb, "\"2019-11-26T20:11:42.000\"", "2019-11-26 20:11:42"),
      kEqual);
  const auto utc_us = make_column(PhysicalType::INT64, timestamp(TimeUnit::MICROS, true));
  EXPECT_EQ(
      verdict(utc_us, Oracle::kDuckDb, "\"2022-10-17T21:52:27.000000Z\"", "2022-10-17 21:52:27+00"),
      kEqual);
  // The zone must agree for an explicit logical type, not for a legacy converted type.
  EXPECT_EQ(
      verdict(utc_us, Oracle::kDuckDb, "\"2022-10-17T21:52:27.000000Z\"", "2022-10-17 21:52:27"),
      kMismatch);
  EXPECT_EQ(verdict(utc_us, Oracle::kDuckDb, "\"2022-10-17T21:52:27.000000Z\"",
                    "2022-10-17 21:52:27", false),
            kEqual);
  const auto utc_ns = make_column(PhysicalType::INT64, timestamp(TimeUnit::NANOS, true));
  EXPECT_EQ(verdict(utc_ns, Oracle::kDuckDb, "\"2011-10-06T22:21:49.580000999Z\"",
                    "2011-10-06 22:21:49.58+00"),
            kEqual);
  EXPECT_EQ(verdict(utc_ns, Oracle::kDuckDb, "\"2011-10-06T22:21:49.580001000Z\"",
                    "2011-10-06 22:21:49.58+00"),
            kMismatch);
  EXPECT_EQ(verdict(utc_ns, Oracle::kHyparquet, "\"2011-10-06T22:21:49.580999999Z\"",
                    "2011-10-06T22:21:49.580Z"),
            kEqual);
  const auto local_ns = make_column(PhysicalType::INT64, timestamp(TimeUnit::NANOS, false));
  EXPECT_EQ(verdict(local_ns, Oracle::kDuckDb, "\"1677-09-22T00:00:00.000000001\"",
                    "1677-09-22 00:00:00"),
            kMismatch);

  const auto int96 = make_column(PhysicalType::INT96);
  EXPECT_EQ(verdict(int96, Oracle::kDuckDb, "\"2024-01-01T20:34:56.123456789\"",
                    "2024-01-01 20:34:56.123456"),
            kEqual);
  EXPECT_EQ(verdict(int96, Oracle::kDuckDb, "\"-0001-03-01T00:00:00.000000000\"",
                    "0002-03-01 (BC) 00:00:00"),
            kEqual);
  EXPECT_EQ(verdict(int96, Oracle::kDuckDb, "\"-294554-12-13T14:58:10.448384000\"",
                    "226414-01-07 (BC) 22:21:39.416064"),
            Verdict::Kind::kNotComparable);

  const auto utc_time = make_column(PhysicalType::INT32, time_of_day(TimeUnit::MILLIS, true));
  EXPECT_EQ(verdict(utc_time, Oracle::kDuckDb, "\"09:31:38.827\"", "09:31:38.827+00"), kEqual);
  EXPECT_EQ(verdict(utc_time, Oracle::kDuckDb, "\"-03:51:39.000\"", "20:08:21+00"), kEqual);
  EXPECT_EQ(verdict(utc_time, Oracle::kDuckDb, "\"24:00:00.000\"", "24:00:00+00"), kEqual);
  const auto local_time = make_column(PhysicalType::INT32, time_of_day(TimeUnit::MILLIS, false));
  EXPECT_EQ(verdict(local_time, Oracle::kDuckDb, "\"82:00:00.000\"", "82:00:00"), kEqual);
  EXPECT_EQ(verdict(local_time, Oracle::kDuckDb, "\"-03:51:39.000\"", "20:08:21"), kMismatch);
}

TEST(ConformanceRules, BinariesAndStrings) {
  const auto blob = make_column(PhysicalType::BYTE_ARRAY);
  EXPECT_EQ(verdict(blob, Oracle::kDuckDb, "\"BAA=\"", "\\x04\\x00"), kEqual);
  EXPECT_EQ(verdict(blob, Oracle::kDuckDb, "\"BAA=\"", "\\x04\\x01"), kMismatch);
  EXPECT_EQ(verdict(blob, Oracle::kDuckDb, "\"YWJj\"", "abc"), kEqual);
  EXPECT_EQ(verdict(blob, Oracle::kHyparquet, "\"YWJj\"", "abc"), kEqual);
  EXPECT_EQ(verdict(blob, Oracle::kHyparquet, "\"YWJj\"", Json::parse("[97,98,99]")), kEqual);
  EXPECT_EQ(verdict(blob, Oracle::kHyparquet, "\"YWJj\"", "abd"), kMismatch);
  const auto text = make_column(PhysicalType::BYTE_ARRAY, logical(LogicalType::Kind::STRING));
  EXPECT_EQ(
      verdict(text, Oracle::kDuckDb, "\"hello\\u0000world\"", std::string("hello\0world", 11)),
      kEqual);
  EXPECT_EQ(verdict(text, Oracle::kDuckDb, "\"hello\\u0000world\"", "hello"), kMismatch);
  EXPECT_EQ(verdict(text, Oracle::kDuckDb, "\"abc\"", "abc "), kMismatch);
  const auto uuid =
      make_column(PhysicalType::FIXED_LEN_BYTE_ARRAY, logical(LogicalType::Kind::UUID), 16);
  EXPECT_EQ(verdict(uuid, Oracle::kDuckDb, "\"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11\"",
                    "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11"),
            kEqual);
  const auto geometry = make_column(PhysicalType::BYTE_ARRAY, logical(LogicalType::Kind::GEOMETRY));
  EXPECT_EQ(verdict(geometry, Oracle::kHyparquet, "\"AQEAAAAAAAAAAAA+QAAAAAAAACRA\"",
                    Json::parse(R"({"type": "Point", "coordinates": [30, 10]})")),
            kEqual);
  EXPECT_EQ(
      verdict(geometry, Oracle::kHyparquet,
              "\"AAAAA+oAAAACQD4AAAAAAABAJAAAAAAAAEBEAAAAAAAAQCQAAAAAAABAPgAAAAAAAEBEAAAAAAAA\"",
              Json::parse(R"({"type":"LineString","coordinates":[[30,10,40],[10,30,40]]})")),
      kEqual);
  EXPECT_EQ(verdict(geometry, Oracle::kHyparquet, "\"AQEAAAAAAAAAAAA+QAAAAAAAACRA\"",
                    Json::parse(R"({"type": "Point", "coordinates": [30, 11]})")),
            kMismatch);
  const auto null_type = make_column(PhysicalType::INT32, logical(LogicalType::Kind::UNKNOWN));
  EXPECT_EQ(verdict(null_type, Oracle::kDuckDb, "null", nullptr), kEqual);
}

TEST(ConformanceRules, CsvAndFeatures) {
  const auto text = make_column(PhysicalType::BYTE_ARRAY, logical(LogicalType::Kind::STRING));
  const auto int32 = make_column(PhysicalType::INT32);
  const fs::path path = fs::path(::testing::TempDir()) / "conformance_rules.csv";
  {
    std::ofstream out(path, std::ios::binary);
    out << "\"a\",b\r\n\"x,\"\"y\"\"\",12\n\"\",\n";
  }
  const OracleTable csv = load_csv_oracle(path);
  fs::remove(path);
  ASSERT_EQ(csv.rows.size(), 2u);
  EXPECT_EQ(csv.names, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(verdict(text, Oracle::kCsv, "\"x,\\\"y\\\"\"", csv.rows[0][0]), kEqual);
  EXPECT_EQ(verdict(int32, Oracle::kCsv, "12", csv.rows[0][1]), kEqual);
  EXPECT_EQ(verdict(text, Oracle::kCsv, "\"\"", csv.rows[1][0]), kEqual);
  EXPECT_EQ(verdict(int32, Oracle::kCsv, "null", csv.rows[1][1]), kEqual);
}

// The VARIANT rules: values by JSON type, dates and timestamps at the oracle's resolution.
TEST(ConformanceRules, VariantValues) {
  const auto same = [](const char* ours, const char* want, Oracle oracle) {
    return variant_difference(Json::parse(ours), Json::parse(want), "v", oracle).empty();
  };
  const Oracle duckdb = Oracle::kDuckDb, hyparquet = Oracle::kHyparquet;
  EXPECT_TRUE(
      same(R"({"a":[1,"x",null,true],"b":{}})", R"({"b":{},"a":[1,"x",null,true]})", duckdb));
  EXPECT_FALSE(same(R"({"a":1})", R"({"a":1,"b":null})", hyparquet));  // a missing key
  EXPECT_FALSE(same(R"({"a":1})", R"({"b":1})", duckdb));
  EXPECT_FALSE(same("[1,2]", "[2,1]", duckdb));
  EXPECT_TRUE(same("4.5", "4.5", duckdb));
  EXPECT_FALSE(same("1", R"("1")", duckdb));  // no string-number equivalence
  EXPECT_FALSE(same(R"("30")", R"("30.0")", duckdb));
  EXPECT_FALSE(same("null", "false", duckdb));
  // hyparquet's JavaScript Dates: milliseconds, always "Z".
  EXPECT_TRUE(same(R"("2024-01-30")", R"("2024-01-30T00:00:00.000Z")", hyparquet));
  EXPECT_FALSE(same(R"("2024-01-31")", R"("2024-01-30T00:00:00.000Z")", hyparquet));
  EXPECT_TRUE(same(R"("2024-01-15T10:30:00.123456")", R"("2024-01-15T10:30:00.123Z")", hyparquet));
  EXPECT_FALSE(same(R"("2024-01-15T10:30:00.124")", R"("2024-01-15T10:30:00.123Z")", hyparquet));
  // DuckDB: microseconds, trailing zeros trimmed.
  EXPECT_TRUE(same(R"("2024-01-15T10:30:00.500000Z")", R"("2024-01-15 10:30:00.5+00")", duckdb));
  EXPECT_FALSE(same(R"("2024-01-15T10:30:00.500001Z")", R"("2024-01-15 10:30:00.5+00")", duckdb));
  EXPECT_FALSE(same(R"("hello")", R"("2024-01-15 10:30:00")", duckdb));
}

// The nested rules: a schema with a nullable list of nullable ints, a map and a struct.
//   optional group l (LIST) { repeated group list { optional int32 element; } }
//   optional group m (MAP) { repeated group key_value { required binary key (STRING);
//                                                       optional int32 value; } }
//   optional group s { optional int32 a; optional int32 b; }
//   repeated int32 r;
TEST(ConformanceRules, NestedValues) {
  using parquet::ConvertedType;
  using parquet::Repetition;
  const auto group = [](std::string name, Repetition repetition, int children,
                        std::optional<ConvertedType> converted = std::nullopt) {
    parquet::SchemaElement e;
    e.name = std::move(name);
    e.repetition_type = repetition;
    e.num_children = children;
    e.converted_type = converted;
    return e;
  };
  const auto leaf = [](std::string name, Repetition repetition, PhysicalType type,
                       std::optional<ConvertedType> converted = std::nullopt) {
    parquet::SchemaElement e;
    e.name = std::move(name);
    e.repetition_type = repetition;
    e.type = type;
    e.converted_type = converted;
    return e;
  };
  parquet::SchemaElement root;
  root.name = "schema";
  root.num_children = 4;
  const parquet::Schema schema = parquet::Schema::from_elements({
      root,
      group("l", Repetition::OPTIONAL, 1, ConvertedType::LIST),
      group("list", Repetition::REPEATED, 1),
      leaf("element", Repetition::OPTIONAL, PhysicalType::INT32),
      group("m", Repetition::OPTIONAL, 1, ConvertedType::MAP),
      group("key_value", Repetition::REPEATED, 2),
      leaf("key", Repetition::REQUIRED, PhysicalType::BYTE_ARRAY, ConvertedType::UTF8),
      leaf("value", Repetition::OPTIONAL, PhysicalType::INT32),
      group("s", Repetition::OPTIONAL, 2),
      leaf("a", Repetition::OPTIONAL, PhysicalType::INT32),
      leaf("b", Repetition::OPTIONAL, PhysicalType::INT32),
      leaf("r", Repetition::REPEATED, PhysicalType::INT32),
  });
  const auto& top = schema.root().children;
  const auto check = [&](Oracle oracle, size_t field, const char* ours, const char* expected) {
    std::vector<ColumnRule> rules;
    for (const auto& column : schema.leaves()) rules.emplace_back(column, oracle, false);
    ValueStats stats;
    std::vector<std::string> notes;
    NestedComparer comparer(rules, oracle, stats, notes);
    const Json want = Json::parse(expected);
    return comparer.field(top[field], Json::parse(ours), &want, top[field].name);
  };
  // Lists: null, empty and [null] differ; lengths and elements must match.
  EXPECT_EQ(check(Oracle::kDuckDb, 0, "[1,null]", "[1,null]"), "");
  EXPECT_NE(check(Oracle::kDuckDb, 0, "[]", "null"), "");
  EXPECT_NE(check(Oracle::kDuckDb, 0, "[null]", "[]"), "");
  EXPECT_NE(check(Oracle::kDuckDb, 0, "[1]", "[1,2]"), "");
  EXPECT_NE(check(Oracle::kHyparquet, 0, "[]", "null"), "");  // a nullable list stays exact
  // A bare repeated field cannot be null: hyparquet's null is our [].
  EXPECT_EQ(check(Oracle::kHyparquet, 3, "[]", "null"), "");
  EXPECT_NE(check(Oracle::kHyparquet, 3, "[1]", "null"), "");
  // Maps: DuckDB arrays of {key, value}; hyparquet objects keyed by the key.
  EXPECT_EQ(check(Oracle::kDuckDb, 1, R"([{"key":"k","value":1}])", R"([{"key":"k","value":1}])"),
            "");
  EXPECT_NE(check(Oracle::kDuckDb, 1, R"([{"key":"k","value":1}])", R"([{"key":"k","value":2}])"),
            "");
  EXPECT_EQ(check(Oracle::kHyparquet, 1, R"([{"key":"k","value":1},{"key":"j","value":null}])",
                  R"({"j":null,"k":1})"),
            "");
  EXPECT_NE(check(Oracle::kHyparquet, 1, R"([{"key":"k","value":1}])", R"({"x":1})"), "");
  // Structs: DuckDB writes every field; hyparquet leaves null fields out.
  EXPECT_EQ(check(Oracle::kDuckDb, 2, R"({"a":1,"b":null})", R"({"a":1,"b":null})"), "");
  EXPECT_NE(check(Oracle::kDuckDb, 2, R"({"a":1,"b":null})", R"({"a":1})"), "");
  EXPECT_EQ(check(Oracle::kHyparquet, 2, R"({"a":1,"b":null})", R"({"a":1})"), "");
  EXPECT_NE(check(Oracle::kHyparquet, 2, R"({"a":1,"b":2})", R"({"a":1})"), "");
  EXPECT_NE(check(Oracle::kDuckDb, 2, R"({"a":1,"b":null})", R"({"a":1,"b":null,"c":3})"), "");
  EXPECT_NE(check(Oracle::kDuckDb, 2, "null", R"({"a":null,"b":null})"), "");
}

}  // namespace
}  // namespace kbdata::conformance
