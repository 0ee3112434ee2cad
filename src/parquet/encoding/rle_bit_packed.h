// The RLE / bit-packed hybrid of the Parquet spec ("RLE" encoding), used for levels, dictionary
// indices and RLE booleans.
//
//   encoded-data := run*
//   run          := bit-packed-run | rle-run
//   bit-packed   := ULEB128(groups << 1 | 1) then groups * bit_width bytes: groups of 8 values,
//                   each value bit_width bits, packed least significant bit first
//   rle-run      := ULEB128(count << 1) then the value in ceil(bit_width / 8) little-endian bytes
//
// The length prefix some contexts put in front of the runs is the caller's to strip.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace kbdata::parquet {

class RleBitPackedDecoder {
 public:
  // A decoder with no data: get_batch() produces nothing.
  RleBitPackedDecoder() = default;

  // `data` is borrowed: its owner (the page buffer) must outlive the decoder or the next reset().
  // Throws FormatError if bit_width is outside 0..32.
  RleBitPackedDecoder(std::span<const uint8_t> data, int bit_width) { reset(data, bit_width); }

  // Starts decoding `data` from its first run; same contract as the constructor.
  void reset(std::span<const uint8_t> data, int bit_width);

  // Writes up to n values to out and returns how many it wrote: fewer than n only when the data
  // ends. Bit-packed runs are read as real writers truncate them: values of the last run's final
  // group that lie past the end of the data are not produced (they are padding), and a
  // bit-packed run with too few bytes left for even one value ends the data. Runs of zero values
  // are skipped. Throws FormatError on a run header that is cut off or is not a ULEB128 of at most
  // 32 bits, and on an RLE run whose value is cut off or does not fit in bit_width.
  size_t get_batch(uint32_t* out, size_t n);

  // Skips up to n values; returns how many were skipped (fewer only at end of data). Throws as
  // get_batch() does.
  size_t skip(size_t n);

  // Skips up to n values as skip() does, telling how many were skipped, how many of them equal
  // `value` and the largest of them (0 when none): what a reader dropping rows needs of their
  // levels, without writing them out.
  struct Tally {
    size_t skipped = 0;
    size_t equal = 0;
    uint32_t largest = 0;
  };
  Tally tally(size_t n, uint32_t value);

  [[nodiscard]] int bit_width() const { return bit_width_; }

 private:
  // Reads the next run header into the run state. Returns false at end of data.
  bool next_run();
  // Unpacks the group at pos_ (possibly cut short by the end of the data) into group_.
  void buffer_group();

  const uint8_t* pos_ = nullptr;  // next unread byte of the data
  const uint8_t* end_ = nullptr;
  int bit_width_ = 0;

  uint64_t rle_left_ = 0;  // values left in the current RLE run
  uint32_t rle_value_ = 0;
  uint64_t packed_left_ = 0;  // values left in the current bit-packed run, capped by its bytes

  uint32_t group_[8] = {};  // a bit-packed group unpacked for a request that splits it
  uint32_t group_pos_ = 0;
  uint32_t group_len_ = 0;
};

}  // namespace kbdata::parquet
