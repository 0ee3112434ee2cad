#include "parquet/snappy_decoder.h"

#include <array>
#include <cstddef>
#include <cstring>
#include <string>

#include "common/byte_cursor.h"
#include "common/error.h"

namespace kbdata::parquet {
namespace {

// What the tag byte alone says: how many bytes it produces (0 for a long literal, whose length
// follows), whether the fast loop leaves it to decode_one_tag (a long literal, a 4-byte offset),
// and for a 1-byte-offset copy the offset's bits 8-10.
struct TagInfo {
  uint8_t length;
  bool exceptional;
  uint16_t offset_high;
};

constexpr std::array<TagInfo, 256> make_tag_table() {
  std::array<TagInfo, 256> table{};
  for (unsigned tag = 0; tag < 256; ++tag) {
    const unsigned upper = tag >> 2;
    switch (tag & 3) {
      case 0:  // literal; 60..63 say the length is in the next 1..4 bytes
        table[tag] =
            upper < 60 ? TagInfo{static_cast<uint8_t>(upper + 1), false, 0} : TagInfo{0, true, 0};
        break;
      case 1:
        table[tag] = {static_cast<uint8_t>((upper & 7) + 4), false,
                      static_cast<uint16_t>((tag >> 5) << 8)};
        break;
      case 2:
        table[tag] = {static_cast<uint8_t>(upper + 1), false, 0};
        break;
      default:
        table[tag] = {static_cast<uint8_t>(upper + 1), true, 0};
        break;
    }
  }
  return table;
}

constexpr std::array<TagInfo, 256> kTags = make_tag_table();

// The offset bytes after a tag, by the tag's kind (a literal has none; a 4-byte offset is
// exceptional, so its mask is never used by the fast loop).
constexpr uint32_t kOffsetMask[4] = {0, 0xff, 0xffff, 0xffffffff};

// The fast loop reads at most 65 bytes from a tag (the tag, then a literal's 64 bytes or the next
// tag after it) and writes at most 64 bytes from the output position; it runs while that much
// input and output remain, so it needs no bounds checks of its own. decode_one_tag decodes the
// rest, checking everything.
constexpr ptrdiff_t kInputSlack = 72;
constexpr ptrdiff_t kOutputSlack = 64;

// For a copy whose offset (1..7) is shorter than 8 bytes: the smallest multiple of the offset that
// is at least 8, a distance from which 8-byte moves repeat the same pattern.
constexpr uint8_t kPatternDistance[8] = {0, 8, 8, 9, 8, 10, 12, 14};

uint32_t load32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

uint32_t load_le(const uint8_t* p, size_t bytes) {
  uint32_t v = 0;
  for (size_t i = 0; i < bytes; ++i) v |= static_cast<uint32_t>(p[i]) << (8 * i);
  return v;
}

// Moves of N bytes that read all of `src` before writing `dst` (memmove's meaning), inline.
template <size_t N>
void move_bytes(uint8_t* dst, const uint8_t* src) {
  uint8_t buffer[N];
  std::memcpy(buffer, src, N);
  std::memcpy(dst, buffer, N);
}

// A copy of `length` (<= 64) bytes from `offset` bytes back, offset < length allowed (the pattern
// repeats). REQUIRES: 1 <= offset <= bytes before `op`, 64 bytes writable at `op`: it writes up to
// the next multiple of 8 after `length`, and reads only bytes already written.
void copy_with_slack(uint8_t* op, size_t offset, size_t length) {
  if (offset >= 8) {
    for (size_t i = 0; i < length; i += 8) move_bytes<8>(op + i, op + i - offset);
    return;
  }
  const uint8_t* const src = op - offset;
  for (size_t i = 0; i < 8; ++i) op[i] = src[i];
  const size_t distance = kPatternDistance[offset];
  for (size_t i = 8; i < length; i += 8) move_bytes<8>(op + i, op + i - distance);
}

// Why a decoding step stopped before the end of the input, or that it reached it.
enum class Stop {
  END_OF_INPUT,  // every tag decoded
  NO_ROOM,       // the next tag's bytes do not fit before op_end (it is not decoded)
  CORRUPT,       // a tag cut short, an offset of 0
  FAR_OFFSET,    // a copy from before `base`
};

// Decodes the tag at `ip`, checking the input, the offset and the room before `op_end`. Advances
// `ip` and `op`, or leaves them (and sets `needed` to the tag's length) on NO_ROOM.
Stop decode_one_tag(const uint8_t*& ip, const uint8_t* ip_end, const uint8_t* base, uint8_t*& op,
                    const uint8_t* op_end, size_t& needed) {
  const uint8_t* const tag_at = ip;
  const uint32_t tag = *ip++;
  const size_t upper = tag >> 2;
  size_t length = 0;
  size_t offset = 0;
  switch (tag & 3) {
    case 0: {
      length = upper + 1;
      if (upper >= 60) {
        const size_t bytes = upper - 59;
        if (static_cast<size_t>(ip_end - ip) < bytes) return Stop::CORRUPT;
        length = static_cast<size_t>(load_le(ip, bytes)) + 1;
        ip += bytes;
      }
      if (static_cast<size_t>(ip_end - ip) < length) return Stop::CORRUPT;
      if (static_cast<size_t>(op_end - op) < length) {
        ip = tag_at;
        needed = length;
        return Stop::NO_ROOM;
      }
      std::memcpy(op, ip, length);
      ip += length;
      op += length;
      return Stop::END_OF_INPUT;  // (decoded; the caller goes on)
    }
    case 1:
      if (ip_end - ip < 1) return Stop::CORRUPT;
      length = (upper & 7) + 4;
      offset = (tag >> 5) << 8 | *ip++;
      break;
    case 2:
      if (ip_end - ip < 2) return Stop::CORRUPT;
      length = upper + 1;
      offset = load_le(ip, 2);
      ip += 2;
      break;
    default:
      if (ip_end - ip < 4) return Stop::CORRUPT;
      length = upper + 1;
      offset = load_le(ip, 4);
      ip += 4;
      break;
  }
  if (offset == 0) return Stop::CORRUPT;
  if (offset > static_cast<size_t>(op - base)) return Stop::FAR_OFFSET;
  if (static_cast<size_t>(op_end - op) < length) {
    ip = tag_at;
    needed = length;
    return Stop::NO_ROOM;
  }
  if (op_end - op >= kOutputSlack) {
    copy_with_slack(op, offset, length);
  } else {
    const uint8_t* const src = op - offset;
    for (size_t i = 0; i < length; ++i) op[i] = src[i];
  }
  op += length;
  return Stop::END_OF_INPUT;
}

// Decodes tags from `ip` into `op` until the input ends or a tag stops it (Stop). Copies may
// reach back to `base`. Writes nothing at or past `op_end`.
Stop decode_tags(const uint8_t*& ip, const uint8_t* ip_end, const uint8_t* base, uint8_t*& op,
                 const uint8_t* op_end, size_t& needed) {
  if (ip_end - ip > kInputSlack && op_end - op > kOutputSlack) {
    // A tag at or past ip_limit, or output at or past op_limit, is left to decode_one_tag.
    const uint8_t* const ip_limit = ip_end - kInputSlack;
    const uint8_t* const op_limit = op_end - kOutputSlack;
    while (ip < ip_limit && op < op_limit) {
      uint32_t tag = *ip;
      do {
        // Where the next tag is, for either kind, is known from this tag alone: both candidates
        // are loaded and one is picked, so the loop's chain of dependent loads is one load long.
        const uint8_t* const body = ip + 1;
        const uint32_t kind = tag & 3;
        const bool literal = kind == 0;
        const uint8_t* const next_if_literal = body + (tag >> 2) + 1;
        const uint8_t* const next_if_copy = body + kind;
        const uint32_t tag_if_literal = *next_if_literal;
        const uint32_t tag_if_copy = *next_if_copy;

        const TagInfo info = kTags[tag];
        const size_t length = info.length;
        const size_t offset = (load32(body) & kOffsetMask[kind]) | info.offset_high;
        const auto reach = static_cast<size_t>(op - base);
        // Left to decode_one_tag: long literals, 4-byte offsets, offsets out of range (0 wraps)
        // and copies longer than their offset (a repeated pattern).
        if (info.exceptional | (!literal && ((offset - 1 >= reach) | (length > offset)))) {
          const Stop stop = decode_one_tag(ip, ip_end, base, op, op_end, needed);
          if (stop != Stop::END_OF_INPUT) return stop;
          break;
        }
        // A literal's bytes follow its tag; a copy's come from `offset` back, and since the copy
        // is no longer than its offset, a move of 16 or 64 bytes gives its `length` bytes right
        // (what it writes past them is overwritten by the tags after).
        const uint8_t* const src = literal ? body : op - offset;
        if (length <= 16) {
          move_bytes<16>(op, src);
        } else {
          move_bytes<64>(op, src);
        }
        op += length;
        ip = literal ? next_if_literal : next_if_copy;
        tag = literal ? tag_if_literal : tag_if_copy;
      } while (ip < ip_limit && op < op_limit);
    }
  }
  while (ip < ip_end) {
    const Stop stop = decode_one_tag(ip, ip_end, base, op, op_end, needed);
    if (stop != Stop::END_OF_INPUT) return stop;
  }
  return Stop::END_OF_INPUT;
}

// The declared length and the bytes its varint takes, read by the one ULEB128 reader
// (common/byte_cursor.h); nullopt when the varint is cut short, longer than 5 bytes or above
// 2^32 - 1 (libsnappy's limits).
struct LengthHeader {
  uint64_t length;
  size_t bytes;
};

std::optional<LengthHeader> read_length_header(std::span<const uint8_t> input) {
  ByteCursor cursor(input);
  try {
    const uint64_t length = cursor.read_uleb128("snappy length");
    if (cursor.position() > 5 || length > 0xffffffffu) return std::nullopt;
    return LengthHeader{length, cursor.position()};
  } catch (const Error&) {
    return std::nullopt;
  }
}

}  // namespace

std::optional<uint64_t> snappy_uncompressed_length(std::span<const uint8_t> input) {
  const std::optional<LengthHeader> header = read_length_header(input);
  if (!header) return std::nullopt;
  return header->length;
}

bool snappy_decompress(std::span<const uint8_t> input, std::span<uint8_t> output) {
  const std::optional<LengthHeader> header = read_length_header(input);
  if (!header || header->length != output.size()) return false;
  const uint8_t* ip = input.data() + header->bytes;
  uint8_t* op = output.data();
  size_t needed = 0;
  const Stop stop = decode_tags(ip, input.data() + input.size(), output.data(), op,
                                output.data() + output.size(), needed);
  return stop == Stop::END_OF_INPUT && op == output.data() + output.size();
}

void SnappyStream::corrupt() { throw FormatError("SNAPPY: invalid compressed data"); }

void SnappyStream::start(std::span<const uint8_t> input, uint64_t length) {
  const std::optional<LengthHeader> header = read_length_header(input);
  if (!header) throw FormatError("SNAPPY: invalid compressed data (bad length header)");
  if (header->length != length) {
    // (decompress()'s message for the same page decoded whole)
    throw FormatError("SNAPPY: page decompressed to " + std::to_string(header->length) +
                      " bytes, header says " + std::to_string(length));
  }
  input_ = input;
  ip_ = input.data() + header->bytes;
  length_ = length;
  buffer_start_ = 0;
  filled_ = 0;
  released_ = 0;
  whole_ = false;
  if (buffer_.size() > 4 * (kStep + kWindow)) {
    buffer_.clear();  // (a stream that fell back to whole does not keep its page's storage)
    buffer_.shrink_to_fit();
  }
}

std::span<const uint8_t> SnappyStream::view(uint64_t offset, size_t n) {
  if (offset > length_ || n > length_ - offset) {
    throw FormatError("SNAPPY: reading " + std::to_string(n) + " bytes at " +
                      std::to_string(offset) + " of a page of " + std::to_string(length_) +
                      " bytes");
  }
  decode_to(offset + n);
  return {buffer_.data() + (offset - buffer_start_), n};
}

void SnappyStream::finish() {
  decode_to(length_);
  if (ip_ != input_.data() + input_.size()) corrupt();  // more tags than the declared length
}

void SnappyStream::make_room(size_t bytes) {
  const size_t wanted = filled_ + bytes + kOutputSlack;
  if (wanted <= buffer_.size()) return;
  // Keep what is not released and the window before the next byte.
  const uint64_t produced = buffer_start_ + filled_;
  uint64_t keep_from = std::min<uint64_t>(released_, produced > kWindow ? produced - kWindow : 0);
  keep_from = std::max(keep_from, buffer_start_);
  const auto drop = static_cast<size_t>(keep_from - buffer_start_);
  if (drop > 0) {
    std::memmove(buffer_.data(), buffer_.data() + drop, filled_ - drop);
    filled_ -= drop;
    buffer_start_ = keep_from;
  }
  const size_t needed = filled_ + bytes + kOutputSlack;
  if (needed > buffer_.size()) buffer_.resize(std::max(needed, buffer_.size() * 2));
}

void SnappyStream::decode_whole() {
  std::vector<uint8_t, UninitAllocator<uint8_t>> whole(static_cast<size_t>(length_));
  if (!snappy_decompress(input_, whole)) corrupt();
  buffer_ = std::move(whole);
  buffer_start_ = 0;
  filled_ = static_cast<size_t>(length_);
  ip_ = input_.data() + input_.size();
  whole_ = true;
}

void SnappyStream::decode_to(uint64_t end) {
  const uint8_t* const ip_end = input_.data() + input_.size();
  size_t room = kStep;
  while (buffer_start_ + filled_ < end) {
    if (ip_ == ip_end) corrupt();  // the stream ends before its declared length
    make_room(std::max<size_t>(room, static_cast<size_t>(end - buffer_start_ - filled_)));
    uint8_t* op = buffer_.data() + filled_;
    // Never past the declared length: a tag that would be is corrupt, not short of room.
    const uint64_t left = length_ - (buffer_start_ + filled_);
    const size_t space = buffer_.size() - filled_ - kOutputSlack;
    const bool at_end = left <= space;
    uint8_t* const op_end = op + (at_end ? static_cast<size_t>(left) : space);
    size_t needed = 0;
    const Stop stop = decode_tags(ip_, ip_end, buffer_.data(), op, op_end, needed);
    filled_ = static_cast<size_t>(op - buffer_.data());
    switch (stop) {
      case Stop::END_OF_INPUT:
        if (buffer_start_ + filled_ < end) corrupt();
        return;
      case Stop::NO_ROOM:
        if (at_end) corrupt();
        room = std::max(kStep, needed);
        break;
      case Stop::CORRUPT:
        corrupt();
      case Stop::FAR_OFFSET:
        if (buffer_start_ == 0) corrupt();  // before the stream's first byte
        decode_whole();
        return;
    }
  }
}

}  // namespace kbdata::parquet
