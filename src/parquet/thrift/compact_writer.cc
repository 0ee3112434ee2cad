#include "parquet/thrift/compact_writer.h"

#include <cassert>

#include "common/varint.h"

namespace kbdata::parquet::thrift {

void CompactWriter::begin_struct() {
  saved_ids_.push_back(last_field_id_);
  last_field_id_ = 0;
}

void CompactWriter::end_struct() {
  assert(!saved_ids_.empty() && "end_struct() without begin_struct()");
  out_.push_back(static_cast<uint8_t>(Type::STOP));
  last_field_id_ = saved_ids_.back();
  saved_ids_.pop_back();
}

void CompactWriter::write_field_header(int16_t id, Type type) {
  assert(!saved_ids_.empty() && "field written outside a struct");
  int delta = static_cast<int>(id) - static_cast<int>(last_field_id_);
  if (delta >= 1 && delta <= 15) {
    out_.push_back(static_cast<uint8_t>(delta << 4 | static_cast<int>(type)));
  } else {
    out_.push_back(static_cast<uint8_t>(type));
    write_zigzag(id);
  }
  last_field_id_ = id;
}

void CompactWriter::write_bool_field(int16_t id, bool value) {
  write_field_header(id, value ? Type::BOOL_TRUE : Type::BOOL_FALSE);
}

void CompactWriter::write_i8_field(int16_t id, int8_t value) {
  write_field_header(id, Type::BYTE);
  write_i8_element(value);
}

void CompactWriter::write_i16_field(int16_t id, int16_t value) {
  write_field_header(id, Type::I16);
  write_zigzag(value);
}

void CompactWriter::write_i32_field(int16_t id, int32_t value) {
  write_field_header(id, Type::I32);
  write_zigzag(value);
}

void CompactWriter::write_i64_field(int16_t id, int64_t value) {
  write_field_header(id, Type::I64);
  write_zigzag(value);
}

void CompactWriter::write_binary_field(int16_t id, std::span<const uint8_t> value) {
  write_field_header(id, Type::BINARY);
  write_binary_element(value);
}

void CompactWriter::write_string_field(int16_t id, std::string_view value) {
  write_field_header(id, Type::BINARY);
  write_string_element(value);
}

void CompactWriter::begin_struct_field(int16_t id) {
  write_field_header(id, Type::STRUCT);
  begin_struct();
}

void CompactWriter::write_list_field(int16_t id, Type element_type, uint32_t size) {
  write_field_header(id, Type::LIST);
  write_list_header(element_type, size);
}

void CompactWriter::write_list_header(Type element_type, uint32_t size) {
  // Bool elements are announced as BOOL_TRUE, as Apache Thrift does; BOOL_FALSE means the same.
  if (element_type == Type::BOOL_FALSE) element_type = Type::BOOL_TRUE;
  auto type = static_cast<uint8_t>(element_type);
  if (size < 15) {
    out_.push_back(static_cast<uint8_t>(size << 4 | type));
  } else {
    out_.push_back(static_cast<uint8_t>(0xf0 | type));
    write_varint(size);
  }
}

void CompactWriter::write_bool_element(bool value) {
  out_.push_back(static_cast<uint8_t>(value ? Type::BOOL_TRUE : Type::BOOL_FALSE));
}

void CompactWriter::write_i8_element(int8_t value) { out_.push_back(static_cast<uint8_t>(value)); }

void CompactWriter::write_binary_element(std::span<const uint8_t> value) {
  write_varint(value.size());
  out_.insert(out_.end(), value.begin(), value.end());
}

void CompactWriter::write_string_element(std::string_view value) {
  write_varint(value.size());
  out_.insert(out_.end(), value.begin(), value.end());
}

void CompactWriter::write_varint(uint64_t value) { append_uleb128(out_, value); }

void CompactWriter::write_zigzag(int64_t value) { write_varint(zigzag_encode(value)); }

}  // namespace kbdata::parquet::thrift
