// The Parquet VARIANT binary encoding (parquet-format VariantEncoding.md), decoded to JSON text.
//
// A variant is two byte strings: the metadata (a dictionary of object keys, shared by every value
// of the row) and the value. All integers are little-endian and unsigned unless said otherwise.
//
// Metadata
//   byte 0           header: bits 0-3 version (must be 1), bit 4 sorted_strings, bits 6-7
//                    offset_size - 1 (1..4 bytes)
//   offset_size      dictionary_size
//   offset_size x    (dictionary_size + 1) offsets into the string bytes, non-decreasing, the
//                    first 0 and the last the length of the string bytes
//   ...              the key strings (UTF-8), key i at [offset[i], offset[i + 1])
//   sorted_strings says the keys are unique and sorted; it changes nothing for decoding.
//
// Value: one header byte, basic_type in bits 0-1, a 6-bit value_header in bits 2-7.
//   basic_type 0, primitive: value_header is the type id, the payload follows:
//     0 null  1 true  2 false  3 int8  4 int16  5 int32  6 int64 (two's complement)
//     7 double  14 float (IEEE 754)
//     8 decimal4, 9 decimal8, 10 decimal16: 1 byte scale, then a 4/8/16-byte unscaled integer
//     11 date: int32 days since 1970-01-01
//     12 timestamp, UTC, micros   13 timestamp without zone, micros      (int64 since the epoch)
//     18 timestamp, UTC, nanos    19 timestamp without zone, nanos
//     17 time without zone: int64 microseconds since midnight
//     15 binary, 16 string: 4-byte length, then the bytes
//     20 uuid: 16 bytes, big-endian
//   basic_type 1, short string: value_header is the length (0..63), the UTF-8 bytes follow.
//   basic_type 2, object: value_header bits 0-1 field_offset_size - 1, bits 2-3 field_id_size - 1,
//     bit 4 is_large. Then num_elements (4 bytes if is_large, else 1), num_elements field ids
//     (field_id_size bytes each, indexes into the metadata dictionary, in key order),
//     num_elements + 1 field offsets (field_offset_size bytes each, from the start of the values;
//     the last one is the values' total size), then the values (in any order).
//   basic_type 3, array: value_header bits 0-1 field_offset_size - 1, bit 2 is_large. Then
//     num_elements (4 bytes if is_large, else 1), num_elements + 1 offsets, then the elements.
//
// JSON rendering, as `kbdata cat` renders the corresponding Parquet type (tabular/value_format.h):
// null, true/false, integers as numbers, float/double as shortest round-trip text ("NaN",
// "Infinity", "-Infinity" as strings), decimals as exact strings ("-12.50"), dates
// ("2024-01-31"), timestamps ("2024-01-31T12:34:56.789012", 6 or 9 fraction digits, "Z" when
// UTC), times ("12:34:56.789012"), strings (ill-formed UTF-8 repaired), binaries as base64, uuids
// in 8-4-4-4-12 form, objects as JSON objects in stored field order, arrays as JSON arrays.
//
// Hostile bytes throw FormatError, never read out of bounds: every size and offset is checked
// against the bytes it points into, dictionary ids against the dictionary, nesting against
// kMaxVariantDepth, and the number of values decoded against the value's size (a value whose
// offsets point several times at the same bytes could otherwise expand exponentially).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kbdata::tabular {

// Arrays and objects nested deeper than this are refused (FormatError).
inline constexpr int kMaxVariantDepth = 128;

// A parsed metadata dictionary. Borrows `bytes`: their owner must outlive the object.
class VariantMetadata {
 public:
  // Throws FormatError if `bytes` is not a well-formed version 1 metadata.
  explicit VariantMetadata(std::span<const uint8_t> bytes);

  [[nodiscard]] size_t size() const { return size_; }
  [[nodiscard]] bool sorted() const { return sorted_; }
  // Key `id`. Throws FormatError if id >= size().
  [[nodiscard]] std::string_view key(uint64_t id) const;

 private:
  [[nodiscard]] uint64_t offset(size_t i) const;

  std::span<const uint8_t> offsets_;  // (size_ + 1) offsets of offset_size_ bytes
  std::span<const uint8_t> strings_;
  size_t size_ = 0;
  int offset_size_ = 1;
  bool sorted_ = false;
};

// Decodes the values of one variant (one row). Borrows the metadata.
class VariantDecoder {
 public:
  // `value_bytes`: the size of the row's stored value binaries, which bounds the number of values
  // decoded (each stored value has a header byte of its own). Pass the sum when one row stores
  // several (shredded) value binaries.
  VariantDecoder(const VariantMetadata& metadata, size_t value_bytes)
      : metadata_(metadata), budget_(value_bytes) {}

  // Appends the value that starts at value[0] as JSON. Bytes after it are ignored.
  // Throws FormatError if it is malformed.
  void append_json(std::string& out, std::span<const uint8_t> value);

  struct Field {
    std::string_view key;            // from the metadata
    std::span<const uint8_t> value;  // from the value's bytes: the field's value and what follows
  };
  // The fields of the object that starts at value[0], in stored order. Returns false, leaving
  // `fields` empty, if the value is not an object. Throws FormatError if it is malformed.
  bool object_fields(std::span<const uint8_t> value, std::vector<Field>& fields);

 private:
  void append(std::string& out, std::span<const uint8_t> value, int depth);
  void append_container(std::string& out, std::span<const uint8_t> value, bool object, int depth);
  void spend(size_t nodes);

  const VariantMetadata& metadata_;
  size_t budget_;
};

}  // namespace kbdata::tabular
