// Writing DELTA_BINARY_PACKED and DELTA_LENGTH_BYTE_ARRAY (the formats are in
// delta_binary_packed.h and delta_length_byte_array.h).
//
//   stream := header block*
//   header := ULEB128(128) ULEB128(4) ULEB128(value count) zigzag ULEB128(first value)
//   block  := zigzag ULEB128(min delta), 4 bit-width bytes, then the miniblocks: each 32 deltas
//             minus min delta, bit-packed least significant bit first at its width
//
// Blocks of 128 values in 4 miniblocks of 32, as parquet-cpp and parquet-java write them. The
// first value sits in the header; the next ones form blocks of up to 128 deltas, so 0 or 1 values
// are a header alone. In the last block, a miniblock past the last delta has width 0 and no data,
// and the last used miniblock is padded with zeros to 32 deltas. Each miniblock's width is the
// smallest that holds its largest (delta - min delta), computed over its real deltas only.
//
// Arithmetic is modulo 2^32 for INT32 and 2^64 for INT64: deltas wrap, min delta is a signed
// value of the type, and delta - min delta fits in 32 (INT32) or 64 (INT64) bits, so every value,
// extremes included, round-trips through a decoder that adds modulo the type's width.
//
// DELTA_LENGTH_BYTE_ARRAY: the values' lengths as a DELTA_BINARY_PACKED stream of INT32, then the
// values' bytes concatenated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "parquet/values.h"

namespace kbdata::parquet {

// Appends values [begin, end) of `values` as one DELTA_BINARY_PACKED stream.
// REQUIRES: values.type is INT32 or INT64; begin <= end <= values.count.
void encode_delta_binary_packed(const ValueBuffer& values, size_t begin, size_t end,
                                std::vector<uint8_t>& out);

// Appends `values` as one DELTA_BINARY_PACKED stream of INT32 (the length streams of the
// byte-array encodings).
void encode_delta_binary_packed_int32(std::span<const int32_t> values, std::vector<uint8_t>& out);

// Appends `values` as one DELTA_BINARY_PACKED stream of INT64.
void encode_delta_binary_packed_int64(std::span<const int64_t> values, std::vector<uint8_t>& out);

// Appends values [begin, end) of a BYTE_ARRAY `values` as DELTA_LENGTH_BYTE_ARRAY.
// REQUIRES: values.type is BYTE_ARRAY; begin <= end <= values.count; every value is at most
// INT32_MAX bytes.
void encode_delta_length_byte_array(const ValueBuffer& values, size_t begin, size_t end,
                                    std::vector<uint8_t>& out);

}  // namespace kbdata::parquet
