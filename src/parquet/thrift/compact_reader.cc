#include "parquet/thrift/compact_reader.h"

#include <string>

#include "common/error.h"
#include "common/varint.h"

namespace kbdata::parquet::thrift {
namespace {

[[noreturn]] void fail(const std::string& message, int64_t offset) {
  FormatError error(message);
  error.locate_offset(offset);
  throw error;
}

const char* type_name(Type type) {
  switch (type) {
    case Type::STOP:
      return "stop";
    case Type::BOOL_TRUE:
    case Type::BOOL_FALSE:
      return "bool";
    case Type::BYTE:
      return "byte";
    case Type::I16:
      return "i16";
    case Type::I32:
      return "i32";
    case Type::I64:
      return "i64";
    case Type::DOUBLE:
      return "double";
    case Type::BINARY:
      return "binary";
    case Type::LIST:
      return "list";
    case Type::SET:
      return "set";
    case Type::MAP:
      return "map";
    case Type::STRUCT:
      return "struct";
  }
  return "unknown";
}

bool is_valid_type(uint8_t nibble) { return nibble <= static_cast<uint8_t>(Type::STRUCT); }

}  // namespace

void CompactReader::enter() {
  if (++depth_ > kMaxDepth) {
    fail("Thrift metadata nested deeper than " + std::to_string(kMaxDepth) + " levels",
         cursor_.file_offset());
  }
}

void CompactReader::begin_struct() {
  enter();
  saved_ids_[depth_] = last_field_id_;
  last_field_id_ = 0;
}

void CompactReader::end_struct() {
  last_field_id_ = saved_ids_[depth_];
  leave();
}

bool CompactReader::next_field(FieldHeader& field) {
  uint8_t byte = cursor_.read_u8("Thrift field header");
  uint8_t type_nibble = byte & 0x0f;
  if (type_nibble == 0) {
    field = {0, Type::STOP};
    return false;
  }
  if (!is_valid_type(type_nibble)) {
    fail("invalid Thrift field type " + std::to_string(type_nibble), cursor_.file_offset() - 1);
  }
  uint8_t delta = byte >> 4;
  int16_t id;
  if (delta != 0) {
    id = static_cast<int16_t>(last_field_id_ + delta);
  } else {
    id = static_cast<int16_t>(read_zigzag("Thrift field id"));
  }
  last_field_id_ = id;
  field = {id, static_cast<Type>(type_nibble)};
  return true;
}

int64_t CompactReader::read_zigzag(const char* what) { return zigzag_decode(read_varint(what)); }

void CompactReader::check_type(const FieldHeader& field, Type expected, const char* what) const {
  Type actual = field.type;
  if (expected == Type::BOOL_TRUE && actual == Type::BOOL_FALSE) return;
  if (expected == Type::LIST && actual == Type::SET) return;
  if (actual != expected) {
    WireTypeMismatch error(std::string("Thrift field ") + what + " (id " +
                           std::to_string(field.id) + ") has type " + type_name(actual) +
                           ", expected " + type_name(expected));
    error.locate_offset(cursor_.file_offset());
    throw error;
  }
}

bool CompactReader::read_bool(const FieldHeader& field, const char* what) {
  check_type(field, Type::BOOL_TRUE, what);
  return field.type == Type::BOOL_TRUE;
}

int8_t CompactReader::read_byte(const FieldHeader& field, const char* what) {
  check_type(field, Type::BYTE, what);
  return static_cast<int8_t>(cursor_.read_u8(what));
}

int16_t CompactReader::read_i16(const FieldHeader& field, const char* what) {
  check_type(field, Type::I16, what);
  return static_cast<int16_t>(read_zigzag(what));
}

int32_t CompactReader::read_i32(const FieldHeader& field, const char* what) {
  check_type(field, Type::I32, what);
  return read_i32_element(what);
}

int64_t CompactReader::read_i64(const FieldHeader& field, const char* what) {
  check_type(field, Type::I64, what);
  return read_i64_element(what);
}

std::string CompactReader::read_string(const FieldHeader& field, const char* what) {
  check_type(field, Type::BINARY, what);
  return read_string_element(what);
}

void CompactReader::expect_struct(const FieldHeader& field, const char* what) {
  check_type(field, Type::STRUCT, what);
}

ListHeader CompactReader::read_list(const FieldHeader& field, const char* what) {
  check_type(field, Type::LIST, what);
  uint8_t byte = cursor_.read_u8(what);
  ListHeader header;
  uint8_t element = byte & 0x0f;
  uint64_t size = byte >> 4;
  if (size == 15) size = read_varint(what);
  if (size == 0) return header;  // element type irrelevant
  if (!is_valid_type(element) || element == 0) {
    fail(std::string("invalid Thrift list element type in ") + what, cursor_.file_offset() - 1);
  }
  header.element_type = static_cast<Type>(element);
  // Every element takes at least one byte, so a longer list cannot fit in what is left.
  if (size > cursor_.remaining()) {
    fail(std::string("Thrift list ") + what + " claims " + std::to_string(size) +
             " elements but only " + std::to_string(cursor_.remaining()) + " bytes remain",
         cursor_.file_offset());
  }
  header.size = static_cast<uint32_t>(size);
  return header;
}

bool CompactReader::read_bool_element(const char* what) {
  return cursor_.read_u8(what) == static_cast<uint8_t>(Type::BOOL_TRUE);
}

int32_t CompactReader::read_i32_element(const char* what) {
  int64_t value = read_zigzag(what);
  if (value < INT32_MIN || value > INT32_MAX) {
    fail(std::string("Thrift i32 ") + what + " out of range", cursor_.file_offset());
  }
  return static_cast<int32_t>(value);
}

int64_t CompactReader::read_i64_element(const char* what) { return read_zigzag(what); }

std::string CompactReader::read_string_element(const char* what) {
  uint64_t length = read_varint(what);
  if (length > cursor_.remaining()) {
    TruncatedError error(std::string("Thrift string ") + what + " of " + std::to_string(length) +
                         " bytes runs past the end of the data (" +
                         std::to_string(cursor_.remaining()) + " bytes left)");
    error.locate_offset(cursor_.file_offset());
    throw error;
  }
  auto bytes = cursor_.read_bytes(length, what);
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

void CompactReader::skip(Type type) {
  switch (type) {
    case Type::STOP:
      fail("unexpected Thrift stop marker", cursor_.file_offset());
    case Type::BOOL_TRUE:
    case Type::BOOL_FALSE:
      // A bool field's value lives in its header; a bool list element is one byte, consumed by
      // the list skipping below.
      return;
    case Type::BYTE:
      cursor_.skip(1, "Thrift byte");
      return;
    case Type::I16:
    case Type::I32:
    case Type::I64:
      read_varint("Thrift integer");
      return;
    case Type::DOUBLE:
      cursor_.skip(8, "Thrift double");
      return;
    case Type::BINARY: {
      uint64_t length = read_varint("Thrift binary length");
      if (length > cursor_.remaining()) {
        TruncatedError error("Thrift binary of " + std::to_string(length) +
                             " bytes runs past the end of the data");
        error.locate_offset(cursor_.file_offset());
        throw error;
      }
      cursor_.skip(length, "Thrift binary");
      return;
    }
    case Type::LIST:
    case Type::SET: {
      enter();
      FieldHeader as_field{0, Type::LIST};
      ListHeader list = read_list(as_field, "skipped list");
      for (uint32_t i = 0; i < list.size; ++i) {
        if (list.element_type == Type::BOOL_TRUE || list.element_type == Type::BOOL_FALSE) {
          cursor_.skip(1, "Thrift bool element");
        } else {
          skip(list.element_type);
        }
      }
      leave();
      return;
    }
    case Type::MAP: {
      enter();
      uint64_t size = read_varint("Thrift map size");
      if (size > cursor_.remaining()) {
        fail("Thrift map claims " + std::to_string(size) + " entries but only " +
                 std::to_string(cursor_.remaining()) + " bytes remain",
             cursor_.file_offset());
      }
      if (size > 0) {
        uint8_t types = cursor_.read_u8("Thrift map types");
        Type key = static_cast<Type>(types >> 4);
        Type value = static_cast<Type>(types & 0x0f);
        if (!is_valid_type(types >> 4) || !is_valid_type(types & 0x0f) || key == Type::STOP ||
            value == Type::STOP) {
          fail("invalid Thrift map types", cursor_.file_offset() - 1);
        }
        for (uint64_t i = 0; i < size; ++i) {
          for (Type t : {key, value}) {
            if (t == Type::BOOL_TRUE || t == Type::BOOL_FALSE) {
              cursor_.skip(1, "Thrift bool");
            } else {
              skip(t);
            }
          }
        }
      }
      leave();
      return;
    }
    case Type::STRUCT: {
      begin_struct();
      FieldHeader field;
      while (next_field(field)) skip(field.type);
      end_struct();
      return;
    }
  }
  fail("invalid Thrift type", cursor_.file_offset());
}

}  // namespace kbdata::parquet::thrift
