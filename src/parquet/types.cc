#include "parquet/types.h"

#include <string>

namespace kbdata::parquet {

const char* to_string(PhysicalType type) {
  switch (type) {
    case PhysicalType::BOOLEAN:
      return "BOOLEAN";
    case PhysicalType::INT32:
      return "INT32";
    case PhysicalType::INT64:
      return "INT64";
    case PhysicalType::INT96:
      return "INT96";
    case PhysicalType::FLOAT:
      return "FLOAT";
    case PhysicalType::DOUBLE:
      return "DOUBLE";
    case PhysicalType::BYTE_ARRAY:
      return "BYTE_ARRAY";
    case PhysicalType::FIXED_LEN_BYTE_ARRAY:
      return "FIXED_LEN_BYTE_ARRAY";
  }
  return "UNKNOWN";
}

const char* to_string(ConvertedType type) {
  switch (type) {
    case ConvertedType::UTF8:
      return "UTF8";
    case ConvertedType::MAP:
      return "MAP";
    case ConvertedType::MAP_KEY_VALUE:
      return "MAP_KEY_VALUE";
    case ConvertedType::LIST:
      return "LIST";
    case ConvertedType::ENUM:
      return "ENUM";
    case ConvertedType::DECIMAL:
      return "DECIMAL";
    case ConvertedType::DATE:
      return "DATE";
    case ConvertedType::TIME_MILLIS:
      return "TIME_MILLIS";
    case ConvertedType::TIME_MICROS:
      return "TIME_MICROS";
    case ConvertedType::TIMESTAMP_MILLIS:
      return "TIMESTAMP_MILLIS";
    case ConvertedType::TIMESTAMP_MICROS:
      return "TIMESTAMP_MICROS";
    case ConvertedType::UINT_8:
      return "UINT_8";
    case ConvertedType::UINT_16:
      return "UINT_16";
    case ConvertedType::UINT_32:
      return "UINT_32";
    case ConvertedType::UINT_64:
      return "UINT_64";
    case ConvertedType::INT_8:
      return "INT_8";
    case ConvertedType::INT_16:
      return "INT_16";
    case ConvertedType::INT_32:
      return "INT_32";
    case ConvertedType::INT_64:
      return "INT_64";
    case ConvertedType::JSON:
      return "JSON";
    case ConvertedType::BSON:
      return "BSON";
    case ConvertedType::INTERVAL:
      return "INTERVAL";
  }
  return "UNKNOWN";
}

const char* to_string(Repetition repetition) {
  switch (repetition) {
    case Repetition::REQUIRED:
      return "REQUIRED";
    case Repetition::OPTIONAL:
      return "OPTIONAL";
    case Repetition::REPEATED:
      return "REPEATED";
  }
  return "UNKNOWN";
}

const char* to_string(Encoding encoding) {
  switch (encoding) {
    case Encoding::PLAIN:
      return "PLAIN";
    case Encoding::GROUP_VAR_INT:
      return "GROUP_VAR_INT";
    case Encoding::PLAIN_DICTIONARY:
      return "PLAIN_DICTIONARY";
    case Encoding::RLE:
      return "RLE";
    case Encoding::BIT_PACKED:
      return "BIT_PACKED";
    case Encoding::DELTA_BINARY_PACKED:
      return "DELTA_BINARY_PACKED";
    case Encoding::DELTA_LENGTH_BYTE_ARRAY:
      return "DELTA_LENGTH_BYTE_ARRAY";
    case Encoding::DELTA_BYTE_ARRAY:
      return "DELTA_BYTE_ARRAY";
    case Encoding::RLE_DICTIONARY:
      return "RLE_DICTIONARY";
    case Encoding::BYTE_STREAM_SPLIT:
      return "BYTE_STREAM_SPLIT";
  }
  return "UNKNOWN";
}

const char* to_string(Codec codec) {
  switch (codec) {
    case Codec::UNCOMPRESSED:
      return "UNCOMPRESSED";
    case Codec::SNAPPY:
      return "SNAPPY";
    case Codec::GZIP:
      return "GZIP";
    case Codec::LZO:
      return "LZO";
    case Codec::BROTLI:
      return "BROTLI";
    case Codec::LZ4:
      return "LZ4";
    case Codec::ZSTD:
      return "ZSTD";
    case Codec::LZ4_RAW:
      return "LZ4_RAW";
  }
  return "UNKNOWN";
}

const char* to_string(PageType type) {
  switch (type) {
    case PageType::DATA_PAGE:
      return "DATA_PAGE";
    case PageType::INDEX_PAGE:
      return "INDEX_PAGE";
    case PageType::DICTIONARY_PAGE:
      return "DICTIONARY_PAGE";
    case PageType::DATA_PAGE_V2:
      return "DATA_PAGE_V2";
  }
  return "UNKNOWN";
}

const char* to_string(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::MILLIS:
      return "MILLIS";
    case TimeUnit::MICROS:
      return "MICROS";
    case TimeUnit::NANOS:
      return "NANOS";
  }
  return "UNKNOWN";
}

std::string to_string(const LogicalType& type) {
  using K = LogicalType::Kind;
  switch (type.kind) {
    case K::NONE:
      return "";
    case K::STRING:
      return "STRING";
    case K::MAP:
      return "MAP";
    case K::LIST:
      return "LIST";
    case K::ENUM:
      return "ENUM";
    case K::DECIMAL:
      return "DECIMAL(" + std::to_string(type.decimal_precision) + "," +
             std::to_string(type.decimal_scale) + ")";
    case K::DATE:
      return "DATE";
    case K::TIME:
    case K::TIMESTAMP:
      return std::string(type.kind == K::TIME ? "TIME(" : "TIMESTAMP(") + to_string(type.unit) +
             (type.is_adjusted_to_utc ? ",UTC)" : ",local)");
    case K::INTEGER:
      return "INTEGER(" + std::to_string(type.bit_width) +
             (type.is_signed ? ",signed)" : ",unsigned)");
    case K::UNKNOWN:
      return "NULL";
    case K::JSON:
      return "JSON";
    case K::BSON:
      return "BSON";
    case K::UUID:
      return "UUID";
    case K::FLOAT16:
      return "FLOAT16";
    case K::VARIANT:
      return "VARIANT";
    case K::GEOMETRY:
      return "GEOMETRY";
    case K::GEOGRAPHY:
      return "GEOGRAPHY";
    case K::UNRECOGNISED:
      return "UNRECOGNISED";
  }
  return "";
}

int fixed_width(PhysicalType type) {
  switch (type) {
    case PhysicalType::BOOLEAN:
      return 1;
    case PhysicalType::INT32:
      return 4;
    case PhysicalType::INT64:
      return 8;
    case PhysicalType::INT96:
      return 12;
    case PhysicalType::FLOAT:
      return 4;
    case PhysicalType::DOUBLE:
      return 8;
    case PhysicalType::BYTE_ARRAY:
      return 0;
    case PhysicalType::FIXED_LEN_BYTE_ARRAY:
      return 0;
  }
  return 0;
}

}  // namespace kbdata::parquet
