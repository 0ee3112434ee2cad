// A decoder for the Thrift compact protocol, enough for Parquet's metadata, with no Thrift runtime.
//
// Structs are read field by field: the caller loops over next_field() and dispatches on the field
// id (see metadata.cc, one switch per struct whose cases match parquet.thrift), calling skip() for
// ids it does not know, so files written by newer writers still read.
//
// Limits against hostile input: nesting deeper than kMaxDepth structs/lists, a list, map or
// string longer than the bytes left, or a varint longer than 10 bytes throw FormatError. Running
// out of bytes throws TruncatedError (a FormatError).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "common/byte_cursor.h"

namespace kbdata::parquet::thrift {

enum class Type : uint8_t {
  STOP = 0,
  BOOL_TRUE = 1,
  BOOL_FALSE = 2,
  BYTE = 3,
  I16 = 4,
  I32 = 5,
  I64 = 6,
  DOUBLE = 7,
  BINARY = 8,
  LIST = 9,
  SET = 10,
  MAP = 11,
  STRUCT = 12,
};

// A field's wire type is not the one its id has in the schema. Thrown before any of the field's
// bytes are consumed, so the caller may skip the field instead, as generated Thrift code does
// (some writers put fields of their own under ids the format later used differently).
class WireTypeMismatch : public FormatError {
 public:
  using FormatError::FormatError;
};

struct FieldHeader {
  int16_t id = 0;
  Type type = Type::STOP;
};

struct ListHeader {
  Type element_type = Type::STOP;
  uint32_t size = 0;
};

class CompactReader {
 public:
  static constexpr int kMaxDepth = 64;

  // `cursor` is borrowed; the reader advances it.
  explicit CompactReader(ByteCursor& cursor) : cursor_(cursor) {}

  // Struct framing: call begin_struct(), then next_field() until it returns false (the STOP
  // field), reading or skipping each field; then end_struct().
  void begin_struct();
  void end_struct();
  [[nodiscard]] bool next_field(FieldHeader& field);

  // Typed reads of a field's value. Each checks that the field's wire type is the one expected and
  // throws WireTypeMismatch naming `what` otherwise, having consumed nothing.
  bool read_bool(const FieldHeader& field, const char* what);
  int8_t read_byte(const FieldHeader& field, const char* what);
  int16_t read_i16(const FieldHeader& field, const char* what);
  int32_t read_i32(const FieldHeader& field, const char* what);
  int64_t read_i64(const FieldHeader& field, const char* what);
  std::string read_string(const FieldHeader& field, const char* what);
  // Checks the field is a struct; the caller then reads it with begin_struct()...
  void expect_struct(const FieldHeader& field, const char* what);
  // Reads a list header; elements follow. Checks the field is a list (or set). An empty list may
  // carry any element type (some writers write 0).
  ListHeader read_list(const FieldHeader& field, const char* what);

  // Element reads inside a list (no field header).
  bool read_bool_element(const char* what);
  int32_t read_i32_element(const char* what);
  int64_t read_i64_element(const char* what);
  std::string read_string_element(const char* what);

  // Skips a value of the given wire type (a field or a list element).
  void skip(Type type);

  [[nodiscard]] int64_t file_offset() const { return cursor_.file_offset(); }

 private:
  uint64_t read_varint(const char* what) { return cursor_.read_uleb128(what); }
  int64_t read_zigzag(const char* what);
  void check_type(const FieldHeader& field, Type expected, const char* what) const;
  void enter();
  void leave() { --depth_; }

  ByteCursor& cursor_;
  int depth_ = 0;
  int16_t last_field_id_ = 0;
  // Field ids of enclosing structs, restored by end_struct(). Fixed size: depth is bounded.
  int16_t saved_ids_[kMaxDepth + 1] = {};
};

}  // namespace kbdata::parquet::thrift
