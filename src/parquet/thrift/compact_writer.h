// An encoder for the Thrift compact protocol, the mirror of compact_reader.h: enough for Parquet's
// metadata, with no Thrift runtime.
//
// Structs are written field by field: begin_struct(), one write_*_field() (or a struct / list
// field) per set field, then end_struct(), which writes the stop byte. Field ids are written as a
// delta from the previous field of the same struct when that delta is 1..15 and in the long form
// (type byte, then the zigzag id) otherwise, so any order of ids is valid; increasing ids give the
// smallest output, as in generated Thrift code.
//
// Misuse (end_struct() without begin_struct(), ending the outermost struct twice) is a programmer
// error, checked by debug assertions; no method throws except on allocation failure.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "parquet/thrift/compact_reader.h"  // Type

namespace kbdata::parquet::thrift {

class CompactWriter {
 public:
  // Bytes are appended to `out`, which is borrowed and must outlive the writer. Existing contents
  // are kept.
  explicit CompactWriter(std::vector<uint8_t>& out) : out_(out) {}

  // Struct framing. begin_struct() starts a struct (the top-level one, a struct element of a list,
  // or the value of a field opened with begin_struct_field()); end_struct() writes the stop byte
  // and restores the enclosing struct's last field id. Every begin_struct() needs one end_struct().
  void begin_struct();
  void end_struct();

  // Field writers: the header (id and wire type), then the value. `id` may be any int16_t.
  // A bool's value lives in its header's type nibble (BOOL_TRUE / BOOL_FALSE); integers are
  // zigzag varints, except i8, which is one raw byte; binary is a varint length then the bytes.
  void write_bool_field(int16_t id, bool value);
  void write_i8_field(int16_t id, int8_t value);
  void write_i16_field(int16_t id, int16_t value);
  void write_i32_field(int16_t id, int32_t value);
  void write_i64_field(int16_t id, int64_t value);
  void write_binary_field(int16_t id, std::span<const uint8_t> value);
  void write_string_field(int16_t id, std::string_view value);

  // The header of a struct field; the caller then writes the struct with begin_struct() ...
  // end_struct().
  void write_struct_field_header(int16_t id) { write_field_header(id, Type::STRUCT); }
  // Both at once: writes the header of a struct field and begins the struct; the caller writes its
  // fields, then calls end_struct().
  void begin_struct_field(int16_t id);

  // Writes the header of a list field and the list header; the caller then writes exactly `size`
  // elements of `element_type` with the element writers (struct elements with begin_struct() /
  // end_struct()). For bool lists pass Type::BOOL_TRUE.
  void write_list_field(int16_t id, Type element_type, uint32_t size);
  // The list header alone (a list nested in a list): the short form (size in the high nibble) for
  // sizes below 15, the long form (0xF nibble, then a varint size) otherwise.
  void write_list_header(Type element_type, uint32_t size);

  // Element writers inside a list (no field header). A bool element is one byte: 1 true, 2 false.
  void write_bool_element(bool value);
  void write_i8_element(int8_t value);
  void write_i16_element(int16_t value) { write_zigzag(value); }
  void write_i32_element(int32_t value) { write_zigzag(value); }
  void write_i64_element(int64_t value) { write_zigzag(value); }
  void write_binary_element(std::span<const uint8_t> value);
  void write_string_element(std::string_view value);

  // Nesting depth: 0 outside any struct.
  [[nodiscard]] size_t depth() const { return saved_ids_.size(); }

 private:
  void write_field_header(int16_t id, Type type);
  void write_varint(uint64_t value);
  void write_zigzag(int64_t value);

  std::vector<uint8_t>& out_;
  int16_t last_field_id_ = 0;
  // Last field ids of the enclosing structs, restored by end_struct().
  std::vector<int16_t> saved_ids_;
};

}  // namespace kbdata::parquet::thrift
