// Decompression of page bodies, one codec per Parquet CompressionCodec value.
//
//   UNCOMPRESSED  copied as is
//   SNAPPY        raw snappy block (libsnappy)
//   GZIP          gzip or zlib stream (zlib); concatenated gzip members are read as one
//   BROTLI        brotli stream (libbrotlidec)
//   ZSTD          zstd frames (libzstd); concatenated and skippable frames are read as one
//   LZ4_RAW       raw LZ4 block (liblz4)
//   LZ4           the deprecated codec: Hadoop framing (frames of a big-endian uncompressed size,
//                 a big-endian compressed size and an LZ4 block), else one raw LZ4 block
//   LZO           not read
#pragma once

#include <cstdint>
#include <span>

#include "parquet/types.h"

namespace kbdata::parquet {

// Decompresses `input` (a page's compressed body) into `output`, whose size is the page header's
// uncompressed size. The result must fill `output` exactly. An empty input with an empty output
// is accepted for every codec (writers emit such pages with no compressed stream at all).
// Throws FormatError, naming the codec, if the input is corrupt or decompresses to another size;
// UnsupportedError for LZO and unknown codecs.
// Thread-safe: decompression contexts are kept per thread and reused.
void decompress(Codec codec, std::span<const uint8_t> input, std::span<uint8_t> output);

}  // namespace kbdata::parquet
