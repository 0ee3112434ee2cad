// BYTE_STREAM_SPLIT (FLOAT, DOUBLE, INT32, INT64, FIXED_LEN_BYTE_ARRAY): the N values of W bytes
// each are stored as W streams of N bytes, stream j holding byte j of every value. N is the
// page's value bytes / W.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "parquet/encoding/decoder.h"

namespace kbdata::parquet {

class ByteStreamSplitDecoder final : public ValueDecoder {
 public:
  // REQUIRES: width > 0 (4 or 8, or the FIXED_LEN_BYTE_ARRAY type length).
  explicit ByteStreamSplitDecoder(size_t width) : width_(width) {}

  // Throws FormatError if the size of `data` is not a multiple of the width.
  void set_data(std::span<const uint8_t> data, size_t num_values) override;

  // Throws FormatError if fewer than n values remain.
  void decode(size_t n, ValueBuffer& out) override;

 private:
  size_t width_;
  std::span<const uint8_t> data_;  // the page's streams, owned by the page buffer
  size_t count_ = 0;               // N: values in the page
  size_t pos_ = 0;                 // next value
};

}  // namespace kbdata::parquet
