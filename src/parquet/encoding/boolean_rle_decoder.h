// RLE-encoded BOOLEAN values (encoding RLE on a BOOLEAN column's data page, v1 or v2): a 4-byte
// little-endian byte length, then the values as the RLE / bit-packed hybrid of bit width 1.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "parquet/encoding/decoder.h"
#include "parquet/encoding/rle_bit_packed.h"

namespace kbdata::parquet {

class BooleanRleDecoder final : public ValueDecoder {
 public:
  // Throws FormatError if the length prefix is cut off or overruns `data`. An empty `data` is
  // accepted (a page whose values are all null); decode() of any value from it then throws.
  void set_data(std::span<const uint8_t> data, size_t num_values) override;

  // Appends n values, one byte 0/1 each. Throws FormatError if fewer than n remain.
  void decode(size_t n, ValueBuffer& out) override;

 private:
  RleBitPackedDecoder values_;
  size_t values_left_ = 0;
  std::vector<uint32_t> scratch_;  // reused across pages
};

}  // namespace kbdata::parquet
