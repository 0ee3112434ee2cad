// kbdata's own decoder of the raw snappy format (a page body of a SNAPPY column chunk).
//
// The format (snappy's format_description.txt): a varint of the uncompressed length, then tags.
// A tag's low two bits give its kind:
//
//   00  literal: length-1 in the upper six bits, or (values 60..63) in the next 1..4 bytes,
//       little-endian; the literal's bytes follow
//   01  copy, 1-byte offset: length 4..11 in bits 2-4, offset bits 8-10 in bits 5-7, then the
//       offset's low byte
//   10  copy, 2-byte offset: length 1..64 in the upper six bits, then a little-endian offset
//   11  copy, 4-byte offset: as 10 with a 4-byte offset
//
// A copy repeats `length` bytes starting `offset` bytes back in the output (offset < length
// repeats a pattern). Decoding is strict: an offset of 0 or further back than the output so far,
// a tag or literal cut short by the end of the input, output beyond the declared length, and a
// stream that ends short of it are all errors, as libsnappy's decoder has them.
//
// Why not libsnappy's decoder: the library kbdata builds against (Debian 12's 1.1.9) calls memmove
// through the PLT for every tag, about one in eight bytes of text; that call was 37% of `stats`'
// CPU on a snappy file of kernel code. This decoder copies with inline 16- and 64-byte moves and
// picks the next tag without a branch on the tag's kind (docs/parquet.md, "Codecs"). Compression
// stays with libsnappy.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

namespace kbdata::parquet {

// The uncompressed length a snappy stream declares; nullopt when its varint is malformed (cut
// short, longer than 5 bytes, or above 2^32 - 1).
[[nodiscard]] std::optional<uint64_t> snappy_uncompressed_length(std::span<const uint8_t> input);

// Decodes the raw snappy stream `input` into `output`, which must be exactly as long as the
// stream declares. Returns false, with `output` unspecified, if the stream is corrupt or declares
// another length. Reads only `input` and writes only `output`.
[[nodiscard]] bool snappy_decompress(std::span<const uint8_t> input, std::span<uint8_t> output);

}  // namespace kbdata::parquet
