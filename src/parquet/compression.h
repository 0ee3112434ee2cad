// Decompression of page bodies, one codec per Parquet CompressionCodec value.
//
//   UNCOMPRESSED  copied as is
//   SNAPPY        raw snappy block (kbdata's decoder, snappy_decoder.h)
//   GZIP          gzip or zlib stream (zlib); concatenated gzip members are read as one
//   BROTLI        brotli stream (libbrotlidec)
//   ZSTD          zstd frames (libzstd); concatenated and skippable frames are read as one
//   LZ4_RAW       raw LZ4 block (liblz4)
//   LZ4           the deprecated codec: Hadoop framing (frames of a big-endian uncompressed size,
//                 a big-endian compressed size and an LZ4 block), else one raw LZ4 block
//   LZO           not read
//
// Compression for the writer (compression_encode.cc) writes one stream per page:
//   SNAPPY raw block, GZIP one gzip member (zlib deflate, as parquet-cpp writes), BROTLI one
//   brotli stream, ZSTD one frame with its content size, LZ4_RAW one raw block. The deprecated
//   LZ4 and LZO are never written.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "parquet/types.h"

namespace kbdata::parquet {

// Decompresses `input` (a page's compressed body) into `output`, whose size is the page header's
// uncompressed size. The result must fill `output` exactly. An empty input with an empty output
// is accepted for every codec (writers emit such pages with no compressed stream at all).
// Throws FormatError, naming the codec, if the input is corrupt or decompresses to another size;
// UnsupportedError for LZO and unknown codecs.
// Thread-safe: decompression contexts are kept per thread and reused.
void decompress(Codec codec, std::span<const uint8_t> input, std::span<uint8_t> output);

// The levels a codec takes and its default. The defaults:
//   ZSTD    1..22, 3: libzstd's own default (ZSTD_CLEVEL_DEFAULT), also DuckDB's and Arrow's.
//           Negative "fast" levels are not offered: LZ4_RAW and SNAPPY cover that ground.
//   GZIP    1..9, 6: zlib's Z_DEFAULT_COMPRESSION and DuckDB's. (Arrow defaults to 9, which costs
//           much more time for a few percent.)
//   BROTLI  0..11, 8: Arrow's default. Brotli's own default, 11, is several times slower for
//           little gain; Arrow measured 8 as the best trade-off for Parquet pages.
struct CompressionLevels {
  int min;
  int max;
  int default_level;
};

// The level range of `codec`; nullopt for codecs without levels (UNCOMPRESSED, SNAPPY, LZ4_RAW)
// and for codecs compress() does not write.
[[nodiscard]] std::optional<CompressionLevels> compression_levels(Codec codec);

// Compresses `input` (one page body, borrowed for the call) with `codec` and appends the
// compressed bytes to `out`. `level` is ignored by codecs without levels.
// REQUIRES: `level` within compression_levels(codec) for codecs with levels (callers validate user
// input against it).
// An empty input gives the codec's stream of nothing (decompress() reads both it and an empty
// input as an empty page).
// Throws UnsupportedError for LZ4 (deprecated: write LZ4_RAW), LZO and unknown codecs, and for
// inputs of 2 GiB or more (a page's size is an int32 in its header).
// Thread-safe: compression contexts (ZSTD_CCtx, zlib deflate stream, LZ4 state) are kept per
// thread and reused; brotli has no reusable encoder state, so each call builds one.
void compress(Codec codec, int level, std::span<const uint8_t> input, std::vector<uint8_t>& out);

// The codec a command-line name stands for, case-insensitively: none or uncompressed, snappy,
// gzip, zstd, lz4_raw, brotli. nullopt for unknown names.
// Throws UsageError for "lz4", saying to write lz4_raw instead: the LZ4 codec value means
// Hadoop-framed blocks, which readers disagree about, so kbdata never writes it.
[[nodiscard]] std::optional<Codec> codec_from_name(std::string_view name);

}  // namespace kbdata::parquet
