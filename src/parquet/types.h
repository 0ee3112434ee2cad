// Parquet's enumerations and the logical type union, with the numeric values of parquet.thrift.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace kbdata::parquet {

enum class PhysicalType : int32_t {
  BOOLEAN = 0,
  INT32 = 1,
  INT64 = 2,
  INT96 = 3,
  FLOAT = 4,
  DOUBLE = 5,
  BYTE_ARRAY = 6,
  FIXED_LEN_BYTE_ARRAY = 7,
};

enum class ConvertedType : int32_t {
  UTF8 = 0,
  MAP = 1,
  MAP_KEY_VALUE = 2,
  LIST = 3,
  ENUM = 4,
  DECIMAL = 5,
  DATE = 6,
  TIME_MILLIS = 7,
  TIME_MICROS = 8,
  TIMESTAMP_MILLIS = 9,
  TIMESTAMP_MICROS = 10,
  UINT_8 = 11,
  UINT_16 = 12,
  UINT_32 = 13,
  UINT_64 = 14,
  INT_8 = 15,
  INT_16 = 16,
  INT_32 = 17,
  INT_64 = 18,
  JSON = 19,
  BSON = 20,
  INTERVAL = 21,
};

enum class Repetition : int32_t { REQUIRED = 0, OPTIONAL = 1, REPEATED = 2 };

enum class Encoding : int32_t {
  PLAIN = 0,
  GROUP_VAR_INT = 1,  // never used
  PLAIN_DICTIONARY = 2,
  RLE = 3,
  BIT_PACKED = 4,
  DELTA_BINARY_PACKED = 5,
  DELTA_LENGTH_BYTE_ARRAY = 6,
  DELTA_BYTE_ARRAY = 7,
  RLE_DICTIONARY = 8,
  BYTE_STREAM_SPLIT = 9,
};

enum class Codec : int32_t {
  UNCOMPRESSED = 0,
  SNAPPY = 1,
  GZIP = 2,
  LZO = 3,
  BROTLI = 4,
  LZ4 = 5,  // deprecated Hadoop-framed LZ4
  ZSTD = 6,
  LZ4_RAW = 7,
};

enum class PageType : int32_t {
  DATA_PAGE = 0,
  INDEX_PAGE = 1,
  DICTIONARY_PAGE = 2,
  DATA_PAGE_V2 = 3,
};

enum class TimeUnit { MILLIS, MICROS, NANOS };

// The LogicalType union of parquet.thrift, flattened. `kind` says which member is set; the
// parameters of the other kinds are left at their defaults.
struct LogicalType {
  enum class Kind {
    NONE,  // no logical type annotation
    STRING,
    MAP,
    LIST,
    ENUM,
    DECIMAL,
    DATE,
    TIME,
    TIMESTAMP,
    INTEGER,
    UNKNOWN,  // the "null" logical type: always null
    JSON,
    BSON,
    UUID,
    FLOAT16,
    VARIANT,
    GEOMETRY,
    GEOGRAPHY,
    UNRECOGNISED,  // a union member newer than this reader: treated as unannotated
  };
  Kind kind = Kind::NONE;
  int32_t decimal_scale = 0;
  int32_t decimal_precision = 0;
  bool is_adjusted_to_utc = false;   // TIME, TIMESTAMP
  TimeUnit unit = TimeUnit::MILLIS;  // TIME, TIMESTAMP
  int8_t bit_width = 0;              // INTEGER: 8, 16, 32 or 64
  bool is_signed = true;             // INTEGER
};

[[nodiscard]] const char* to_string(PhysicalType type);
[[nodiscard]] const char* to_string(ConvertedType type);
[[nodiscard]] const char* to_string(Repetition repetition);
[[nodiscard]] const char* to_string(Encoding encoding);
[[nodiscard]] const char* to_string(Codec codec);
[[nodiscard]] const char* to_string(PageType type);
[[nodiscard]] const char* to_string(TimeUnit unit);
// "STRING", "DECIMAL(10,2)", "TIMESTAMP(MICROS,UTC)", "INTEGER(8,unsigned)", ...
[[nodiscard]] std::string to_string(const LogicalType& type);

// Byte width of a fixed-width physical type (BOOLEAN counts 1: decoded booleans are one byte
// each), or 0 for BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY, whose width is the column's.
[[nodiscard]] int fixed_width(PhysicalType type);

}  // namespace kbdata::parquet
