// Writing PLAIN values (the format is in plain_decoder.h) and RLE booleans (boolean_rle_decoder.h).
//
// PLAIN, per physical type:
//   - BOOLEAN: one bit per value, least significant bit first; the last byte is zero-padded;
//   - INT32, INT64, FLOAT, DOUBLE, INT96, FIXED_LEN_BYTE_ARRAY: the values' bytes as stored in the
//     ValueBuffer (little-endian; FIXED_LEN_BYTE_ARRAY as is);
//   - BYTE_ARRAY: each value as a 4-byte little-endian length then its bytes.
// Also the encoding of dictionary pages.
//
// RLE booleans (Encoding::RLE on a BOOLEAN column, data page v1 or v2): the byte length of the
// runs as 4-byte little-endian, then the RLE / bit-packed hybrid (rle_encoder.h) at bit width 1.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "parquet/values.h"

namespace kbdata::parquet {

// Appends values [begin, end) of `values`, PLAIN-encoded, to `out`. A BOOLEAN value is true when
// its byte is nonzero.
// REQUIRES: begin <= end <= values.count; every BYTE_ARRAY value is shorter than 2^32 bytes.
void encode_plain(const ValueBuffer& values, size_t begin, size_t end, std::vector<uint8_t>& out);

// Bytes that encode_plain(values, begin, end, out) appends.
[[nodiscard]] size_t plain_encoded_size(const ValueBuffer& values, size_t begin, size_t end);

// Appends values [begin, end) of a BOOLEAN `values` as RLE booleans: the 4-byte length prefix,
// then the hybrid runs. Zero values give the prefix alone (length 0).
// REQUIRES: values.type is BOOLEAN; begin <= end <= values.count.
void encode_boolean_rle(const ValueBuffer& values, size_t begin, size_t end,
                        std::vector<uint8_t>& out);

}  // namespace kbdata::parquet
