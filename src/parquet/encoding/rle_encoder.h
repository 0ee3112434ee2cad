// Writing the RLE / bit-packed hybrid (the "RLE" encoding; its format is in rle_bit_packed.h),
// used for levels, dictionary indices and RLE booleans.
//
//   encoded-data := run*
//   bit-packed   := ULEB128(groups << 1 | 1) then groups * bit_width bytes: groups of 8 values,
//                   each value bit_width bits, packed least significant bit first
//   rle-run      := ULEB128(count << 1) then the value in ceil(bit_width / 8) little-endian bytes
//
// The run choice is parquet-cpp's, so the bytes match what it writes: values are taken in groups
// of 8; a group whose 8 values are equal starts an RLE run that lasts as long as the value
// repeats; other groups gather into bit-packed runs of at most 63 groups. At the end, values that
// do not fill a group are an RLE run of their exact count if they are all equal and no bit-packed
// run is pending, else a final bit-packed group padded with zeros. (parquet-java differs only
// there: it always pads the tail into a bit-packed group.) A bit-packed run therefore says how
// many groups it holds, not how many values: the reader must know the value count (the page
// header's num_values), as every Parquet reader does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace kbdata::parquet {

// The smallest bit width that holds max_value: 0 for 0, else floor(log2(max_value)) + 1 (so
// 0..32 for 32-bit values, up to 64 in general).
[[nodiscard]] int bit_width_for(uint64_t max_value);

class RleBitPackedEncoder {
 public:
  // REQUIRES: 0 <= bit_width <= 32.
  explicit RleBitPackedEncoder(int bit_width);

  // Adds one value. REQUIRES: value fits in bit_width bits.
  void put(uint32_t value);

  // Adds `count` copies of `value`, in constant time once an RLE run of it is under way (at most
  // 15 single put()s are needed to get there). REQUIRES: value fits in bit_width bits.
  void put_repeated(uint32_t value, size_t count);

  // Appends all runs of the values put so far to `out` (no length prefix; nothing when no value
  // was put) and resets the encoder for reuse with the same bit width.
  void flush(std::vector<uint8_t>& out);

  [[nodiscard]] int bit_width() const { return bit_width_; }

 private:
  // Moves the 8 buffered values into the pending bit-packed run, or drops them when they begin an
  // RLE run.
  void end_group();
  // Writes the pending bit-packed run (if any) to runs_.
  void write_literal_run();
  // Writes the current RLE run of repeat_count_ copies of current_value_ to runs_.
  void write_repeated_run();

  int bit_width_;
  std::vector<uint8_t> runs_;  // the runs completed so far, in order

  uint32_t buffered_[8] = {};  // the current group, not yet assigned to a run
  int num_buffered_ = 0;
  std::vector<uint32_t> literals_;  // the pending bit-packed run (a multiple of 8 values)

  uint32_t current_value_ = 0;
  uint64_t repeat_count_ = 0;  // how often current_value_ repeats since the last literal group
};

// Definition or repetition levels as the hybrid at bit_width_for(max_level), with no length prefix
// (the form of a v2 data page; a v1 page puts the byte length as 4-byte little-endian in front,
// which is the caller's to add). Appends nothing when max_level is 0: such a column stores no
// levels.
// REQUIRES: 0 <= max_level <= 32767 and every level in 0..max_level.
void encode_levels(std::span<const int16_t> levels, int max_level, std::vector<uint8_t>& out);

// Packs `values` (a multiple of 8 of them) at bit_width (0..32) bits each, least significant bit
// first, appending values.size() * bit_width / 8 bytes to `out`.
void pack_bit_packed_groups(std::span<const uint32_t> values, int bit_width,
                            std::vector<uint8_t>& out);

}  // namespace kbdata::parquet
