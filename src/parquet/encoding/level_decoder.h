// Definition and repetition levels of one data page.
//
// Levels are stored with bit width ceil(log2(max_level + 1)) in one of two encodings:
//   - RLE: the RLE / bit-packed hybrid (rle_bit_packed.h). In a v1 data page it is preceded by
//     its byte length as a 4-byte little-endian integer; in a v2 page the header gives the
//     length and there is no prefix.
//   - BIT_PACKED (deprecated, v1 pages only): num_values levels packed most significant bit
//     first, in ceil(num_values * bit_width / 8) bytes.
// A column whose max level is 0 stores no levels: all its levels are 0.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "parquet/encoding/rle_bit_packed.h"
#include "parquet/types.h"

namespace kbdata::parquet {

class LevelDecoder {
 public:
  // Bit width of levels up to max_level: ceil(log2(max_level + 1)), 0 for max_level 0.
  [[nodiscard]] static int bit_width(int max_level);

  // Starts on the levels at the front of a v1 data page's bytes (`data` runs to the end of the
  // page, borrowed until the next set_data call) for a page of `num_values` values (nulls
  // included). Returns the bytes the levels occupy, so that the next section starts at
  // data.subspan(returned): 4 + the prefixed length for RLE, ceil(num_values * bit_width / 8) for
  // BIT_PACKED, 0 when max_level is 0. Throws FormatError if the levels overrun `data` or
  // max_level is outside 0..32767, UnsupportedError for another encoding.
  size_t set_data_v1(Encoding encoding, int max_level, std::span<const uint8_t> data,
                     size_t num_values);

  // The bytes set_data_v1() would find the levels to occupy at the front of a page of
  // `page_bytes` bytes whose first bytes are `prefix` (at least 4 of them, or the whole page),
  // with the same checks: for a page decoded a piece at a time, whose levels are copied out of
  // it first.
  [[nodiscard]] static size_t v1_bytes(Encoding encoding, int max_level,
                                       std::span<const uint8_t> prefix, uint64_t page_bytes,
                                       size_t num_values);

  // Starts on a v2 data page's levels: `data` is exactly the levels section (RLE hybrid, no
  // prefix), borrowed until the next set_data call. Throws FormatError if max_level is outside
  // 0..32767.
  void set_data_v2(int max_level, std::span<const uint8_t> data);

  // Writes the next n levels to out. Throws FormatError if fewer than n levels remain or one
  // exceeds max_level.
  void decode(size_t n, int16_t* out);

  // Passes the next n levels and returns how many equal `level`; throws as decode() does.
  size_t count(size_t n, int16_t level);

 private:
  void decode_rle(size_t n, int16_t* out);
  void decode_bit_packed(size_t n, int16_t* out);

  enum class Mode { kZero, kRle, kBitPacked };
  Mode mode_ = Mode::kZero;
  int max_level_ = 0;
  int bit_width_ = 0;

  RleBitPackedDecoder rle_;
  std::vector<uint32_t> scratch_;  // reused across pages

  std::span<const uint8_t> packed_;  // BIT_PACKED: the levels' bytes
  size_t packed_left_ = 0;           // BIT_PACKED: levels not yet decoded
  uint64_t packed_bit_ = 0;          // BIT_PACKED: bit offset of the next level
};

}  // namespace kbdata::parquet
