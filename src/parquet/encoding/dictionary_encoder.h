// Writing dictionary encoding (RLE_DICTIONARY data pages and their PLAIN dictionary page; the
// format is in dictionary_decoder.h).
//
// The dictionary page body is the distinct values in order of first appearance, PLAIN-encoded
// (plain_encoder.h). A data page body is one byte holding the indices' bit width, then the
// indices as the RLE / bit-packed hybrid (rle_encoder.h) with no length prefix. The bit width is
// parquet-cpp's: bit_width_for(dictionary_size - 1), but 1 for a dictionary of one entry and 0
// for an empty one.
//
// Values are equal when their bytes are: -0.0 and 0.0 are distinct entries, and so are NaNs with
// different bit patterns, while equal NaN bit patterns share one entry.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "parquet/types.h"
#include "parquet/values.h"

namespace kbdata::parquet {

class DictionaryEncoder {
 public:
  // A dictionary of values of `type`; `width` as in ValueBuffer::width (the byte width of
  // FIXED_LEN_BYTE_ARRAY; ignored for the other types, whose width is fixed or, for BYTE_ARRAY,
  // 0).
  // REQUIRES: width > 0 for FIXED_LEN_BYTE_ARRAY.
  DictionaryEncoder(PhysicalType type, int width);

  // The index of value i of `values` in the dictionary, adding it as the next index if new.
  // Amortized constant time: an open-addressing hash table of indices into values().
  // REQUIRES: values has this dictionary's type and width; i < values.count; the dictionary
  // holds fewer than 2^32 - 1 entries.
  uint32_t insert(const ValueBuffer& values, size_t i);

  // insert() for values [begin, end), appending their indices to `indices`.
  void insert_range(const ValueBuffer& values, size_t begin, size_t end,
                    std::vector<uint32_t>& indices);

  // Entries in the dictionary.
  [[nodiscard]] size_t size() const { return values_.count; }

  // Bytes of the dictionary page body that encode_dictionary() appends.
  [[nodiscard]] size_t plain_size() const { return plain_size_; }

  // The entries, index i being value i.
  [[nodiscard]] const ValueBuffer& values() const { return values_; }

  // Appends the dictionary page body: the entries PLAIN-encoded, in index order.
  void encode_dictionary(std::vector<uint8_t>& out) const;

  // Empties the dictionary (for the next column chunk), keeping its storage.
  void clear();

 private:
  void grow();

  ValueBuffer values_;
  size_t plain_size_ = 0;
  // Open addressing with linear probing, at most half full. A slot is 0 when empty, else the
  // entry's hash in the high 32 bits and its index + 1 in the low 32 bits.
  std::vector<uint64_t> slots_;
  uint64_t mask_ = 0;  // slots_.size() - 1 (a power of two)
};

// Appends a dictionary-indices data page body for a dictionary of `dictionary_size` entries: the
// bit-width byte, then the indices as the hybrid. Zero indices give the width byte alone.
// REQUIRES: every index < dictionary_size.
void encode_dictionary_indices(std::span<const uint32_t> indices, size_t dictionary_size,
                               std::vector<uint8_t>& out);

// The bit width encode_dictionary_indices() uses for a dictionary of `dictionary_size` entries.
[[nodiscard]] int dictionary_index_bit_width(size_t dictionary_size);

}  // namespace kbdata::parquet
