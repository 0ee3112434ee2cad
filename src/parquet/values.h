// Decoded values of one leaf column, as the decoders produce them.
//
// A ValueBuffer holds only non-null values, densely, in the column's physical representation:
//   - fixed-width types (BOOLEAN as one byte 0/1, INT32, INT64, INT96 as 12 bytes, FLOAT, DOUBLE,
//     FIXED_LEN_BYTE_ARRAY of `width` bytes): `data` is count * width bytes, little-endian as in
//     the file (FIXED_LEN_BYTE_ARRAY bytes as stored);
//   - BYTE_ARRAY: `data` is the values' bytes concatenated and `offsets` has count + 1 entries,
//     value i being data[offsets[i], offsets[i+1]).
// Decoders append; the column reader clears a buffer between batches and reuses its storage.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

#include "common/uninit_allocator.h"
#include "parquet/types.h"

namespace kbdata::parquet {

using ValueBytes = std::vector<uint8_t, UninitAllocator<uint8_t>>;

struct ValueBuffer {
  PhysicalType type = PhysicalType::INT32;
  int width = 4;  // bytes per value for fixed-width types; 0 for BYTE_ARRAY
  size_t count = 0;
  // Bytes grown by resize() are left unwritten (UninitAllocator): decoders write every byte they
  // add before anything reads it.
  ValueBytes data;
  std::vector<uint64_t> offsets{0};

  // An empty buffer for values of `type`; `type_length` is the width of FIXED_LEN_BYTE_ARRAY.
  static ValueBuffer for_type(PhysicalType type, int type_length) {
    ValueBuffer buffer;
    buffer.type = type;
    buffer.width = type == PhysicalType::FIXED_LEN_BYTE_ARRAY ? type_length : fixed_width(type);
    return buffer;
  }

  void clear() {
    count = 0;
    data.clear();
    offsets.assign(1, 0);
  }

  [[nodiscard]] bool is_binary() const { return type == PhysicalType::BYTE_ARRAY; }

  // Value i of a fixed-width buffer as T (T's size must equal width).
  template <typename T>
  [[nodiscard]] T get(size_t i) const {
    T value;
    std::memcpy(&value, data.data() + i * sizeof(T), sizeof(T));
    return value;
  }

  // The bytes of value i (any type).
  [[nodiscard]] std::span<const uint8_t> bytes(size_t i) const {
    if (is_binary()) return {data.data() + offsets[i], offsets[i + 1] - offsets[i]};
    return {data.data() + i * static_cast<size_t>(width), static_cast<size_t>(width)};
  }

  [[nodiscard]] std::string_view string(size_t i) const {
    auto b = bytes(i);
    return {reinterpret_cast<const char*>(b.data()), b.size()};
  }

  void append_binary(std::span<const uint8_t> value) {
    append_uninit(data, value.data(), value.size());
    offsets.push_back(data.size());
    ++count;
  }

  // Appends a BYTE_ARRAY value of 8 bytes, `measure` little-endian (ValueForm::MEASURES).
  void append_measure(uint64_t measure) {
    uint8_t bytes[8];
    for (int k = 0; k < 8; ++k) bytes[k] = static_cast<uint8_t>(measure >> (8 * k));
    append_binary(bytes);
  }

  // Value i of a buffer of measures (append_measure()).
  [[nodiscard]] uint64_t measure(size_t i) const {
    const std::span<const uint8_t> b = bytes(i);
    uint64_t m = 0;
    for (size_t k = 0; k < b.size() && k < 8; ++k) m |= uint64_t{b[k]} << (8 * k);
    return m;
  }
};

// What a reader set to ValueForm::MEASURES keeps of each BYTE_ARRAY value: a number worked out
// from its bytes (its decoded size, say), on the decoding thread. Must be safe to call
// concurrently.
using ValueMeasure = uint64_t (*)(std::span<const uint8_t> value);

}  // namespace kbdata::parquet
