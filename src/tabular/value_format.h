// Text renderings of decoded Parquet values: JSON values (for JSON Lines) and plain text (for CSV
// fields and table cells).
//
// How a value renders depends on its column's logical type (the schema layer has already folded
// legacy ConvertedTypes into it), physical type and type_length:
//
//   logical type                physical              JSON rendering
//   UNKNOWN (the "null" type)   any                   null (text: nothing)
//   STRING, ENUM, JSON          BYTE_ARRAY            "text", ill-formed UTF-8 replaced by U+FFFD
//   INTEGER(8|16|32, signed)    INT32                 -7
//   INTEGER(8|16|32, unsigned)  INT32                 the low 8|16|32 bits as unsigned
//   INTEGER(64, unsigned)       INT64                 18446744073709551615
//   DECIMAL(p, s)               INT32, INT64,         "-12.50", "0.05", "1200" (s = -2); binaries
//                               BYTE_ARRAY, FLBA      are big-endian two's complement, any length
//   DATE                        INT32                 "2024-01-31", "-0001-03-01", "+10000-01-01"
//   TIME(MILLIS)                INT32                 "12:34:56.789"
//   TIME(MICROS | NANOS)        INT64                 "12:34:56.789012", "12:34:56.789012345"
//   TIMESTAMP(unit, utc)        INT64                 "2024-01-31T12:34:56.789", "Z" added if utc
//   UUID                        FLBA(16)              "123e4567-e89b-12d3-a456-426614174000"
//   FLOAT16                     FLBA(2)               as FLOAT
//   anything else: by physical type
//                               BOOLEAN               true, false
//                               INT32, INT64          -7
//                               FLOAT, DOUBLE         4.6 (shortest round trip), "NaN",
//                                                     "Infinity", "-Infinity"
//                               INT96                 "2024-01-01T20:34:56.123456000"
//                               BYTE_ARRAY, FLBA      "AAEC" (base64)
//
// Text mode writes the same characters without the JSON quotes and escapes. Null values (absent
// from a ValueBuffer) are the caller's business: only the UNKNOWN type makes a present value null.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "parquet/schema.h"
#include "parquet/types.h"
#include "parquet/values.h"

namespace kbdata::tabular {

// The rendering of one column's values, decided once from its descriptor so that the per-value
// path is a single switch. Cheap to copy.
class ValueFormatter {
 public:
  explicit ValueFormatter(const parquet::ColumnDescriptor& column);

  // Append value i of `values` (the column's dense non-null values) as a JSON value.
  // REQUIRES: `values` holds the column's physical type and i < values.count.
  void append_json(std::string& out, const parquet::ValueBuffer& values, size_t i) const;

  // Append value i as text: the JSON rendering without quotes or escapes (strings stay UTF-8,
  // repaired). Appends nothing when always_null().
  void append_text(std::string& out, const parquet::ValueBuffer& values, size_t i) const;

  // True for the UNKNOWN logical type, whose values are all null.
  [[nodiscard]] bool always_null() const { return kind_ == Kind::NULL_VALUE; }

  // True when values render as numbers in text (integers, floating point, decimals); tables
  // right-align such columns.
  [[nodiscard]] bool is_numeric() const;

 private:
  enum class Kind : uint8_t {
    NULL_VALUE,
    BOOLEAN,
    INT32,
    UINT8,
    UINT16,
    UINT32,
    INT64,
    UINT64,
    FLOAT,
    DOUBLE,
    FLOAT16,
    STRING,
    BASE64,
    DECIMAL_INT32,
    DECIMAL_INT64,
    DECIMAL_BINARY,  // BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY
    DATE,
    TIME_MILLIS,  // INT32
    TIME_MICROS,  // INT64
    TIME_NANOS,   // INT64
    TIMESTAMP,    // INT64 in unit_
    INT96,
    UUID,
  };

  template <bool kJson>
  void append(std::string& out, const parquet::ValueBuffer& values, size_t i) const;

  Kind kind_ = Kind::NULL_VALUE;
  parquet::TimeUnit unit_ = parquet::TimeUnit::MILLIS;
  bool adjusted_to_utc_ = false;
  int32_t scale_ = 0;
};

// One-off forms of ValueFormatter(column).append_json / append_text; prefer a ValueFormatter per
// column when rendering many values.
void append_json_value(std::string& out, const parquet::ColumnDescriptor& column,
                       const parquet::ValueBuffer& values, size_t i);
void append_text_value(std::string& out, const parquet::ColumnDescriptor& column,
                       const parquet::ValueBuffer& values, size_t i);

// The building blocks, for callers that hold values outside a ValueBuffer. All append text only
// (no JSON quotes).

// Decimal scales beyond this magnitude come from no sane writer; such columns render by physical
// type so that a hostile scale cannot make one value gigabytes long.
inline constexpr int32_t kMaxDecimalScale = 10000;
// Binary decimals longer than this (after dropping redundant sign bytes) render as base64: the
// exact conversion is quadratic in the length.
inline constexpr size_t kMaxDecimalBytes = 4096;

// `unscaled` * 10^-scale exactly: "-12.50", "0.05", "0" (scale 0), "1200" (scale -2).
// REQUIRES: |scale| <= kMaxDecimalScale.
void append_decimal(std::string& out, int64_t unscaled, int32_t scale);
// The same for a big-endian two's complement integer of any length (empty is 0). Returns false,
// appending nothing, when it is longer than kMaxDecimalBytes.
// REQUIRES: |scale| <= kMaxDecimalScale.
[[nodiscard]] bool append_decimal(std::string& out, std::span<const uint8_t> big_endian,
                                  int32_t scale);

// Proleptic Gregorian date of `days` since 1970-01-01: "YYYY-MM-DD" for years 0..9999, else the
// ISO 8601 expanded form with a sign and at least 4 year digits ("-0001-03-01", "+10000-01-01").
// REQUIRES: |days| < 2^62 (every date of an INT32 DATE, an INT64 TIMESTAMP or an INT96 is).
void append_date(std::string& out, int64_t days);

// Time of day "HH:MM:SS.f..." with 3, 6 or 9 fraction digits for MILLIS, MICROS, NANOS. Values
// outside one day are not wrapped (hours go past 23); negative values get a leading '-'.
void append_time(std::string& out, int64_t value, parquet::TimeUnit unit);

// `value` units since 1970-01-01T00:00:00: "YYYY-MM-DDTHH:MM:SS.f..." (3, 6 or 9 fraction
// digits), with "Z" appended when `adjusted_to_utc`. Defined for the whole int64 range.
void append_timestamp(std::string& out, int64_t value, parquet::TimeUnit unit,
                      bool adjusted_to_utc);

// An INT96 timestamp: 8 bytes little-endian nanoseconds within the day, then 4 bytes
// little-endian unsigned Julian day (2440588 is 1970-01-01). Nanosecond precision, no "Z".
// REQUIRES: int96.size() == 12.
void append_int96_timestamp(std::string& out, std::span<const uint8_t> int96);

// Canonical lowercase 8-4-4-4-12 form. REQUIRES: uuid.size() == 16.
void append_uuid(std::string& out, std::span<const uint8_t> uuid);

// The float equal to an IEEE 754 half-precision value (exact: every half is a float).
[[nodiscard]] float half_to_float(uint16_t half);

}  // namespace kbdata::tabular
