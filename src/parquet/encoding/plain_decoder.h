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

}  // namespace kbdata::parquet
