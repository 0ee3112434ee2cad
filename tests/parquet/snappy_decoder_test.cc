// kbdata's snappy decoder against libsnappy's compressor and decoder (the format's reference
// implementation, a peer here) and against a byte-at-a-time decoder written from the format
// description in this file.
#include "parquet/snappy_decoder.h"

#include <gtest/gtest.h>
#include <snappy.h>

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "common/error.h"

namespace kbdata::parquet {
namespace {

using Bytes = std::vector<uint8_t>;

Bytes library_compress(const Bytes& in) {
  std::string out;
  snappy::Compress(reinterpret_cast<const char*>(in.data()), in.size(), &out);
  return Bytes(out.begin(), out.end());
}

// libsnappy's verdict on a stream: the text, or nullopt if it rejects it.
std::optional<Bytes> library_decompress(const Bytes& in) {
  size_t length = 0;
  const auto* p = reinterpret_cast<const char*>(in.data());
  if (!snappy::GetUncompressedLength(p, in.size(), &length) || length > (1u << 24)) {
    return std::nullopt;
  }
  Bytes out(length);
  if (!snappy::RawUncompress(p, in.size(), reinterpret_cast<char*>(out.data()))) {
    return std::nullopt;
  }
  return out;
}

// kbdata's decoder into an output of exactly the declared size (so that a sanitizer sees any
// write past it); the input is an exact-size heap copy for the same reason.
std::optional<Bytes> decode(const Bytes& in) {
  const std::optional<uint64_t> length = snappy_uncompressed_length(in);
  if (!length || *length > (1u << 24)) return std::nullopt;
  const Bytes input(in);
  Bytes out(*length);
  if (!snappy_decompress(input, out)) return std::nullopt;
  return out;
}

// The format description, one byte at a time.
std::optional<Bytes> reference_decode(const Bytes& in) {
  size_t i = 0;
  uint64_t declared = 0;
  for (int shift = 0;; shift += 7) {
    if (i == in.size() || shift > 28) return std::nullopt;
    declared |= static_cast<uint64_t>(in[i] & 0x7f) << shift;
    if ((in[i++] & 0x80) == 0) break;
  }
  if (declared > 0xffffffffu || declared > (1u << 24)) return std::nullopt;
  auto little_endian = [&](size_t bytes) -> std::optional<uint64_t> {
    if (in.size() - i < bytes) return std::nullopt;
    uint64_t v = 0;
    for (size_t k = 0; k < bytes; ++k) v |= static_cast<uint64_t>(in[i + k]) << (8 * k);
    i += bytes;
    return v;
  };
  Bytes out;
  while (i < in.size()) {
    const unsigned tag = in[i++];
    uint64_t length = 0;
    uint64_t offset = 0;
    if ((tag & 3) == 0) {
      length = (tag >> 2) + 1;
      if (length > 60) {
        const std::optional<uint64_t> v = little_endian(length - 60);
        if (!v) return std::nullopt;
        length = *v + 1;
      }
      if (in.size() - i < length || out.size() + length > declared) return std::nullopt;
      out.insert(out.end(), in.begin() + static_cast<ptrdiff_t>(i),
                 in.begin() + static_cast<ptrdiff_t>(i + length));
      i += length;
      continue;
    }
    std::optional<uint64_t> v;
    if ((tag & 3) == 1) {
      length = ((tag >> 2) & 7) + 4;
      v = little_endian(1);
      if (v) *v |= (tag >> 5) << 8;
    } else {
      length = (tag >> 2) + 1;
      v = little_endian((tag & 3) == 2 ? 2 : 4);
    }
    if (!v) return std::nullopt;
    offset = *v;
    if (offset == 0 || offset > out.size() || out.size() + length > declared) return std::nullopt;
    for (uint64_t k = 0; k < length; ++k) out.push_back(out[out.size() - offset]);
  }
  if (out.size() != declared) return std::nullopt;
  return out;
}

// Streams built tag by tag, every kind, pattern copies and boundaries included.
class StreamBuilder {
 public:
  void literal(const Bytes& bytes) {
    const size_t n = bytes.size() - 1;
    if (n < 60) {
      body_.push_back(static_cast<uint8_t>(n << 2));
    } else {
      size_t width = n < (1u << 8) ? 1 : n < (1u << 16) ? 2 : n < (1u << 24) ? 3 : 4;
      body_.push_back(static_cast<uint8_t>((59 + width) << 2));
      for (size_t k = 0; k < width; ++k) body_.push_back(static_cast<uint8_t>(n >> (8 * k)));
    }
    body_.insert(body_.end(), bytes.begin(), bytes.end());
    produced_ += bytes.size();
  }
  // kind 1, 2 or 4: the offset's width in bytes. REQUIRES: a length the kind can say.
  void copy(int kind, uint32_t offset, uint32_t length) {
    if (kind == 1) {
      body_.push_back(static_cast<uint8_t>(1 | (length - 4) << 2 | (offset >> 8) << 5));
      body_.push_back(static_cast<uint8_t>(offset));
    } else {
      body_.push_back(static_cast<uint8_t>((kind == 2 ? 2 : 3) | (length - 1) << 2));
      for (int k = 0; k < kind; ++k) body_.push_back(static_cast<uint8_t>(offset >> (8 * k)));
    }
    produced_ += length;
  }
  size_t produced() const { return produced_; }
  // The stream, declaring `declared` bytes (by default what the tags produce).
  Bytes stream(std::optional<uint64_t> declared = std::nullopt) const {
    Bytes out;
    uint64_t v = declared.value_or(produced_);
    do {
      out.push_back(static_cast<uint8_t>((v & 0x7f) | (v > 0x7f ? 0x80 : 0)));
      v >>= 7;
    } while (v != 0);
    out.insert(out.end(), body_.begin(), body_.end());
    return out;
  }

 private:
  Bytes body_;
  size_t produced_ = 0;
};

Bytes text_bytes(const std::string& s) { return Bytes(s.begin(), s.end()); }

Bytes random_bytes(std::mt19937_64& rng, size_t n, unsigned alphabet) {
  Bytes out(n);
  for (auto& b : out) b = static_cast<uint8_t>(rng() % alphabet);
  return out;
}

// Text with repeats at every distance: what a compressor turns into copies of every kind.
Bytes repetitive_text(std::mt19937_64& rng, size_t n) {
  Bytes out;
  while (out.size() < n) {
    if (out.empty() || rng() % 3 == 0) {
      out.push_back(static_cast<uint8_t>('a' + rng() % 26));
      continue;
    }
    const size_t offset = 1 + rng() % std::min<size_t>(out.size(), rng() % 2 ? 20 : 5000);
    const size_t length = 1 + rng() % 90;
    for (size_t k = 0; k < length; ++k) out.push_back(out[out.size() - offset]);
  }
  out.resize(n);
  return out;
}

// A valid stream of `tags` random tags after a first literal: literals of 1..20 bytes and a tenth
// of 1..`long_literal`, copies of every kind, half of them from at most 20 bytes back (patterns),
// the others from anywhere up to `reach` back (2047 for 1-byte offsets).
Bytes random_stream(std::mt19937_64& rng, size_t tags, size_t long_literal, size_t reach) {
  StreamBuilder b;
  b.literal(random_bytes(rng, 1 + rng() % 80, 256));
  for (size_t t = 0; t < tags; ++t) {
    const int pick = static_cast<int>(rng() % 10);
    if (pick < 3) {
      b.literal(random_bytes(rng, 1 + rng() % (pick == 0 ? long_literal : 20), 256));
    } else {
      const int kind = pick < 6 ? 1 : pick < 9 ? 2 : 4;
      const uint32_t length = kind == 1 ? 4 + rng() % 8 : 1 + rng() % 64;
      const size_t back = std::min<size_t>(b.produced(), kind == 1 ? 2047 : reach);
      const uint32_t offset =
          static_cast<uint32_t>(1 + rng() % (rng() % 2 ? std::min<size_t>(back, 20) : back));
      b.copy(kind, offset, length);
    }
  }
  return b.stream();
}

TEST(SnappyDecoder, DecodesWhatLibsnappyCompressesAtEverySmallSize) {
  std::mt19937_64 rng(1);
  for (size_t n = 0; n <= 400; ++n) {
    for (const Bytes& text : {random_bytes(rng, n, 256), random_bytes(rng, n, 3),
                              repetitive_text(rng, n), Bytes(n, 'x')}) {
      const std::optional<Bytes> decoded = decode(library_compress(text));
      ASSERT_TRUE(decoded) << n;
      ASSERT_EQ(*decoded, text) << n;
    }
  }
}

TEST(SnappyDecoder, DecodesWhatLibsnappyCompressesInLargePages) {
  std::mt19937_64 rng(2);
  for (size_t n : {size_t{65535}, size_t{65536}, size_t{65537}, size_t{1} << 20, size_t{3} << 20}) {
    for (const Bytes& text :
         {random_bytes(rng, n, 256), repetitive_text(rng, n), random_bytes(rng, n, 16)}) {
      const std::optional<Bytes> decoded = decode(library_compress(text));
      ASSERT_TRUE(decoded) << n;
      ASSERT_EQ(*decoded, text) << n;
    }
  }
  // Periods of every length up to past the longest copy, as runs of indentation and repeated
  // lines make them.
  for (size_t period = 1; period <= 70; ++period) {
    Bytes text;
    for (size_t k = 0; k < 5000; ++k) text.push_back(static_cast<uint8_t>('A' + (k % period) % 50));
    const std::optional<Bytes> decoded = decode(library_compress(text));
    ASSERT_TRUE(decoded) << period;
    ASSERT_EQ(*decoded, text) << period;
  }
}

// Every kind of tag, at the start, in the middle (where the fast loop decodes it) and at the end
// of a stream, against the byte-at-a-time decoder.
TEST(SnappyDecoder, EveryTagKindAgreesWithTheFormatDescription) {
  std::mt19937_64 rng(3);
  const Bytes pad = random_bytes(rng, 300, 256);
  int cases = 0;
  for (size_t lead : {size_t{0}, size_t{100}, size_t{300}}) {
    for (size_t trail : {size_t{0}, size_t{5}, size_t{200}}) {
      auto check = [&](auto&& add) {
        StreamBuilder b;
        if (lead > 0) b.literal(Bytes(pad.begin(), pad.begin() + static_cast<ptrdiff_t>(lead)));
        add(b);
        if (trail > 0) b.literal(Bytes(pad.begin(), pad.begin() + static_cast<ptrdiff_t>(trail)));
        const Bytes stream = b.stream();
        const std::optional<Bytes> expected = reference_decode(stream);
        ASSERT_EQ(decode(stream), expected);
        ASSERT_EQ(library_decompress(stream), expected);
        ++cases;
      };
      // Literals of every length form: 1..60 in the tag, then 1, 2 and 3 length bytes.
      for (size_t n : {1, 2, 16, 17, 59, 60, 61, 62, 255, 256, 257, 65536, 65537}) {
        check([&](StreamBuilder& b) { b.literal(random_bytes(rng, n, 256)); });
      }
      // Copies of every kind, offsets from 1 (a run) to the whole output, lengths 1..64.
      for (int kind : {1, 2, 4}) {
        for (uint32_t length = kind == 1 ? 4 : 1; length <= (kind == 1 ? 11u : 64u); ++length) {
          for (uint32_t offset : {1u, 2u, 3u, 5u, 7u, 8u, 9u, 15u, 16u, 17u, 63u, 64u, 65u, 300u}) {
            check([&](StreamBuilder& b) {
              b.literal(random_bytes(rng, 8, 256));
              b.copy(kind, offset, length);  // past the output's start when lead is 0
            });
          }
        }
      }
      // A 1-byte-offset copy reaching back 2047 bytes (its offset's high bits in the tag).
      check([&](StreamBuilder& b) {
        b.literal(random_bytes(rng, 2100, 256));
        b.copy(1, 2047, 11);
        b.copy(1, 256, 4);
      });
    }
  }
  EXPECT_GT(cases, 5000);
}

TEST(SnappyDecoder, RandomStreamsOfEveryTagAgreeWithTheFormatDescription) {
  std::mt19937_64 rng(4);
  for (int round = 0; round < 3000; ++round) {
    const Bytes stream = random_stream(rng, rng() % 200, 300, 100000);
    const std::optional<Bytes> expected = reference_decode(stream);
    ASSERT_TRUE(expected) << round;
    ASSERT_EQ(decode(stream), expected) << round;
  }
}

TEST(SnappyDecoder, CorruptStreamsAreRejectedAsLibsnappyRejectsThem) {
  std::mt19937_64 rng(5);
  int rejected = 0;
  for (int round = 0; round < 20000; ++round) {
    Bytes stream = library_compress(repetitive_text(rng, rng() % (round % 50 == 0 ? 20000 : 600)));
    switch (rng() % 4) {
      case 0:
        stream[rng() % stream.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
        break;
      case 1:
        stream.resize(rng() % stream.size());
        break;
      case 2:
        for (int k = 0; k < 4; ++k) stream[rng() % stream.size()] = static_cast<uint8_t>(rng());
        break;
      default:
        stream.push_back(static_cast<uint8_t>(rng()));
        break;
    }
    const std::optional<Bytes> expected = library_decompress(stream);
    ASSERT_EQ(decode(stream), expected) << round;
    ASSERT_EQ(reference_decode(stream), expected) << round;
    rejected += expected ? 0 : 1;
  }
  EXPECT_GT(rejected, 5000);  // the mutations reach the error paths
}

TEST(SnappyDecoder, OffsetsOutsideTheOutputAreRejected) {
  for (int kind : {1, 2, 4}) {
    StreamBuilder zero;
    zero.literal(Bytes(100, 'a'));
    zero.copy(kind, 0, kind == 1 ? 4 : 8);
    EXPECT_FALSE(decode(zero.stream())) << kind;

    StreamBuilder past;
    past.literal(Bytes(100, 'a'));
    past.copy(kind, 101, kind == 1 ? 4 : 8);
    EXPECT_FALSE(decode(past.stream())) << kind;

    StreamBuilder edge;
    edge.literal(Bytes(100, 'a'));
    edge.copy(kind, 100, kind == 1 ? 4 : 8);
    EXPECT_TRUE(decode(edge.stream())) << kind;
  }
}

TEST(SnappyDecoder, TheDeclaredLengthMustBeTheOutputs) {
  StreamBuilder b;
  b.literal(text_bytes("hello, hello, hello"));
  b.copy(2, 7, 14);
  EXPECT_TRUE(decode(b.stream()));
  EXPECT_FALSE(decode(b.stream(b.produced() + 1)));  // ends short of it
  EXPECT_FALSE(decode(b.stream(b.produced() - 1)));  // runs past it
  const Bytes stream = b.stream();
  Bytes wrong_size(b.produced() + 1);
  EXPECT_FALSE(snappy_decompress(stream, wrong_size));
}

// Reads `stream` through a SnappyStream in views of random sizes, releasing as a page's reader
// does; returns what the views held, in order, and the largest capacity the stream reached.
std::pair<Bytes, size_t> read_streamed(const Bytes& stream, uint64_t length, std::mt19937_64& rng,
                                       size_t max_view, bool release = true) {
  SnappyStream s;
  s.start(stream, length);
  Bytes out;
  size_t peak = 0;
  uint64_t at = 0;
  while (at < length) {
    const size_t n = std::min<uint64_t>(length - at, 1 + rng() % max_view);
    const std::span<const uint8_t> view = s.view(at, n);
    out.insert(out.end(), view.begin(), view.end());
    at += n;
    if (release) s.release(at);
    peak = std::max(peak, s.capacity());
  }
  s.finish();
  return {out, peak};
}

TEST(SnappyStream, ViewsGiveTheStreamsBytesInBoundedMemory) {
  std::mt19937_64 rng(6);
  for (size_t n : {size_t{0}, size_t{1}, size_t{100}, size_t{70000}, size_t{5} << 20}) {
    for (const Bytes& text :
         {repetitive_text(rng, n), random_bytes(rng, n, 256), random_bytes(rng, n, 4)}) {
      const Bytes stream = library_compress(text);
      for (size_t max_view : {size_t{1}, size_t{300}, size_t{20000}, size_t{1} << 20}) {
        if (n > 100000 && max_view == 1) continue;  // (slow, and no different)
        const auto [out, peak] = read_streamed(stream, n, rng, max_view);
        ASSERT_EQ(out, text) << n << " " << max_view;
        // Bounded by the step, the window and the largest view, not by the stream.
        EXPECT_LE(peak, 2 * (SnappyStream::kStep + SnappyStream::kWindow + max_view) + 4096)
            << n << " " << max_view;
      }
    }
  }
}

TEST(SnappyStream, RandomStreamsOfEveryTagReadInPieces) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 50; ++round) {
    // Copies reach back at most 65535 bytes, inside the stream's window.
    const Bytes stream = random_stream(rng, 2000 + rng() % 20000, 3000, 65535);
    const std::optional<Bytes> expected = reference_decode(stream);
    ASSERT_TRUE(expected);
    const auto [out, peak] = read_streamed(stream, expected->size(), rng, 5000);
    ASSERT_EQ(out, *expected) << round;
  }
}

// A copy from further back than the window (no snappy writer kbdata knows of makes one, but the
// format allows it): the stream is decoded again whole, and the views still give its bytes.
TEST(SnappyStream, ACopyFromBeyondTheWindowFallsBackToTheWholeStream) {
  std::mt19937_64 rng(8);
  StreamBuilder b;
  const Bytes start = random_bytes(rng, 1000, 256);
  b.literal(start);
  for (int k = 0; k < 40; ++k) b.literal(random_bytes(rng, 20000, 256));  // 800 KB later
  b.copy(4, static_cast<uint32_t>(b.produced()), 64);  // the first 64 bytes again
  b.literal(random_bytes(rng, 100, 256));
  const Bytes stream = b.stream();
  const std::optional<Bytes> expected = reference_decode(stream);
  ASSERT_TRUE(expected);
  SnappyStream s;
  s.start(stream, expected->size());
  Bytes out;
  for (uint64_t at = 0; at < expected->size(); at += 1000) {
    const size_t n = std::min<uint64_t>(1000, expected->size() - at);
    const auto view = s.view(at, n);
    out.insert(out.end(), view.begin(), view.end());
    s.release(at + n);
  }
  s.finish();
  EXPECT_TRUE(s.whole());
  EXPECT_EQ(out, *expected);
  // Unreleased, the same stream keeps every byte and needs no second decoding.
  const auto [kept, peak] = read_streamed(stream, expected->size(), rng, 1000, false);
  EXPECT_EQ(kept, *expected);
}

TEST(SnappyStream, CorruptStreamsThrowWhenDecodingReachesThem) {
  std::mt19937_64 rng(9);
  int thrown = 0;
  for (int round = 0; round < 1000; ++round) {
    const Bytes text = repetitive_text(rng, 1000 + rng() % (round % 10 == 0 ? 400000 : 40000));
    Bytes stream = library_compress(text);
    switch (rng() % 3) {
      case 0:
        stream[1 + rng() % (stream.size() - 1)] ^= static_cast<uint8_t>(1u << (rng() % 8));
        break;
      case 1:
        stream.resize(1 + rng() % (stream.size() - 1));
        break;
      default:
        stream.push_back(static_cast<uint8_t>(rng()));
        break;
    }
    const std::optional<Bytes> expected = library_decompress(stream);
    try {
      const auto [out, peak] = read_streamed(stream, text.size(), rng, 7000);
      ASSERT_TRUE(expected) << round;  // accepted only what libsnappy accepts
      ASSERT_EQ(out, *expected) << round;
    } catch (const FormatError& e) {
      ASSERT_FALSE(expected && expected->size() == text.size()) << round << ": " << e.what();
      ++thrown;
    }
  }
  EXPECT_GT(thrown, 300);
}

TEST(SnappyStream, TheDeclaredLengthIsChecked) {
  StreamBuilder b;
  b.literal(text_bytes("hello, hello, hello"));
  const Bytes stream = b.stream();
  SnappyStream s;
  EXPECT_THROW(s.start(stream, b.produced() + 1), FormatError);
  EXPECT_THROW(s.start(Bytes{0x80}, 0), FormatError);
  s.start(stream, b.produced());
  EXPECT_THROW((void)s.view(10, b.produced()), FormatError);  // past the declared length
  EXPECT_EQ(s.view(0, 5).size(), 5u);
  s.finish();
  // More tags than the declared length: finish() finds them.
  StreamBuilder longer;
  longer.literal(text_bytes("hello"));
  longer.literal(text_bytes("world"));
  Bytes lying = longer.stream(5);
  s.start(lying, 5);
  EXPECT_THROW(
      {
        (void)s.view(0, 5);  // (decoding goes on past the view, and may find it here)
        s.finish();
      },
      FormatError);
}

// Inputs fuzz_snappy found (fuzz/fuzz_snappy.cc), each kept with what libsnappy makes of it.
TEST(SnappyDecoder, FuzzFindings) {
  // A copy decoded by the careful loop: its source was computed as op[i - offset], whose index
  // wraps below zero (clang's pointer-overflow check); now from op - offset.
  const std::string finding =
      " ,[{\"x\":null},\x05\x0b"
      "80},{\"x\":\"NaN\"}]";
  const Bytes stream = text_bytes(finding);
  EXPECT_EQ(decode(stream), library_decompress(stream));
  EXPECT_EQ(decode(stream), reference_decode(stream));
}

// A literal whose four length bytes are ff ff ff ff says 2^32 bytes (length - 1 is stored,
// format_description.txt, 2.1). No stream holds that many (its length is at most 2^32 - 1), and
// these inputs do not: the stream is corrupt, as the reference decoder of this file reads it, and
// kbdata refuses it, whole and a piece at a time. libsnappy 1.1.9 adds the 1 in 32 bits and
// reads a literal of 0 bytes; fuzz_snappy found the first stream, and allows for libsnappy's
// reading of it (fuzz/fuzz_snappy.cc). Should libsnappy come to refuse them, the expectations on
// it below fail, and the fuzz target's allowance can go.
TEST(SnappyDecoder, ALiteralOfTwoToTheThirtyTwoBytesIsCorrupt) {
  const Bytes empty_then_literal = {0x00, 0xfc, 0xff, 0xff, 0xff, 0xff};
  const Bytes literal_then_abc = {0x03, 0xfc, 0xff, 0xff, 0xff, 0xff, 0x08, 'a', 'b', 'c'};
  EXPECT_EQ(library_decompress(empty_then_literal), Bytes{});
  EXPECT_EQ(library_decompress(literal_then_abc), text_bytes("abc"));
  for (const Bytes& stream : {empty_then_literal, literal_then_abc}) {
    EXPECT_FALSE(decode(stream));
    EXPECT_FALSE(reference_decode(stream));
    SnappyStream piecewise;
    piecewise.start(stream, *snappy_uncompressed_length(stream));
    EXPECT_THROW(
        {
          if (piecewise.length() > 0) (void)piecewise.view(0, 1);
          piecewise.finish();
        },
        FormatError);
  }
  // One below, 2^32 - 1 bytes, is a literal the format allows: it is refused here only because
  // the input ends long before.
  const Bytes long_literal = {0x00, 0xfc, 0xfe, 0xff, 0xff, 0xff};
  EXPECT_FALSE(decode(long_literal));
  EXPECT_EQ(library_decompress(long_literal), std::nullopt);
}

TEST(SnappyDecoder, LengthHeader) {
  EXPECT_EQ(snappy_uncompressed_length(Bytes{0x00}), 0u);
  EXPECT_EQ(snappy_uncompressed_length(Bytes{0x80, 0x00}), 0u);  // not minimal, still a varint
  EXPECT_EQ(snappy_uncompressed_length(Bytes{0xff, 0xff, 0xff, 0xff, 0x0f}), 0xffffffffu);
  EXPECT_FALSE(snappy_uncompressed_length(Bytes{0xff, 0xff, 0xff, 0xff, 0x10}));  // 2^32
  EXPECT_FALSE(snappy_uncompressed_length(Bytes{0x80, 0x80, 0x80, 0x80, 0x80, 0x00}));
  EXPECT_FALSE(snappy_uncompressed_length(Bytes{0x80}));
  EXPECT_FALSE(snappy_uncompressed_length(Bytes{}));
  Bytes empty_output;
  EXPECT_TRUE(snappy_decompress(Bytes{0x00}, empty_output));
  EXPECT_FALSE(snappy_decompress(Bytes{}, empty_output));
}

}  // namespace
}  // namespace kbdata::parquet
