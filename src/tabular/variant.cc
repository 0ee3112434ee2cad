#include "tabular/variant.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/byte_cursor.h"
#include "common/error.h"
#include "common/text.h"
#include "parquet/types.h"
#include "tabular/value_format.h"

namespace kbdata::tabular {

using parquet::TimeUnit;

namespace {

enum BasicType : uint8_t { kPrimitive = 0, kShortString = 1, kObject = 2, kArray = 3 };

[[noreturn]] void fail(const std::string& message) { throw FormatError("variant: " + message); }

// An unsigned little-endian integer of `width` (1..4) bytes.
uint64_t read_unsigned(ByteCursor& cursor, int width, const char* what) {
  const auto bytes = cursor.read_bytes(static_cast<size_t>(width), what);
  uint64_t value = 0;
  for (int i = width - 1; i >= 0; --i) value = (value << 8) | bytes[static_cast<size_t>(i)];
  return value;
}

uint64_t unsigned_at(std::span<const uint8_t> bytes, size_t index, int width) {
  uint64_t value = 0;
  const size_t at = index * static_cast<size_t>(width);
  for (int i = width - 1; i >= 0; --i) value = (value << 8) | bytes[at + static_cast<size_t>(i)];
  return value;
}

void append_text_string(std::string& out, std::span<const uint8_t> bytes) {
  append_json_text(out,
                   std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

template <typename T>
void append_floating(std::string& out, T value) {
  if (std::isfinite(value)) {
    if constexpr (sizeof(T) == sizeof(float)) {
      append_float(out, value);
    } else {
      append_double(out, value);
    }
    return;
  }
  out += '"';
  out += non_finite_text(value);
  out += '"';
}

// The (num_elements, ids or nothing, offsets, values) layout shared by objects and arrays.
struct Container {
  uint64_t count = 0;
  std::span<const uint8_t> ids;      // objects: count ids of id_size bytes
  std::span<const uint8_t> offsets;  // count + 1 offsets of offset_size bytes
  std::span<const uint8_t> values;   // [0, last offset)
  int id_size = 0;
  int offset_size = 1;

  // The element i's bytes: from its offset to the end of the values.
  [[nodiscard]] std::span<const uint8_t> element(uint64_t i) const {
    const uint64_t at = unsigned_at(offsets, i, offset_size);
    if (at >= values.size()) fail("an element's offset lies past the container's values");
    return values.subspan(at);
  }
};

// `value` starts with an object or array header (already known). Checks every size against the
// bytes that remain before slicing.
Container read_container(std::span<const uint8_t> value, bool object) {
  ByteCursor cursor(value);
  const uint8_t header = static_cast<uint8_t>(cursor.read_u8("variant header") >> 2);
  Container c;
  c.offset_size = (header & 0x3) + 1;
  bool is_large;
  if (object) {
    c.id_size = ((header >> 2) & 0x3) + 1;
    is_large = ((header >> 4) & 0x1) != 0;
  } else {
    is_large = ((header >> 2) & 0x1) != 0;
  }
  c.count = read_unsigned(cursor, is_large ? 4 : 1, "variant element count");
  // Each element needs at least an id (objects), an offset and a header byte of its own.
  const uint64_t per_element = static_cast<uint64_t>(c.id_size + c.offset_size) + 1;
  if (c.count > cursor.remaining() / per_element) {
    fail("a container declares " + std::to_string(c.count) + " elements in " +
         std::to_string(cursor.remaining()) + " bytes");
  }
  c.ids = cursor.read_bytes(static_cast<size_t>(c.count) * static_cast<size_t>(c.id_size),
                            "variant field ids");
  c.offsets = cursor.read_bytes(
      (static_cast<size_t>(c.count) + 1) * static_cast<size_t>(c.offset_size), "variant offsets");
  const uint64_t total = unsigned_at(c.offsets, static_cast<size_t>(c.count), c.offset_size);
  if (total > cursor.remaining()) {
    fail("a container's values (" + std::to_string(total) + " bytes) overrun the value (" +
         std::to_string(cursor.remaining()) + " bytes left)");
  }
  c.values = cursor.rest().subspan(0, static_cast<size_t>(total));
  return c;
}

// A primitive value, by its type id (`header`), its bytes after the header in `cursor`.
void append_primitive(std::string& out, uint8_t header, ByteCursor& cursor) {
  switch (header) {
    case 0:
      out.append("null");
      return;
    case 1:
      out.append("true");
      return;
    case 2:
      out.append("false");
      return;
    case 3:
      out.append(std::to_string(static_cast<int8_t>(cursor.read_u8("variant int8"))));
      return;
    case 4:
      out.append(std::to_string(cursor.read_le<int16_t>("variant int16")));
      return;
    case 5:
      out.append(std::to_string(cursor.read_le<int32_t>("variant int32")));
      return;
    case 6:
      out.append(std::to_string(cursor.read_le<int64_t>("variant int64")));
      return;
    case 7:
      append_floating(out, cursor.read_le<double>("variant double"));
      return;
    case 14:
      append_floating(out, cursor.read_le<float>("variant float"));
      return;
    case 8:
    case 9:
    case 10: {
      const int32_t scale = cursor.read_u8("variant decimal scale");
      const size_t width = header == 8 ? 4 : header == 9 ? 8 : 16;
      const auto little = cursor.read_bytes(width, "variant decimal");
      uint8_t big_endian[16];
      std::reverse_copy(little.begin(), little.end(), big_endian);
      out.push_back('"');
      // 16 bytes and a scale below 256 are within the limits of append_decimal.
      (void)append_decimal(out, std::span<const uint8_t>(big_endian, width), scale);
      out.push_back('"');
      return;
    }
    case 11:
      out.push_back('"');
      append_date(out, cursor.read_le<int32_t>("variant date"));
      out.push_back('"');
      return;
    case 12:
    case 13:
    case 18:
    case 19: {
      const bool nanos = header >= 18;
      const bool utc = header == 12 || header == 18;
      out.push_back('"');
      append_timestamp(out, cursor.read_le<int64_t>("variant timestamp"),
                       nanos ? TimeUnit::NANOS : TimeUnit::MICROS, utc);
      out.push_back('"');
      return;
    }
    case 17:
      out.push_back('"');
      append_time(out, cursor.read_le<int64_t>("variant time"), TimeUnit::MICROS);
      out.push_back('"');
      return;
    case 15:
    case 16: {
      const uint32_t length = cursor.read_le<uint32_t>("variant binary length");
      const auto bytes =
          cursor.read_bytes(length, header == 15 ? "variant binary" : "variant string");
      if (header == 16) {
        append_text_string(out, bytes);
      } else {
        out.push_back('"');
        append_base64(out, bytes);
        out.push_back('"');
      }
      return;
    }
    case 20:
      out.push_back('"');
      append_uuid(out, cursor.read_bytes(16, "variant uuid"));
      out.push_back('"');
      return;
    default:
      fail("unknown primitive type id " + std::to_string(header));
  }
}

}  // namespace

VariantMetadata::VariantMetadata(std::span<const uint8_t> bytes) {
  ByteCursor cursor(bytes);
  const uint8_t header = cursor.read_u8("variant metadata header");
  if ((header & 0x0f) != 1) {
    fail("metadata version " + std::to_string(header & 0x0f) + " (only version 1 is defined)");
  }
  sorted_ = ((header >> 4) & 0x1) != 0;
  offset_size_ = ((header >> 6) & 0x3) + 1;
  const uint64_t size = read_unsigned(cursor, offset_size_, "variant dictionary size");
  if (size >= cursor.remaining() / static_cast<uint64_t>(offset_size_)) {
    fail("the dictionary declares " + std::to_string(size) + " keys in " +
         std::to_string(cursor.remaining()) + " bytes");
  }
  size_ = static_cast<size_t>(size);
  offsets_ = cursor.read_bytes((size_ + 1) * static_cast<size_t>(offset_size_),
                               "variant dictionary offsets");
  strings_ = cursor.rest();
  uint64_t previous = 0;
  for (size_t i = 0; i <= size_; ++i) {
    const uint64_t at = offset(i);
    if ((i == 0 && at != 0) || at < previous || at > strings_.size()) {
      fail("dictionary offset " + std::to_string(i) + " (" + std::to_string(at) +
           ") is out of order or past the " + std::to_string(strings_.size()) + " string bytes");
    }
    previous = at;
  }
}

uint64_t VariantMetadata::offset(size_t i) const { return unsigned_at(offsets_, i, offset_size_); }

std::string_view VariantMetadata::key(uint64_t id) const {
  if (id >= size_) {
    fail("field id " + std::to_string(id) + " is outside the dictionary of " +
         std::to_string(size_) + " keys");
  }
  const auto i = static_cast<size_t>(id);
  const uint64_t begin = offset(i);
  return {reinterpret_cast<const char*>(strings_.data()) + begin,
          static_cast<size_t>(offset(i + 1) - begin)};
}

void VariantDecoder::spend(size_t nodes) {
  if (nodes > budget_) {
    fail("more values than stored bytes (offsets point at the same bytes more than once)");
  }
  budget_ -= nodes;
}

void VariantDecoder::append_json(std::string& out, std::span<const uint8_t> value) {
  append(out, value, 0);
}

bool VariantDecoder::object_fields(std::span<const uint8_t> value, std::vector<Field>& fields) {
  fields.clear();
  if (value.empty()) fail("empty value");
  if ((value[0] & 0x3) != kObject) return false;
  spend(1);
  const Container c = read_container(value, true);
  fields.reserve(static_cast<size_t>(c.count));
  for (uint64_t i = 0; i < c.count; ++i) {
    fields.push_back(
        {metadata_.key(unsigned_at(c.ids, static_cast<size_t>(i), c.id_size)), c.element(i)});
  }
  return true;
}

void VariantDecoder::append(std::string& out, std::span<const uint8_t> value, int depth) {
  spend(1);
  ByteCursor cursor(value);
  const uint8_t first = cursor.read_u8("variant value header");
  const uint8_t header = first >> 2;
  switch (first & 0x3) {
    case kShortString:
      append_text_string(out, cursor.read_bytes(header, "variant short string"));
      return;
    case kObject:
    case kArray:
      append_container(out, value, (first & 0x3) == kObject, depth);
      return;
    default:
      append_primitive(out, header, cursor);
  }
}

// An object or an array, its elements decoded one level deeper.
void VariantDecoder::append_container(std::string& out, std::span<const uint8_t> value, bool object,
                                      int depth) {
  if (depth >= kMaxVariantDepth) {
    fail("nested deeper than " + std::to_string(kMaxVariantDepth) + " levels");
  }
  const Container c = read_container(value, object);
  out.push_back(object ? '{' : '[');
  for (uint64_t i = 0; i < c.count; ++i) {
    if (i > 0) out.push_back(',');
    if (object) {
      const std::string_view key =
          metadata_.key(unsigned_at(c.ids, static_cast<size_t>(i), c.id_size));
      append_text_string(out, {reinterpret_cast<const uint8_t*>(key.data()), key.size()});
      out.push_back(':');
    }
    append(out, c.element(i), depth + 1);
  }
  out.push_back(object ? '}' : ']');
}

}  // namespace kbdata::tabular
