// RLE_DICTIONARY and PLAIN_DICTIONARY data pages: indices into the column chunk's dictionary.
//
// The page's values section is one byte holding the indices' bit width (0..32), then the indices
// in the RLE / bit-packed hybrid (rle_bit_packed.h) with no length prefix. The dictionary itself
// is the chunk's dictionary page, decoded by the caller with the PLAIN decoder.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "parquet/encoding/decoder.h"
#include "parquet/encoding/rle_bit_packed.h"
#include "parquet/values.h"

namespace kbdata::parquet {

class DictionaryDecoder final : public ValueDecoder {
 public:
  // A batch of BYTE_ARRAY values gathered from the dictionary may not exceed this many bytes: a
  // small page of indices repeating a large dictionary string must not be able to demand
  // terabytes. Real batches (1024 rows of kernel source) are tens of MB. One exception keeps every
  // value readable: the first value of a batch may be larger on its own (it is bounded by the
  // dictionary page, at most 2 GiB). The column reader ends a batch early rather than ask for
  // values that might not fit (ColumnReader, "batch value cap").
  static constexpr size_t kMaxBatchBytes = size_t{1} << 30;

  // `dictionary` holds the dictionary page's values; decode() appends to buffers of its type and
  // width. It may be shared by several decoders (the units of one chunk, parquet/table_scan.h).
  // REQUIRES: `dictionary` is consistent (count values of its width, or count + 1 offsets).
  explicit DictionaryDecoder(std::shared_ptr<const ValueBuffer> dictionary);
  explicit DictionaryDecoder(ValueBuffer dictionary)
      : DictionaryDecoder(std::make_shared<const ValueBuffer>(std::move(dictionary))) {}

  // Throws FormatError if the bit width byte exceeds 32. An empty `data` is accepted (a page
  // whose values are all null); decode() of any value from it then throws.
  void set_data(std::span<const uint8_t> data, size_t num_values) override;

  // Throws FormatError if fewer than n indices remain (or than n of the page's num_values), an
  // index is outside the dictionary, or BYTE_ARRAY values would take `out` past kMaxBatchBytes
  // (unless `out` is empty and n is 1).
  void decode(size_t n, ValueBuffer& out) override;

  // Appends the next n indices to `out` instead of gathering their values (each checked to be
  // inside the dictionary). Throws FormatError as decode() does.
  void decode_indices(size_t n, std::vector<uint32_t>& out);

  // Moves past n indices without gathering their values. Throws FormatError if fewer than n
  // remain.
  bool skip(size_t n) override;

  [[nodiscard]] const ValueBuffer& dictionary() const { return *dictionary_; }
  [[nodiscard]] const std::shared_ptr<const ValueBuffer>& shared_dictionary() const {
    return dictionary_;
  }
  // The largest dictionary value in bytes (its width for fixed-width types): an upper bound on
  // what each decoded value adds to a batch.
  [[nodiscard]] size_t max_value_bytes() const { return max_value_bytes_; }

 private:
  void gather(const uint32_t* indices, size_t n, ValueBuffer& out) const;
  // Throws FormatError unless n values are left in the page.
  void check_left(size_t n) const;
  // Reads the next n indices into `into` (room for n), checked against the dictionary's size.
  void read_indices(size_t n, size_t done, size_t total, uint32_t* into);

  std::shared_ptr<const ValueBuffer> dictionary_;
  size_t max_value_bytes_ = 0;
  RleBitPackedDecoder indices_;
  size_t values_left_ = 0;
  std::vector<uint32_t> scratch_;  // reused across pages
};

}  // namespace kbdata::parquet
