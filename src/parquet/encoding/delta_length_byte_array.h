// DELTA_LENGTH_BYTE_ARRAY (BYTE_ARRAY): the values' lengths as a DELTA_BINARY_PACKED stream of
// INT32, then the values' bytes concatenated.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "parquet/encoding/decoder.h"
#include "parquet/encoding/delta_binary_packed.h"

namespace kbdata::parquet {

class DeltaLengthByteArrayDecoder final : public ValueDecoder {
 public:
  // Finds where the bytes start by walking the length stream's block headers. An empty `data` is
  // a page of no values. Throws FormatError if the length stream is malformed or cut off.
  void set_data(std::span<const uint8_t> data, size_t num_values) override;

  // Appends n BYTE_ARRAY values. Throws FormatError if fewer than n remain, a length is negative,
  // or the lengths overrun the bytes.
  void decode(size_t n, ValueBuffer& out) override;

  // Values not yet decoded (the length stream's count).
  [[nodiscard]] uint64_t values_left() const { return lengths_.values_left(); }

 private:
  DeltaBitPackedStream lengths_;
  std::span<const uint8_t> bytes_;  // the values' bytes, owned by the page buffer
  size_t bytes_pos_ = 0;
  std::vector<uint64_t> scratch_;  // reused across pages
  std::vector<uint32_t> batch_lengths_;
};

}  // namespace kbdata::parquet
