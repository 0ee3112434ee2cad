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

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "common/uninit_allocator.h"
#include "parquet/encoding/decoder.h"

namespace kbdata::parquet {

// The uncompressed length a snappy stream declares; nullopt when its varint is malformed (cut
// short, longer than 5 bytes, or above 2^32 - 1).
[[nodiscard]] std::optional<uint64_t> snappy_uncompressed_length(std::span<const uint8_t> input);

// Decodes the raw snappy stream `input` into `output`, which must be exactly as long as the
// stream declares. Returns false, with `output` unspecified, if the stream is corrupt or declares
// another length. Reads only `input` and writes only `output`.
[[nodiscard]] bool snappy_decompress(std::span<const uint8_t> input, std::span<uint8_t> output);

// One snappy stream decoded a piece at a time, so that a page far larger than the values read
// from it at once (DuckDB writes pages of 100 MB of code) is never held decoded whole: the stream
// keeps what was decoded and not yet released, the last kWindow bytes (copies reach back into
// them), and the bytes of the step being decoded. Every snappy writer kbdata knows of compresses
// in blocks of 64 KiB, so no copy reaches further back; a stream whose copy does is decoded again
// whole, transparently (whole() then says so), and holds its whole output from then on.
// Corrupt input throws FormatError, as decompress() does, once decoding reaches it.
class SnappyStream final : public PageStream {
 public:
  static constexpr size_t kWindow = size_t{64} << 10;
  static constexpr size_t kStep = size_t{256} << 10;  // decoded per step, at least

  // Starts decoding `input` (borrowed until the next start()), a stream that must declare
  // `length` bytes. Throws FormatError naming SNAPPY if its length header is malformed or
  // declares another length.
  void start(std::span<const uint8_t> input, uint64_t length);

  [[nodiscard]] uint64_t length() const override { return length_; }

  // The decoded bytes [offset, offset + n), decoded as far as needed; valid until the next call
  // of view(), finish() or start(). REQUIRES: offset >= what was released. Throws FormatError if
  // the range passes the declared length or the stream is corrupt before its end.
  std::span<const uint8_t> view(uint64_t offset, size_t n) override;

  // The bytes before `offset` will not be viewed again.
  void release(uint64_t offset) override {
    if (offset > released_) released_ = offset;
  }

  // Decodes the rest and checks that the stream decodes to exactly its declared length (as
  // decompress() does for a whole page). Throws FormatError otherwise.
  void finish();

  [[nodiscard]] bool whole() const { return whole_; }
  // Bytes of decoded output the stream holds storage for (its memory).
  [[nodiscard]] size_t capacity() const { return buffer_.size(); }

 private:
  // Decodes until `end` bytes of the stream are decoded (or it ends).
  void decode_to(uint64_t end);
  // Makes room for at least `bytes` more decoded bytes (plus the decoder's slack), dropping what
  // is released and outside the window first.
  void make_room(size_t bytes);
  // A copy reached back past the window: decodes the whole stream again into buffer_.
  void decode_whole();
  [[noreturn]] static void corrupt();

  std::span<const uint8_t> input_;
  const uint8_t* ip_ = nullptr;  // next tag
  uint64_t length_ = 0;
  std::vector<uint8_t, UninitAllocator<uint8_t>> buffer_;
  uint64_t buffer_start_ = 0;  // stream offset of buffer_[0]
  size_t filled_ = 0;          // decoded bytes in buffer_
  uint64_t released_ = 0;
  bool whole_ = false;
};

}  // namespace kbdata::parquet
