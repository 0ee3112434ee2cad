// DELTA_BINARY_PACKED: INT32 and INT64 values as deltas, bit-packed in miniblocks.
//
//   stream := header block*
//   header := ULEB128(block size in values, a multiple of 128)
//             ULEB128(miniblocks per block; block size / it is a multiple of 32)
//             ULEB128(total value count)
//             zigzag ULEB128(first value)
//   block  := zigzag ULEB128(min delta), one bit-width byte per miniblock, then the miniblocks:
//             each (block size / miniblocks) deltas minus min delta, bit-packed least significant
//             bit first at its width
//
// Value i + 1 = value i + min delta + packed delta, modulo 2^32 (INT32) or 2^64 (INT64). A
// miniblock's bit width may be up to 64 for INT32 too: a writer that computes the deltas of INT32
// values in 64 bits without wrapping needs 33 bits for a jump from INT32_MIN to INT32_MAX (DuckDB
// 1.5 does; PARQUET-2435 says readers should accept it), and the sum taken modulo 2^32 is the same
// value either way. Wider than 64 is an error. In the last block the miniblocks past the last value
// carry no data (their width bytes are present but ignored); the last used miniblock is padded to
// its full size, which is tolerated missing at the very end of the data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "parquet/encoding/decoder.h"

namespace kbdata::parquet {

// The widest miniblock a reader accepts, for INT32 as for INT64 (see above).
inline constexpr int kMaxDeltaBitWidth = 64;

// The decoding engine, shared with DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY (whose lengths are
// a DELTA_BINARY_PACKED stream of INT32). Values are produced as uint64, the arithmetic wrapping
// modulo 2^64; an INT32 stream's values are their low 32 bits, which are the sum modulo 2^32
// whatever the miniblock widths. Holds no allocation: the bit widths are read in place and values
// are unpacked eight at a time.
class DeltaBitPackedStream {
 public:
  // Parses the header at the start of `data` (borrowed: its owner, the page buffer, must outlive
  // the stream or the next reset()). An empty `data` is a stream of no values (a page whose values
  // are all null). max_bit_width (at most 64) is the widest miniblock accepted: the decoders pass
  // kMaxDeltaBitWidth for every type; a test of a writer passes the type's width to check that
  // the writer needs no more. Throws FormatError if the header is cut off or its block layout is
  // invalid.
  void reset(std::span<const uint8_t> data, int max_bit_width);

  // Values not yet produced.
  [[nodiscard]] uint64_t values_left() const { return total_left_; }

  // Writes the next n values to `out`. Throws FormatError if fewer than n values are left, or a
  // block header or miniblock is cut off, or a used miniblock's bit width exceeds max_bit_width.
  void next(uint64_t* out, size_t n);

  // The byte length of the whole stream within `data` (where the bytes that follow it start),
  // found by walking the remaining block headers without unpacking. Throws as next() does.
  [[nodiscard]] size_t end_offset() const;

 private:
  void read_block_header();
  void start_miniblock();
  void unpack_group();

  std::span<const uint8_t> data_;
  size_t pos_ = 0;  // next unread structure byte: past the header, block header or miniblock
  int max_bit_width_ = 64;
  uint64_t values_per_miniblock_ = 0;
  uint64_t miniblocks_ = 0;
  uint64_t total_left_ = 0;  // values not yet produced
  bool first_pending_ = false;
  uint64_t last_ = 0;
  uint64_t min_delta_ = 0;
  size_t widths_ = 0;                   // offset of the current block's bit-width bytes
  uint64_t next_miniblock_ = 0;         // index in the block of the next miniblock to start
  uint64_t miniblock_values_left_ = 0;  // values of the current miniblock not yet unpacked
  int width_ = 0;                       // the current miniblock's bit width
  size_t group_at_ = 0;                 // offset of the current miniblock's next group of 8
  size_t miniblock_end_ = 0;  // end of the current miniblock's data (capped by the data's end)
  uint64_t group_[8] = {};
  uint32_t group_pos_ = 0;
  uint32_t group_len_ = 0;
};

// A DELTA_BINARY_PACKED decoder for `type` INT32 or INT64.
// REQUIRES: type is INT32 or INT64 (make_value_decoder checks).
class DeltaBinaryPackedDecoder final : public ValueDecoder {
 public:
  explicit DeltaBinaryPackedDecoder(PhysicalType type);

  // Throws FormatError as DeltaBitPackedStream::reset() does.
  void set_data(std::span<const uint8_t> data, size_t num_values) override;

  // Throws FormatError if the page's stream holds fewer than n more values or is malformed.
  void decode(size_t n, ValueBuffer& out) override;

 private:
  PhysicalType type_;
  DeltaBitPackedStream stream_;
  std::vector<uint64_t> scratch_;  // reused across pages
};

// Decodes the next n lengths of an INT32 DELTA_BINARY_PACKED stream (the length or prefix-length
// stream of the byte-array encodings) into `out`. Throws FormatError if a length is negative or
// the stream is malformed or ends early; `what` names the lengths in messages.
void next_lengths(DeltaBitPackedStream& stream, size_t n, std::vector<uint64_t>& scratch,
                  uint32_t* out, const char* what);

}  // namespace kbdata::parquet
