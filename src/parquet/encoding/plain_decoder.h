// PLAIN encoding, for every physical type:
//   - BOOLEAN: one bit per value, least significant bit first (decoded to one byte 0/1 each);
//   - INT32, INT64, FLOAT, DOUBLE: little-endian, 4 or 8 bytes; INT96: 12 bytes;
//   - BYTE_ARRAY: each value as a 4-byte little-endian length then that many bytes;
//   - FIXED_LEN_BYTE_ARRAY: type_length bytes each.
// Also the encoding of dictionary pages (PLAIN and PLAIN_DICTIONARY dictionaries).
#pragma once

#include <memory>

#include "parquet/encoding/decoder.h"
#include "parquet/types.h"

namespace kbdata::parquet {

// A decoder of PLAIN values of `type`; `type_length` is the byte width of FIXED_LEN_BYTE_ARRAY and
// is ignored for the other types. Its decode() appends to a ValueBuffer made for the same type
// and width. Throws FormatError if `type` is not a physical type or is FIXED_LEN_BYTE_ARRAY with
// type_length <= 0.
[[nodiscard]] std::unique_ptr<ValueDecoder> make_plain_decoder(PhysicalType type, int type_length);

// PLAIN BYTE_ARRAY values read from a PageStream (a page decoded a piece at a time) instead of a
// page's bytes: decode(), skip() and measure() give what the span decoder gives for the same
// bytes, with the same checks, and release each value's bytes once past them.
class StreamedByteArrayDecoder final : public ValueDecoder {
 public:
  // Starts on `num_values` values at `offset` of `stream` (borrowed until the next set_stream()).
  void set_stream(PageStream& stream, uint64_t offset, size_t num_values);
  // Not used: this decoder reads a stream. REQUIRES: never called.
  void set_data(std::span<const uint8_t> data, size_t num_values) override;
  void decode(size_t n, ValueBuffer& out) override;
  [[nodiscard]] bool skip(size_t n) override;
  void measure(size_t n, ValueMeasure fn, ValueBuffer& out, ValueBuffer& scratch) override;

 private:
  // Calls each(value) for the next n values, checking each length against the page.
  template <typename Each>
  void walk(size_t n, Each&& each);

  PageStream* stream_ = nullptr;
  uint64_t pos_ = 0;
  size_t values_left_ = 0;
};

}  // namespace kbdata::parquet
