// The decoders of data-page values in the non-dictionary encodings, chosen by encoding and type.
// Dictionary-encoded pages need the chunk's dictionary and are the column reader's to build.
#pragma once

#include <memory>

#include "parquet/encoding/decoder.h"
#include "parquet/types.h"

namespace kbdata::parquet {

// A decoder of `encoding` for values of `type` (`type_length` is the width of
// FIXED_LEN_BYTE_ARRAY and is ignored otherwise):
//   PLAIN                    every type
//   RLE                      BOOLEAN
//   DELTA_BINARY_PACKED      INT32, INT64
//   DELTA_LENGTH_BYTE_ARRAY  BYTE_ARRAY
//   DELTA_BYTE_ARRAY         BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY
//   BYTE_STREAM_SPLIT        FLOAT, DOUBLE, INT32, INT64, FIXED_LEN_BYTE_ARRAY
// Throws UnsupportedError("value encoding X is not supported for TYPE") for any other pair
// (dictionary encodings included), FormatError for FIXED_LEN_BYTE_ARRAY with type_length <= 0.
[[nodiscard]] std::unique_ptr<ValueDecoder> make_value_decoder(Encoding encoding, PhysicalType type,
                                                               int type_length);

}  // namespace kbdata::parquet
