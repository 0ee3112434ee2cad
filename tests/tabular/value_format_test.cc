#include "tabular/value_format.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace kbdata::tabular {
namespace {

using parquet::ColumnDescriptor;
using parquet::LogicalType;
using parquet::PhysicalType;
using parquet::TimeUnit;
using parquet::ValueBuffer;
using Kind = LogicalType::Kind;
using Bytes = std::vector<uint8_t>;

// ValueBuffers are built field by field (for_type needs kbdata_parquet's fixed_width()).
template <typename T>
ValueBuffer fixed_values(PhysicalType type, const std::vector<T>& values) {
  ValueBuffer buffer;
  buffer.type = type;
  buffer.width = sizeof(T);
  buffer.count = values.size();
  buffer.data.resize(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(buffer.data.data(), values.data(), buffer.data.size());
  return buffer;
}

ValueBuffer flba_values(int width, const std::vector<Bytes>& values) {
  ValueBuffer buffer;
  buffer.type = PhysicalType::FIXED_LEN_BYTE_ARRAY;
  buffer.width = width;
  for (const Bytes& value : values) {
    EXPECT_EQ(value.size(), static_cast<size_t>(width));
    buffer.data.insert(buffer.data.end(), value.begin(), value.end());
    ++buffer.count;
  }
  return buffer;
}

ValueBuffer binary_values(const std::vector<Bytes>& values) {
  ValueBuffer buffer;
  buffer.type = PhysicalType::BYTE_ARRAY;
  buffer.width = 0;
  for (const Bytes& value : values) buffer.append_binary(value);
  return buffer;
}

ValueBuffer string_values(const std::vector<std::string>& values) {
  std::vector<Bytes> bytes;
  for (const std::string& value : values) bytes.emplace_back(value.begin(), value.end());
  return binary_values(bytes);
}

ValueBuffer int96_values(const std::vector<Bytes>& values) {
  ValueBuffer buffer = flba_values(12, values);
  buffer.type = PhysicalType::INT96;
  return buffer;
}

ColumnDescriptor column(PhysicalType physical, LogicalType logical = {}, int32_t type_length = 0) {
  ColumnDescriptor descriptor;
  descriptor.path = {"c"};
  descriptor.dotted_path = "c";
  descriptor.physical = physical;
  descriptor.type_length = type_length;
  descriptor.logical = logical;
  return descriptor;
}

LogicalType logical(Kind kind) {
  LogicalType type;
  type.kind = kind;
  return type;
}

LogicalType integer(int bit_width, bool is_signed) {
  LogicalType type = logical(Kind::INTEGER);
  type.bit_width = static_cast<int8_t>(bit_width);
  type.is_signed = is_signed;
  return type;
}

LogicalType decimal(int precision, int scale) {
  LogicalType type = logical(Kind::DECIMAL);
  type.decimal_precision = precision;
  type.decimal_scale = scale;
  return type;
}

LogicalType time_type(Kind kind, TimeUnit unit, bool utc) {
  LogicalType type = logical(kind);
  type.unit = unit;
  type.is_adjusted_to_utc = utc;
  return type;
}

std::string json(const ColumnDescriptor& column, const ValueBuffer& values, size_t i = 0) {
  std::string out;
  append_json_value(out, column, values, i);
  return out;
}

std::string text(const ColumnDescriptor& column, const ValueBuffer& values, size_t i = 0) {
  std::string out;
  append_text_value(out, column, values, i);
  return out;
}

Bytes hex(std::string_view digits) {
  Bytes bytes;
  for (size_t k = 0; k + 1 < digits.size(); k += 2) {
    bytes.push_back(static_cast<uint8_t>(std::stoi(std::string(digits.substr(k, 2)), nullptr, 16)));
  }
  return bytes;
}

// DECIMAL of a big-endian byte string stored as BYTE_ARRAY, rendered as JSON.
std::string binary_decimal(std::string_view digits, int scale) {
  return json(column(PhysicalType::BYTE_ARRAY, decimal(76, scale)), binary_values({hex(digits)}));
}

const std::string kFffd = "\xEF\xBF\xBD";

// ---- Integers and booleans

TEST(ValueFormat, Booleans) {
  const auto values = fixed_values<uint8_t>(PhysicalType::BOOLEAN, {1, 0});
  const auto c = column(PhysicalType::BOOLEAN);
  EXPECT_EQ(json(c, values, 0), "true");
  EXPECT_EQ(json(c, values, 1), "false");
  EXPECT_EQ(text(c, values, 1), "false");
}

TEST(ValueFormat, Int32) {
  const auto values = fixed_values<int32_t>(
      PhysicalType::INT32,
      {0, -7, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()});
  const auto c = column(PhysicalType::INT32);
  EXPECT_EQ(json(c, values, 0), "0");
  EXPECT_EQ(json(c, values, 1), "-7");
  EXPECT_EQ(json(c, values, 2), "-2147483648");
  EXPECT_EQ(text(c, values, 3), "2147483647");
}

TEST(ValueFormat, Int64ExtremesAreExact) {
  const auto values = fixed_values<int64_t>(
      PhysicalType::INT64,
      {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(), -1});
  const auto c = column(PhysicalType::INT64);
  EXPECT_EQ(json(c, values, 0), "-9223372036854775808");
  EXPECT_EQ(json(c, values, 1), "9223372036854775807");
  EXPECT_EQ(json(column(PhysicalType::INT64, integer(64, true)), values, 2), "-1");
}

TEST(ValueFormat, UnsignedIntegersReinterpretTheBits) {
  const auto int64s = fixed_values<int64_t>(PhysicalType::INT64, {-1, 42});
  EXPECT_EQ(json(column(PhysicalType::INT64, integer(64, false)), int64s, 0),
            "18446744073709551615");
  EXPECT_EQ(json(column(PhysicalType::INT64, integer(64, false)), int64s, 1), "42");

  const auto int32s = fixed_values<int32_t>(PhysicalType::INT32, {-1, 200, -56, 65535});
  EXPECT_EQ(json(column(PhysicalType::INT32, integer(32, false)), int32s, 0), "4294967295");
  EXPECT_EQ(json(column(PhysicalType::INT32, integer(16, false)), int32s, 0), "65535");
  EXPECT_EQ(json(column(PhysicalType::INT32, integer(16, false)), int32s, 3), "65535");
  EXPECT_EQ(json(column(PhysicalType::INT32, integer(8, false)), int32s, 1), "200");
  EXPECT_EQ(json(column(PhysicalType::INT32, integer(8, false)), int32s, 2), "200");
  EXPECT_EQ(text(column(PhysicalType::INT32, integer(8, false)), int32s, 0), "255");
}

TEST(ValueFormat, SignedSmallIntegersAreTheInt32Value) {
  const auto int32s = fixed_values<int32_t>(PhysicalType::INT32, {-5, 300});
  EXPECT_EQ(json(column(PhysicalType::INT32, integer(8, true)), int32s, 0), "-5");
  EXPECT_EQ(json(column(PhysicalType::INT32, integer(16, true)), int32s, 1), "300");
}

TEST(ValueFormat, MismatchedIntegerAnnotationsRenderByPhysicalType) {
  const auto int32s = fixed_values<int32_t>(PhysicalType::INT32, {-1});
  EXPECT_EQ(json(column(PhysicalType::INT32, integer(64, false)), int32s), "-1");
  const auto int64s = fixed_values<int64_t>(PhysicalType::INT64, {-1});
  EXPECT_EQ(json(column(PhysicalType::INT64, integer(32, false)), int64s), "-1");
}

// ---- Floating point

TEST(ValueFormat, FloatsUseShortestRoundTripForm) {
  const auto values = fixed_values<float>(PhysicalType::FLOAT, {4.6f, -0.0f, 1e-10f, 3.0f});
  const auto c = column(PhysicalType::FLOAT);
  EXPECT_EQ(json(c, values, 0), "4.6");
  EXPECT_EQ(json(c, values, 1), "-0");
  EXPECT_EQ(json(c, values, 2), "1e-10");
  EXPECT_EQ(text(c, values, 3), "3");
}

TEST(ValueFormat, Doubles) {
  const auto values = fixed_values<double>(PhysicalType::DOUBLE, {0.1, 4.6, 1e300, -2.5e-8});
  const auto c = column(PhysicalType::DOUBLE);
  EXPECT_EQ(json(c, values, 0), "0.1");
  EXPECT_EQ(json(c, values, 1), "4.6");
  EXPECT_EQ(json(c, values, 2), "1e+300");
  EXPECT_EQ(json(c, values, 3), "-2.5e-08");
}

TEST(ValueFormat, NonFiniteFloatsAreStrings) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const auto doubles = fixed_values<double>(
      PhysicalType::DOUBLE, {std::numeric_limits<double>::quiet_NaN(), kInf, -kInf, -std::nan("")});
  const auto d = column(PhysicalType::DOUBLE);
  EXPECT_EQ(json(d, doubles, 0), "\"NaN\"");
  EXPECT_EQ(json(d, doubles, 1), "\"Infinity\"");
  EXPECT_EQ(json(d, doubles, 2), "\"-Infinity\"");
  EXPECT_EQ(json(d, doubles, 3), "\"NaN\"");
  EXPECT_EQ(text(d, doubles, 0), "NaN");
  EXPECT_EQ(text(d, doubles, 1), "Infinity");
  EXPECT_EQ(text(d, doubles, 2), "-Infinity");

  constexpr float kInfF = std::numeric_limits<float>::infinity();
  const auto floats = fixed_values<float>(PhysicalType::FLOAT,
                                          {std::numeric_limits<float>::quiet_NaN(), kInfF, -kInfF});
  const auto f = column(PhysicalType::FLOAT);
  EXPECT_EQ(json(f, floats, 0), "\"NaN\"");
  EXPECT_EQ(json(f, floats, 1), "\"Infinity\"");
  EXPECT_EQ(json(f, floats, 2), "\"-Infinity\"");
  EXPECT_EQ(text(f, floats, 2), "-Infinity");
}

TEST(ValueFormat, HalfToFloatIsExact) {
  EXPECT_EQ(half_to_float(0x3C00), 1.0f);
  EXPECT_EQ(half_to_float(0xC100), -2.5f);
  EXPECT_EQ(half_to_float(0x7BFF), 65504.0f);
  EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0f, -24));     // smallest subnormal
  EXPECT_EQ(half_to_float(0x03FF), std::ldexp(1023.0f, -24));  // largest subnormal
  EXPECT_EQ(half_to_float(0x0400), std::ldexp(1.0f, -14));     // smallest normal
  EXPECT_EQ(half_to_float(0x3555), std::ldexp(1365.0f, -12));  // (1 + 341/1024) / 4
  EXPECT_EQ(half_to_float(0x0000), 0.0f);
  EXPECT_TRUE(std::signbit(half_to_float(0x8000)));
  EXPECT_EQ(half_to_float(0x7C00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(half_to_float(0xFC00), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(half_to_float(0x7E00)));
  EXPECT_TRUE(std::isnan(half_to_float(0x7C01)));
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {  // every finite half is in range and exact
    const float value = half_to_float(static_cast<uint16_t>(bits));
    if (((bits >> 10) & 0x1F) != 0x1F) {
      EXPECT_TRUE(std::isfinite(value)) << bits;
      EXPECT_LE(std::fabs(value), 65504.0f) << bits;
    }
  }
}

TEST(ValueFormat, Float16RendersLikeFloat) {
  const auto values = flba_values(2, {{0x00, 0x3C},
                                      {0x00, 0xC1},
                                      {0xFF, 0x7B},
                                      {0x01, 0x00},
                                      {0xFF, 0x03},
                                      {0x00, 0x7C},
                                      {0x00, 0xFC},
                                      {0x00, 0x7E},
                                      {0x00, 0x80},
                                      {0x66, 0x2E}});
  const auto c = column(PhysicalType::FIXED_LEN_BYTE_ARRAY, logical(Kind::FLOAT16), 2);
  EXPECT_EQ(json(c, values, 0), "1");
  EXPECT_EQ(json(c, values, 1), "-2.5");
  EXPECT_EQ(json(c, values, 2), "65504");
  EXPECT_EQ(json(c, values, 3), "5.9604645e-08");  // 2^-24
  EXPECT_EQ(json(c, values, 4), "6.097555e-05");   // 1023 * 2^-24
  EXPECT_EQ(json(c, values, 5), "\"Infinity\"");
  EXPECT_EQ(json(c, values, 6), "\"-Infinity\"");
  EXPECT_EQ(json(c, values, 7), "\"NaN\"");
  EXPECT_EQ(json(c, values, 8), "-0");
  EXPECT_EQ(json(c, values, 9), "0.099975586");  // the half nearest 0.1
  EXPECT_EQ(text(c, values, 7), "NaN");
  EXPECT_EQ(text(c, values, 1), "-2.5");
}

TEST(ValueFormat, Float16OfAnotherWidthIsBase64) {
  const auto values = flba_values(3, {{1, 2, 3}});
  EXPECT_EQ(json(column(PhysicalType::FIXED_LEN_BYTE_ARRAY, logical(Kind::FLOAT16), 3), values),
            "\"AQID\"");
}

// ---- Strings and binaries

TEST(ValueFormat, StringsAreJsonStrings) {
  const auto values = string_values({"h\xC3\xA9llo", "a\"b\\c\n\t\x01", ""});
  for (Kind kind : {Kind::STRING, Kind::ENUM, Kind::JSON}) {
    const auto c = column(PhysicalType::BYTE_ARRAY, logical(kind));
    EXPECT_EQ(json(c, values, 0), "\"h\xC3\xA9llo\"");
    EXPECT_EQ(json(c, values, 1), R"("a\"b\\c\n\t\u0001")");
    EXPECT_EQ(json(c, values, 2), "\"\"");
    EXPECT_EQ(text(c, values, 0), "h\xC3\xA9llo");
    EXPECT_EQ(text(c, values, 1), "a\"b\\c\n\t\x01");
    EXPECT_EQ(text(c, values, 2), "");
  }
}

TEST(ValueFormat, JsonLogicalTypeIsAStringOfTheJsonText) {
  const auto values = string_values({R"({"a":[1,2]})"});
  EXPECT_EQ(json(column(PhysicalType::BYTE_ARRAY, logical(Kind::JSON)), values),
            R"("{\"a\":[1,2]}")");
}

TEST(ValueFormat, InvalidUtf8IsReplaced) {
  const auto values =
      string_values({"a\xFF"
                     "b",
                     "\xC0\xAF", "ok\xE2\x82"});
  const auto c = column(PhysicalType::BYTE_ARRAY, logical(Kind::STRING));
  EXPECT_EQ(json(c, values, 0), "\"a" + kFffd + "b\"");
  EXPECT_EQ(json(c, values, 1), "\"" + kFffd + kFffd + "\"");
  EXPECT_EQ(json(c, values, 2), "\"ok" + kFffd + "\"");
  EXPECT_EQ(text(c, values, 0), "a" + kFffd + "b");
}

TEST(ValueFormat, UnannotatedBinariesAreBase64) {
  const auto binaries = binary_values({{'f', 'o', 'o', 'b'}, {}, {0xFF, 0xFE}});
  const auto c = column(PhysicalType::BYTE_ARRAY);
  EXPECT_EQ(json(c, binaries, 0), "\"Zm9vYg==\"");
  EXPECT_EQ(json(c, binaries, 1), "\"\"");
  EXPECT_EQ(json(c, binaries, 2), "\"//4=\"");
  EXPECT_EQ(text(c, binaries, 0), "Zm9vYg==");

  const auto fixed = flba_values(3, {{'f', 'o', 'o'}});
  EXPECT_EQ(json(column(PhysicalType::FIXED_LEN_BYTE_ARRAY, {}, 3), fixed), "\"Zm9v\"");
  // An INTERVAL (legacy ConvertedType, no LogicalType): 12 bytes, base64.
  const auto interval = flba_values(12, {{1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0}});
  EXPECT_EQ(json(column(PhysicalType::FIXED_LEN_BYTE_ARRAY, {}, 12), interval),
            "\"AQAAAAIAAAADAAAA\"");
}

TEST(ValueFormat, BsonAndNewerTypesRenderByPhysicalType) {
  const auto binaries = binary_values({{'f', 'o', 'o'}});
  for (Kind kind :
       {Kind::BSON, Kind::VARIANT, Kind::GEOMETRY, Kind::GEOGRAPHY, Kind::UNRECOGNISED}) {
    EXPECT_EQ(json(column(PhysicalType::BYTE_ARRAY, logical(kind)), binaries), "\"Zm9v\"");
  }
  const auto int32s = fixed_values<int32_t>(PhysicalType::INT32, {5});
  EXPECT_EQ(json(column(PhysicalType::INT32, logical(Kind::UNRECOGNISED)), int32s), "5");
}

TEST(ValueFormat, UnexpectedCombinationsRenderByPhysicalType) {
  const auto binaries = binary_values({{'f', 'o', 'o'}});
  EXPECT_EQ(json(column(PhysicalType::BYTE_ARRAY, logical(Kind::DATE)), binaries), "\"Zm9v\"");
  EXPECT_EQ(json(column(PhysicalType::BYTE_ARRAY, logical(Kind::UUID)), binaries), "\"Zm9v\"");
  EXPECT_EQ(json(column(PhysicalType::BYTE_ARRAY, integer(32, false)), binaries), "\"Zm9v\"");
  EXPECT_EQ(json(column(PhysicalType::BYTE_ARRAY, logical(Kind::MAP)), binaries), "\"Zm9v\"");
  const auto fixed = flba_values(3, {{'f', 'o', 'o'}});
  EXPECT_EQ(json(column(PhysicalType::FIXED_LEN_BYTE_ARRAY, logical(Kind::STRING), 3), fixed),
            "\"Zm9v\"");
  const auto int32s = fixed_values<int32_t>(PhysicalType::INT32, {-1});
  EXPECT_EQ(json(column(PhysicalType::INT32, logical(Kind::STRING)), int32s), "-1");
  EXPECT_EQ(
      json(column(PhysicalType::INT32, time_type(Kind::TIMESTAMP, TimeUnit::MILLIS, true)), int32s),
      "-1");
  EXPECT_EQ(
      json(column(PhysicalType::INT32, time_type(Kind::TIME, TimeUnit::MICROS, false)), int32s),
      "-1");
  const auto int64s = fixed_values<int64_t>(PhysicalType::INT64, {-1});
  EXPECT_EQ(
      json(column(PhysicalType::INT64, time_type(Kind::TIME, TimeUnit::MILLIS, false)), int64s),
      "-1");
  EXPECT_EQ(json(column(PhysicalType::INT64, logical(Kind::DATE)), int64s), "-1");
  const auto doubles = fixed_values<double>(PhysicalType::DOUBLE, {1.5});
  EXPECT_EQ(json(column(PhysicalType::DOUBLE, decimal(10, 2)), doubles), "1.5");
  const auto booleans = fixed_values<uint8_t>(PhysicalType::BOOLEAN, {1});
  EXPECT_EQ(json(column(PhysicalType::BOOLEAN, logical(Kind::STRING)), booleans), "true");
}

TEST(ValueFormat, UnknownTypeIsAlwaysNull) {
  const auto int32s = fixed_values<int32_t>(PhysicalType::INT32, {5});
  const auto c = column(PhysicalType::INT32, logical(Kind::UNKNOWN));
  EXPECT_EQ(json(c, int32s), "null");
  EXPECT_EQ(text(c, int32s), "");
  EXPECT_TRUE(ValueFormatter(c).always_null());
  const auto binaries = binary_values({{'x'}});
  EXPECT_EQ(json(column(PhysicalType::BYTE_ARRAY, logical(Kind::UNKNOWN)), binaries), "null");
  EXPECT_FALSE(ValueFormatter(column(PhysicalType::INT32)).always_null());
}

TEST(ValueFormat, Uuid) {
  const auto values = flba_values(
      16, {hex("123e4567e89b12d3a456426614174000"), hex("ffffffffffffffffffffffffffffffff")});
  const auto c = column(PhysicalType::FIXED_LEN_BYTE_ARRAY, logical(Kind::UUID), 16);
  EXPECT_EQ(json(c, values, 0), "\"123e4567-e89b-12d3-a456-426614174000\"");
  EXPECT_EQ(text(c, values, 1), "ffffffff-ffff-ffff-ffff-ffffffffffff");
  const auto short_values = flba_values(4, {{0, 0, 0, 0}});
  EXPECT_EQ(json(column(PhysicalType::FIXED_LEN_BYTE_ARRAY, logical(Kind::UUID), 4), short_values),
            "\"AAAAAA==\"");
}

// ---- Decimals

TEST(ValueFormat, DecimalOnInt32) {
  const auto values = fixed_values<int32_t>(PhysicalType::INT32, {-1250, 5, -5, 0, 123, 100});
  const auto c = column(PhysicalType::INT32, decimal(9, 2));
  EXPECT_EQ(json(c, values, 0), "\"-12.50\"");
  EXPECT_EQ(json(c, values, 1), "\"0.05\"");
  EXPECT_EQ(json(c, values, 2), "\"-0.05\"");
  EXPECT_EQ(json(c, values, 3), "\"0.00\"");
  EXPECT_EQ(text(c, values, 4), "1.23");
  EXPECT_EQ(text(c, values, 5), "1.00");
  EXPECT_EQ(text(column(PhysicalType::INT32, decimal(9, 0)), values, 4), "123");
  EXPECT_EQ(text(column(PhysicalType::INT32, decimal(9, 5)), values, 4), "0.00123");
  EXPECT_EQ(text(column(PhysicalType::INT32, decimal(9, 3)), values, 4), "0.123");
  EXPECT_EQ(text(column(PhysicalType::INT32, decimal(9, -2)), values, 4), "12300");
  EXPECT_EQ(text(column(PhysicalType::INT32, decimal(9, -2)), values, 2), "-500");
  EXPECT_EQ(text(column(PhysicalType::INT32, decimal(9, -2)), values, 3), "0");
}

TEST(ValueFormat, DecimalOnInt64) {
  const auto values = fixed_values<int64_t>(
      PhysicalType::INT64,
      {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(), -1});
  const auto c = column(PhysicalType::INT64, decimal(18, 4));
  EXPECT_EQ(json(c, values, 0), "\"-922337203685477.5808\"");
  EXPECT_EQ(json(c, values, 1), "\"922337203685477.5807\"");
  EXPECT_EQ(json(c, values, 2), "\"-0.0001\"");
  EXPECT_EQ(text(column(PhysicalType::INT64, decimal(18, 25)), values, 0),
            "-0.0000009223372036854775808");
}

TEST(ValueFormat, DecimalOfOneByte) {
  EXPECT_EQ(binary_decimal("7f", 0), "\"127\"");
  EXPECT_EQ(binary_decimal("80", 0), "\"-128\"");
  EXPECT_EQ(binary_decimal("ff", 2), "\"-0.01\"");
  EXPECT_EQ(binary_decimal("00", 2), "\"0.00\"");
  EXPECT_EQ(binary_decimal("0c", 1), "\"1.2\"");
}

TEST(ValueFormat, DecimalOfNoBytesIsZero) {
  EXPECT_EQ(binary_decimal("", 0), "\"0\"");
  EXPECT_EQ(binary_decimal("", 3), "\"0.000\"");
  EXPECT_EQ(binary_decimal("", -3), "\"0\"");
}

TEST(ValueFormat, DecimalOfEightBytes) {
  EXPECT_EQ(binary_decimal("7fffffffffffffff", 0), "\"9223372036854775807\"");
  EXPECT_EQ(binary_decimal("8000000000000000", 0), "\"-9223372036854775808\"");
  EXPECT_EQ(binary_decimal("8000000000000000", 19), "\"-0.9223372036854775808\"");
  EXPECT_EQ(binary_decimal("fffffffffffffb1e", 2), "\"-12.50\"");
}

TEST(ValueFormat, DecimalOfSixteenBytes) {
  EXPECT_EQ(binary_decimal("7fffffffffffffffffffffffffffffff", 0),
            "\"170141183460469231731687303715884105727\"");
  EXPECT_EQ(binary_decimal("80000000000000000000000000000000", 0),
            "\"-170141183460469231731687303715884105728\"");
  EXPECT_EQ(binary_decimal("7fffffffffffffffffffffffffffffff", 38),
            "\"1.70141183460469231731687303715884105727\"");
  EXPECT_EQ(binary_decimal("80000000000000000000000000000000", 40),
            "\"-0.0170141183460469231731687303715884105728\"");
  EXPECT_EQ(binary_decimal("ffffffffffffffffffffffffffffffff", 0), "\"-1\"");
  EXPECT_EQ(binary_decimal("00000000000000000000000000000001", 3), "\"0.001\"");
  // Just past 64 bits, and just inside unsigned 64 bits, in 9 bytes.
  EXPECT_EQ(binary_decimal("010000000000000000", 0), "\"18446744073709551616\"");
  EXPECT_EQ(binary_decimal("008ac7230489e80000", 0), "\"10000000000000000000\"");
  EXPECT_EQ(binary_decimal("ff7538dcfb76180000", 0), "\"-10000000000000000000\"");
  // Ten to the 19, times two: the low 19 digits are zero-padded.
  EXPECT_EQ(binary_decimal("0000000000000001158e460913d00000", 0), "\"20000000000000000000\"");
  EXPECT_EQ(binary_decimal("0000000000000001158e460913d00001", 0), "\"20000000000000000001\"");
}

TEST(ValueFormat, DecimalOfSeventeenBytes) {
  EXPECT_EQ(binary_decimal("0100000000000000000000000000000000", 0),
            "\"340282366920938463463374607431768211456\"");
  EXPECT_EQ(binary_decimal("ff00000000000000000000000000000000", 0),
            "\"-340282366920938463463374607431768211456\"");
  EXPECT_EQ(binary_decimal("8000000000000000000000000000000000", 0),
            "\"-43556142965880123323311949751266331066368\"");
  EXPECT_EQ(binary_decimal("1d6329f1c35ca4bfabb9f5610000000000", 40),
            "\"1.0000000000000000000000000000000000000000\"");
  EXPECT_EQ(binary_decimal("e29cd60e3ca35b4054460a9f0000000000", 0),
            "\"-10000000000000000000000000000000000000000\"");
  EXPECT_EQ(binary_decimal("e29cd60e3ca35b4054460a9f0000000000", 45),
            "\"-0.000010000000000000000000000000000000000000000\"");
  // Redundant sign bytes do not change the value.
  EXPECT_EQ(binary_decimal("0000000000000000000000000000000005", 1), "\"0.5\"");
  EXPECT_EQ(binary_decimal("ffffffffffffffffffffffffffffffffff", 0), "\"-1\"");
}

TEST(ValueFormat, DecimalOfThirtyTwoBytes) {
  const std::string max = "7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff";
  const std::string min = "8000000000000000000000000000000000000000000000000000000000000000";
  EXPECT_EQ(binary_decimal(max, 0),
            "\"57896044618658097711785492504343953926634992332820282019728792003956564819967\"");
  EXPECT_EQ(binary_decimal(min, 0),
            "\"-57896044618658097711785492504343953926634992332820282019728792003956564819968\"");
  EXPECT_EQ(binary_decimal(max, 10),
            "\"5789604461865809771178549250434395392663499233282028201972879200395.6564819967\"");
  EXPECT_EQ(
      binary_decimal(min, 80),
      "\"-0.00057896044618658097711785492504343953926634992332820282019728792003956564819968\"");
  EXPECT_EQ(
      binary_decimal(min, -3),
      "\"-57896044618658097711785492504343953926634992332820282019728792003956564819968000\"");
  EXPECT_EQ(binary_decimal("ffffffffffffffffffffffffffffff8000000000000000000000000000000000", 0),
            "\"-43556142965880123323311949751266331066368\"");
}

TEST(ValueFormat, DecimalOnFixedLenByteArray) {
  const auto values = flba_values(5, {hex("ffffffff85"), hex("00000004d2")});
  const auto c = column(PhysicalType::FIXED_LEN_BYTE_ARRAY, decimal(10, 3), 5);
  EXPECT_EQ(json(c, values, 0), "\"-0.123\"");
  EXPECT_EQ(text(c, values, 1), "1.234");
}

TEST(ValueFormat, HugeDecimalsFallBackToBase64) {
  const Bytes huge(kMaxDecimalBytes + 1, 0x01);
  std::string out;
  EXPECT_FALSE(append_decimal(out, huge, 0));
  EXPECT_EQ(out, "");
  const auto rendered =
      json(column(PhysicalType::BYTE_ARRAY, decimal(10, 0)), binary_values({huge}));
  EXPECT_EQ(rendered.substr(0, 9), "\"AQEBAQEB");
  // Sign bytes do not count towards the limit.
  Bytes padded(kMaxDecimalBytes * 2, 0xFF);
  EXPECT_TRUE(append_decimal(out, padded, 1));
  EXPECT_EQ(out, "-0.1");
  // The largest accepted length converts exactly: 2^(8*4096 - 1) - 1 has 9864 digits.
  Bytes largest(kMaxDecimalBytes, 0xFF);
  largest[0] = 0x7F;
  out.clear();
  EXPECT_TRUE(append_decimal(out, largest, 0));
  EXPECT_EQ(out.size(), 9864u);
  EXPECT_EQ(out.substr(out.size() - 3), "927");  // 2^32767 ends in ...928
}

TEST(ValueFormat, OutlandishDecimalScalesRenderByPhysicalType) {
  const auto values = fixed_values<int32_t>(PhysicalType::INT32, {5});
  EXPECT_EQ(json(column(PhysicalType::INT32, decimal(9, kMaxDecimalScale + 1)), values), "5");
  EXPECT_EQ(
      json(column(PhysicalType::INT32, decimal(9, std::numeric_limits<int32_t>::min())), values),
      "5");
  EXPECT_EQ(text(column(PhysicalType::INT32, decimal(9, -kMaxDecimalScale)), values).size(),
            static_cast<size_t>(kMaxDecimalScale + 1));
}

// ---- Dates and times

TEST(ValueFormat, Dates) {
  const auto values =
      fixed_values<int32_t>(PhysicalType::INT32, {0, -1, 19723, 11016, -25508, 2932896});
  const auto c = column(PhysicalType::INT32, logical(Kind::DATE));
  EXPECT_EQ(json(c, values, 0), "\"1970-01-01\"");
  EXPECT_EQ(json(c, values, 1), "\"1969-12-31\"");
  EXPECT_EQ(json(c, values, 2), "\"2024-01-01\"");
  EXPECT_EQ(json(c, values, 3), "\"2000-02-29\"");
  EXPECT_EQ(json(c, values, 4), "\"1900-03-01\"");
  EXPECT_EQ(text(c, values, 5), "9999-12-31");
}

TEST(ValueFormat, DatesOutsideFourDigitYearsUseExpandedForm) {
  const auto values = fixed_values<int32_t>(
      PhysicalType::INT32, {-719528, -719529, -719834, 2932897, std::numeric_limits<int32_t>::min(),
                            std::numeric_limits<int32_t>::max()});
  const auto c = column(PhysicalType::INT32, logical(Kind::DATE));
  EXPECT_EQ(text(c, values, 0), "0000-01-01");
  EXPECT_EQ(text(c, values, 1), "-0001-12-31");
  EXPECT_EQ(text(c, values, 2), "-0001-03-01");
  EXPECT_EQ(text(c, values, 3), "+10000-01-01");
  EXPECT_EQ(text(c, values, 4), "-5877641-06-23");
  EXPECT_EQ(text(c, values, 5), "+5881580-07-11");
}

TEST(ValueFormat, DatesAgreeWithDayCounting) {
  // Walk day by day from 1600-01-01 and check the rendered date advances like a calendar.
  int year = 1600;
  int month = 1;
  int day = 1;
  const int days_in_month[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  for (int64_t days = -135140; days < 30000; ++days) {
    char expected[40];
    std::snprintf(expected, sizeof(expected), "%04d-%02d-%02d", year, month, day);
    std::string out;
    append_date(out, days);
    ASSERT_EQ(out, expected) << days;
    const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    const int length = days_in_month[month - 1] + (month == 2 && leap ? 1 : 0);
    if (++day > length) {
      day = 1;
      if (++month > 12) {
        month = 1;
        ++year;
      }
    }
  }
}

TEST(ValueFormat, Times) {
  const auto millis = fixed_values<int32_t>(PhysicalType::INT32, {45296789, 0, 86399999});
  const auto c = column(PhysicalType::INT32, time_type(Kind::TIME, TimeUnit::MILLIS, true));
  EXPECT_EQ(json(c, millis, 0), "\"12:34:56.789\"");
  EXPECT_EQ(json(c, millis, 1), "\"00:00:00.000\"");
  EXPECT_EQ(text(c, millis, 2), "23:59:59.999");

  const auto int64s = fixed_values<int64_t>(PhysicalType::INT64, {45296789012, 45296789012345});
  EXPECT_EQ(
      json(column(PhysicalType::INT64, time_type(Kind::TIME, TimeUnit::MICROS, false)), int64s, 0),
      "\"12:34:56.789012\"");
  EXPECT_EQ(
      json(column(PhysicalType::INT64, time_type(Kind::TIME, TimeUnit::NANOS, false)), int64s, 1),
      "\"12:34:56.789012345\"");
  EXPECT_EQ(
      text(column(PhysicalType::INT64, time_type(Kind::TIME, TimeUnit::NANOS, false)), int64s, 0),
      "00:00:45.296789012");
}

TEST(ValueFormat, TimesOutsideOneDayAreNotWrapped) {
  const auto millis = fixed_values<int32_t>(
      PhysicalType::INT32, {90000000, -1, -45296789, std::numeric_limits<int32_t>::min()});
  const auto c = column(PhysicalType::INT32, time_type(Kind::TIME, TimeUnit::MILLIS, false));
  EXPECT_EQ(text(c, millis, 0), "25:00:00.000");
  EXPECT_EQ(text(c, millis, 1), "-00:00:00.001");
  EXPECT_EQ(text(c, millis, 2), "-12:34:56.789");
  EXPECT_EQ(text(c, millis, 3), "-596:31:23.648");
  const auto nanos = fixed_values<int64_t>(
      PhysicalType::INT64,
      {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()});
  const auto n = column(PhysicalType::INT64, time_type(Kind::TIME, TimeUnit::NANOS, false));
  EXPECT_EQ(text(n, nanos, 0), "-2562047:47:16.854775808");
  EXPECT_EQ(text(n, nanos, 1), "2562047:47:16.854775807");
}

TEST(ValueFormat, Timestamps) {
  const auto values = fixed_values<int64_t>(PhysicalType::INT64, {0, 1704141296123, -1500});
  const auto local =
      column(PhysicalType::INT64, time_type(Kind::TIMESTAMP, TimeUnit::MILLIS, false));
  const auto utc = column(PhysicalType::INT64, time_type(Kind::TIMESTAMP, TimeUnit::MILLIS, true));
  EXPECT_EQ(json(local, values, 0), "\"1970-01-01T00:00:00.000\"");
  EXPECT_EQ(json(utc, values, 0), "\"1970-01-01T00:00:00.000Z\"");
  EXPECT_EQ(json(utc, values, 1), "\"2024-01-01T20:34:56.123Z\"");
  EXPECT_EQ(text(local, values, 2), "1969-12-31T23:59:58.500");

  const auto micros = fixed_values<int64_t>(PhysicalType::INT64, {-1, 1704141296123456});
  const auto c_micros =
      column(PhysicalType::INT64, time_type(Kind::TIMESTAMP, TimeUnit::MICROS, false));
  EXPECT_EQ(json(c_micros, micros, 0), "\"1969-12-31T23:59:59.999999\"");
  EXPECT_EQ(json(c_micros, micros, 1), "\"2024-01-01T20:34:56.123456\"");

  const auto nanos = fixed_values<int64_t>(PhysicalType::INT64, {1704141296123456789, -1});
  const auto c_nanos =
      column(PhysicalType::INT64, time_type(Kind::TIMESTAMP, TimeUnit::NANOS, true));
  EXPECT_EQ(json(c_nanos, nanos, 0), "\"2024-01-01T20:34:56.123456789Z\"");
  EXPECT_EQ(text(c_nanos, nanos, 1), "1969-12-31T23:59:59.999999999Z");
}

TEST(ValueFormat, TimestampExtremes) {
  const auto values = fixed_values<int64_t>(
      PhysicalType::INT64,
      {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()});
  const auto millis =
      column(PhysicalType::INT64, time_type(Kind::TIMESTAMP, TimeUnit::MILLIS, true));
  const auto micros =
      column(PhysicalType::INT64, time_type(Kind::TIMESTAMP, TimeUnit::MICROS, false));
  const auto nanos =
      column(PhysicalType::INT64, time_type(Kind::TIMESTAMP, TimeUnit::NANOS, false));
  EXPECT_EQ(text(millis, values, 0), "-292275055-05-16T16:47:04.192Z");
  EXPECT_EQ(text(millis, values, 1), "+292278994-08-17T07:12:55.807Z");
  EXPECT_EQ(text(micros, values, 0), "-290308-12-21T19:59:05.224192");
  EXPECT_EQ(text(micros, values, 1), "+294247-01-10T04:00:54.775807");
  EXPECT_EQ(text(nanos, values, 0), "1677-09-21T00:12:43.145224192");
  EXPECT_EQ(text(nanos, values, 1), "2262-04-11T23:47:16.854775807");
}

TEST(ValueFormat, Int96FromSpark) {
  // 2024-01-01 20:34:56.123456 as Spark writes it: nanoseconds of the day, then the Julian day.
  const auto values =
      int96_values({{0x00, 0x2a, 0x1e, 0xd9, 0x63, 0x43, 0x00, 0x00, 0x97, 0x8a, 0x25, 0x00},
                    {0, 0, 0, 0, 0, 0, 0, 0, 0x8c, 0x3d, 0x25, 0x00},
                    {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x8c, 0x3d, 0x25, 0x00}});
  const auto c = column(PhysicalType::INT96);
  EXPECT_EQ(json(c, values, 0), "\"2024-01-01T20:34:56.123456000\"");
  EXPECT_EQ(text(c, values, 1), "1970-01-01T00:00:00.000000000");
  // Nanoseconds outside the day (never written, but possible in a hostile file) carry over.
  EXPECT_EQ(text(c, values, 2), "1969-12-31T23:59:59.999999999");
}

TEST(ValueFormat, Int96Extremes) {
  const auto values =
      int96_values({{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff, 0x7f},
                    {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x00, 0x00, 0x00, 0x80}});
  const auto c = column(PhysicalType::INT96);
  EXPECT_EQ(text(c, values, 0), "+5875190-09-12T23:47:16.854775807");
  // The Julian day is unsigned (as Arrow and DuckDB read it): 0x80000000 is far in the future.
  EXPECT_EQ(text(c, values, 1), "+5874606-02-24T00:12:43.145224192");
}

// ---- Numeric classification

TEST(ValueFormat, NumericColumns) {
  EXPECT_TRUE(ValueFormatter(column(PhysicalType::INT32)).is_numeric());
  EXPECT_TRUE(ValueFormatter(column(PhysicalType::INT64, integer(64, false))).is_numeric());
  EXPECT_TRUE(ValueFormatter(column(PhysicalType::DOUBLE)).is_numeric());
  EXPECT_TRUE(ValueFormatter(column(PhysicalType::BYTE_ARRAY, decimal(20, 2))).is_numeric());
  EXPECT_TRUE(ValueFormatter(column(PhysicalType::FIXED_LEN_BYTE_ARRAY, logical(Kind::FLOAT16), 2))
                  .is_numeric());
  EXPECT_FALSE(ValueFormatter(column(PhysicalType::BOOLEAN)).is_numeric());
  EXPECT_FALSE(ValueFormatter(column(PhysicalType::INT32, logical(Kind::DATE))).is_numeric());
  EXPECT_FALSE(
      ValueFormatter(column(PhysicalType::BYTE_ARRAY, logical(Kind::STRING))).is_numeric());
}

}  // namespace
}  // namespace kbdata::tabular
