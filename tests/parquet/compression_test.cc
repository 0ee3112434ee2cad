// Page decompression: data compressed here with each codec's own library, then read back.
// Page compression (compress(), codec_from_name()): round trips through decompress().

#include "parquet/compression.h"

#include <brotli/encode.h>
#include <gtest/gtest.h>
#include <lz4.h>
#include <snappy.h>
#include <zlib.h>
#include <zstd.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "common/error.h"

namespace kbdata::parquet {
namespace {

using Bytes = std::vector<uint8_t>;

// Compressible text followed by incompressible bytes.
Bytes sample(size_t text_bytes = 50000, size_t random_bytes = 5000, uint32_t seed = 1) {
  Bytes out;
  const std::string line = "kernel,score,42.5,some repeated payload text\n";
  while (out.size() < text_bytes) out.insert(out.end(), line.begin(), line.end());
  out.resize(text_bytes);
  std::mt19937 rng(seed);
  for (size_t i = 0; i < random_bytes; ++i) out.push_back(static_cast<uint8_t>(rng()));
  return out;
}

Bytes snappy_compress(const Bytes& in) {
  std::string out;
  snappy::Compress(reinterpret_cast<const char*>(in.data()), in.size(), &out);
  return Bytes(out.begin(), out.end());
}

// window_bits 15 + 16 writes a gzip member, 15 a zlib stream.
Bytes deflate_compress(const Bytes& in, int window_bits) {
  z_stream stream{};
  EXPECT_EQ(
      deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY),
      Z_OK);
  Bytes out(deflateBound(&stream, in.size()) + 32);
  stream.next_in = const_cast<Bytef*>(in.data());
  stream.avail_in = static_cast<uInt>(in.size());
  stream.next_out = out.data();
  stream.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&stream, Z_FINISH), Z_STREAM_END);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

Bytes gzip_compress(const Bytes& in) { return deflate_compress(in, 15 + 16); }

Bytes zstd_compress(const Bytes& in) {
  Bytes out(ZSTD_compressBound(in.size()));
  const size_t size = ZSTD_compress(out.data(), out.size(), in.data(), in.size(), 3);
  EXPECT_FALSE(ZSTD_isError(size));
  out.resize(size);
  return out;
}

Bytes lz4_compress(const Bytes& in) {
  Bytes out(LZ4_compressBound(static_cast<int>(in.size())));
  const int size = LZ4_compress_default(reinterpret_cast<const char*>(in.data()),
                                        reinterpret_cast<char*>(out.data()),
                                        static_cast<int>(in.size()), static_cast<int>(out.size()));
  EXPECT_GT(size, 0);
  out.resize(static_cast<size_t>(size));
  return out;
}

Bytes brotli_compress(const Bytes& in) {
  size_t size = BrotliEncoderMaxCompressedSize(in.size());
  Bytes out(size);
  EXPECT_EQ(BrotliEncoderCompress(BROTLI_DEFAULT_QUALITY, BROTLI_DEFAULT_WINDOW,
                                  BROTLI_DEFAULT_MODE, in.size(), in.data(), &size, out.data()),
            BROTLI_TRUE);
  out.resize(size);
  return out;
}

Bytes concat(const Bytes& a, const Bytes& b) {
  Bytes out = a;
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

struct CodecCase {
  Codec codec;
  const char* name;
  Bytes (*compress)(const Bytes&);
};

const std::vector<CodecCase>& codecs() {
  static const std::vector<CodecCase> cases = {
      {Codec::SNAPPY, "SNAPPY", snappy_compress}, {Codec::GZIP, "GZIP", gzip_compress},
      {Codec::ZSTD, "ZSTD", zstd_compress},       {Codec::LZ4_RAW, "LZ4_RAW", lz4_compress},
      {Codec::BROTLI, "BROTLI", brotli_compress},
  };
  return cases;
}

Bytes decompress_to(Codec codec, const Bytes& compressed, size_t size) {
  Bytes out(size, 0xAB);
  decompress(codec, compressed, out);
  return out;
}

template <typename Fn>
std::string format_error_message(Fn&& fn) {
  try {
    fn();
  } catch (const FormatError& error) {
    return error.what();
  }
  return "(no FormatError)";
}

TEST(Compression, RoundTripsEveryCodec) {
  for (const auto& c : codecs()) {
    SCOPED_TRACE(c.name);
    for (const Bytes& data : {sample(), sample(0, 100, 2), sample(7, 0), sample(300000, 1000, 3)}) {
      const Bytes compressed = c.compress(data);
      EXPECT_EQ(decompress_to(c.codec, compressed, data.size()), data);
      // The context reused for a second page gives the same.
      EXPECT_EQ(decompress_to(c.codec, compressed, data.size()), data);
    }
  }
}

TEST(Compression, Uncompressed) {
  const Bytes data = sample(100, 10);
  EXPECT_EQ(decompress_to(Codec::UNCOMPRESSED, data, data.size()), data);
  EXPECT_THROW(decompress_to(Codec::UNCOMPRESSED, data, data.size() + 1), FormatError);
  EXPECT_THROW(decompress_to(Codec::UNCOMPRESSED, data, data.size() - 1), FormatError);
}

TEST(Compression, WrongDeclaredSizeThrows) {
  const Bytes data = sample(20000, 2000);
  for (const auto& c : codecs()) {
    SCOPED_TRACE(c.name);
    const Bytes compressed = c.compress(data);
    for (size_t size : {data.size() - 1, data.size() + 1, data.size() / 2, size_t{0}}) {
      const std::string message =
          format_error_message([&] { decompress_to(c.codec, compressed, size); });
      EXPECT_EQ(message.rfind(std::string(c.name) + ": ", 0), 0u) << message;
    }
  }
}

TEST(Compression, SizeMismatchMessage) {
  const Bytes data = sample(1000, 0);
  const Bytes compressed = snappy_compress(data);
  EXPECT_EQ(format_error_message([&] { decompress_to(Codec::SNAPPY, compressed, 999); }),
            "SNAPPY: page decompressed to 1000 bytes, header says 999");
  EXPECT_EQ(format_error_message([&] { decompress_to(Codec::ZSTD, zstd_compress(data), 1001); }),
            "ZSTD: page decompressed to 1000 bytes, header says 1001");
}

TEST(Compression, CorruptInputThrows) {
  const Bytes data = sample(20000, 2000);
  for (const auto& c : codecs()) {
    SCOPED_TRACE(c.name);
    const Bytes compressed = c.compress(data);
    // Truncated streams.
    for (size_t keep : {compressed.size() / 2, compressed.size() - 1, size_t{1}}) {
      const Bytes truncated(compressed.begin(), compressed.begin() + keep);
      EXPECT_THROW(decompress_to(c.codec, truncated, data.size()), FormatError) << keep;
    }
    // Garbage.
    const Bytes garbage(200, 0xFF);
    EXPECT_THROW(decompress_to(c.codec, garbage, data.size()), FormatError);
    // An empty stream for a non-empty page.
    EXPECT_THROW(decompress_to(c.codec, Bytes{}, data.size()), FormatError);
  }
}

TEST(Compression, EmptyPageWithEmptyInput) {
  for (const auto& c : codecs()) {
    SCOPED_TRACE(c.name);
    EXPECT_NO_THROW(decompress_to(c.codec, Bytes{}, 0));
    // A real stream of nothing also reads as an empty page.
    EXPECT_NO_THROW(decompress_to(c.codec, c.compress(Bytes{}), 0));
  }
}

TEST(Compression, GzipConcatenatedMembers) {
  const Bytes a = sample(30000, 100, 5);
  const Bytes b = sample(1000, 3000, 6);
  const Bytes two = concat(gzip_compress(a), gzip_compress(b));
  EXPECT_EQ(decompress_to(Codec::GZIP, two, a.size() + b.size()), concat(a, b));
  const Bytes three = concat(two, gzip_compress(Bytes{}));
  EXPECT_EQ(decompress_to(Codec::GZIP, three, a.size() + b.size()), concat(a, b));
  // The second member cut short.
  const Bytes cut(two.begin(), two.end() - 5);
  EXPECT_THROW(decompress_to(Codec::GZIP, cut, a.size() + b.size()), FormatError);
  // Garbage after a member.
  Bytes trailing = gzip_compress(a);
  trailing.insert(trailing.end(), {1, 2, 3});
  EXPECT_THROW(decompress_to(Codec::GZIP, trailing, a.size()), FormatError);
}

TEST(Compression, GzipReadsZlibStreams) {
  const Bytes data = sample();
  EXPECT_EQ(decompress_to(Codec::GZIP, deflate_compress(data, 15), data.size()), data);
}

TEST(Compression, GzipCorruptChecksum) {
  const Bytes data = sample();
  Bytes compressed = gzip_compress(data);
  compressed[compressed.size() - 6] ^= 0x55;  // inside the CRC-32 trailer
  EXPECT_THROW(decompress_to(Codec::GZIP, compressed, data.size()), FormatError);
}

TEST(Compression, ZstdConcatenatedAndSkippableFrames) {
  const Bytes a = sample(30000, 100, 7);
  const Bytes b = sample(500, 500, 8);
  Bytes skippable = {0x50, 0x2A, 0x4D, 0x18, 3, 0, 0, 0, 9, 9, 9};  // magic, size 3, payload
  const Bytes frames = concat(concat(zstd_compress(a), skippable), zstd_compress(b));
  EXPECT_EQ(decompress_to(Codec::ZSTD, frames, a.size() + b.size()), concat(a, b));
}

// The deprecated LZ4 codec as Hadoop frames: 4-byte big-endian uncompressed size, 4-byte
// big-endian compressed size, an LZ4 block.
void put_be32(Bytes& out, uint32_t value) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<uint8_t>(value >> shift));
}

Bytes hadoop_lz4_frame(const Bytes& data) {
  const Bytes block = lz4_compress(data);
  Bytes out;
  put_be32(out, static_cast<uint32_t>(data.size()));
  put_be32(out, static_cast<uint32_t>(block.size()));
  out.insert(out.end(), block.begin(), block.end());
  return out;
}

TEST(Compression, Lz4HadoopFramed) {
  const Bytes a = sample(30000, 2000, 4);
  const Bytes b = sample(5000, 700, 5);
  EXPECT_EQ(decompress_to(Codec::LZ4, hadoop_lz4_frame(a), a.size()), a);
  // Two frames fill one page.
  const Bytes two = concat(hadoop_lz4_frame(a), hadoop_lz4_frame(b));
  EXPECT_EQ(decompress_to(Codec::LZ4, two, a.size() + b.size()), concat(a, b));
  // Frames that do not fill the page, or overfill it, are neither Hadoop nor a raw block.
  EXPECT_THROW(decompress_to(Codec::LZ4, two, a.size() + b.size() + 1), FormatError);
  EXPECT_THROW(decompress_to(Codec::LZ4, two, a.size()), FormatError);
  // A cut-off second frame.
  const Bytes cut(two.begin(), two.end() - 3);
  EXPECT_THROW(decompress_to(Codec::LZ4, cut, a.size() + b.size()), FormatError);
}

TEST(Compression, Lz4RawBlockFallback) {
  const Bytes data = sample(40000, 3000, 6);
  EXPECT_EQ(decompress_to(Codec::LZ4, lz4_compress(data), data.size()), data);
  const Bytes small = sample(7, 0);
  EXPECT_EQ(decompress_to(Codec::LZ4, lz4_compress(small), small.size()), small);
  EXPECT_THROW(decompress_to(Codec::LZ4, lz4_compress(data), data.size() + 1), FormatError);
}

TEST(Compression, Lz4GarbageNamesTheCodec) {
  const Bytes garbage = {0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4, 5, 6};
  const std::string message =
      format_error_message([&] { decompress_to(Codec::LZ4, garbage, 1000); });
  EXPECT_NE(message.find("LZ4"), std::string::npos) << message;
  EXPECT_THROW(decompress_to(Codec::LZ4, Bytes{}, 10), FormatError);
}

TEST(Compression, UnsupportedCodecs) {
  const Bytes data = {1, 2, 3};
  Bytes out(10);
  try {
    decompress(Codec::LZO, data, out);
    ADD_FAILURE() << "no error";
  } catch (const UnsupportedError& error) {
    EXPECT_STREQ(error.what(), "LZO compression is not supported");
  }
  EXPECT_THROW(decompress(static_cast<Codec>(99), data, out), UnsupportedError);
}

// ---- compression, for the writer ----

Bytes compress_with(Codec codec, int level, const Bytes& data) {
  Bytes out;
  compress(codec, level, data, out);
  return out;
}

// The levels compress() is tried at: the range's ends and default, or 0 for codecs without levels.
std::vector<int> levels_to_try(Codec codec) {
  const auto levels = compression_levels(codec);
  if (!levels) return {0};
  return {levels->min, levels->default_level, levels->max};
}

Bytes repetitive(size_t size) {
  const std::string line = "{\"kernel\": \"matmul\", \"runtime_ms\": 12.5, \"passed\": true}\n";
  Bytes out;
  while (out.size() < size) out.insert(out.end(), line.begin(), line.end());
  out.resize(size);
  return out;
}

TEST(Compress, LevelsReported) {
  EXPECT_FALSE(compression_levels(Codec::UNCOMPRESSED));
  EXPECT_FALSE(compression_levels(Codec::SNAPPY));
  EXPECT_FALSE(compression_levels(Codec::LZ4_RAW));
  EXPECT_FALSE(compression_levels(Codec::LZ4));
  EXPECT_FALSE(compression_levels(Codec::LZO));
  const auto zstd = compression_levels(Codec::ZSTD);
  ASSERT_TRUE(zstd);
  EXPECT_EQ(zstd->min, 1);
  EXPECT_EQ(zstd->max, 22);
  EXPECT_EQ(zstd->default_level, 3);
  const auto gzip = compression_levels(Codec::GZIP);
  ASSERT_TRUE(gzip);
  EXPECT_EQ(gzip->min, 1);
  EXPECT_EQ(gzip->max, 9);
  EXPECT_EQ(gzip->default_level, 6);
  const auto brotli = compression_levels(Codec::BROTLI);
  ASSERT_TRUE(brotli);
  EXPECT_EQ(brotli->min, 0);
  EXPECT_EQ(brotli->max, 11);
  EXPECT_EQ(brotli->default_level, 8);
}

TEST(Compress, RoundTripsEveryCodecAndLevel) {
  const std::vector<Bytes> inputs = {Bytes{},
                                     Bytes{42},
                                     sample(7, 0),
                                     sample(0, 5000, 9),
                                     repetitive(100000),
                                     sample(300000, 1000, 3)};
  for (Codec codec : {Codec::UNCOMPRESSED, Codec::SNAPPY, Codec::GZIP, Codec::ZSTD, Codec::LZ4_RAW,
                      Codec::BROTLI}) {
    for (int level : levels_to_try(codec)) {
      SCOPED_TRACE(std::string(to_string(codec)) + " level " + std::to_string(level));
      for (const Bytes& data : inputs) {
        SCOPED_TRACE(data.size());
        const Bytes compressed = compress_with(codec, level, data);
        EXPECT_EQ(decompress_to(codec, compressed, data.size()), data);
        // The per-thread context reused gives the same bytes.
        EXPECT_EQ(compress_with(codec, level, data), compressed);
      }
    }
  }
}

TEST(Compress, AppendsAfterExistingBytes) {
  const Bytes data = sample(20000, 500);
  for (Codec codec : {Codec::UNCOMPRESSED, Codec::SNAPPY, Codec::GZIP, Codec::ZSTD, Codec::LZ4_RAW,
                      Codec::BROTLI}) {
    SCOPED_TRACE(to_string(codec));
    const int level = compression_levels(codec) ? compression_levels(codec)->default_level : 0;
    Bytes out = {1, 2, 3};
    compress(codec, level, data, out);
    ASSERT_GE(out.size(), 3u);
    EXPECT_EQ(Bytes(out.begin(), out.begin() + 3), (Bytes{1, 2, 3}));
    const Bytes body(out.begin() + 3, out.end());
    EXPECT_EQ(body, compress_with(codec, level, data));
    EXPECT_EQ(decompress_to(codec, body, data.size()), data);
  }
}

TEST(Compress, StreamFormats) {
  const Bytes data = repetitive(10000);
  // GZIP: a gzip member (magic 1f 8b, deflate).
  const Bytes gzip = compress_with(Codec::GZIP, 6, data);
  ASSERT_GE(gzip.size(), 3u);
  EXPECT_EQ(gzip[0], 0x1f);
  EXPECT_EQ(gzip[1], 0x8b);
  EXPECT_EQ(gzip[2], 8);
  // ZSTD: one frame that records its content size.
  const Bytes zstd = compress_with(Codec::ZSTD, 3, data);
  EXPECT_EQ(ZSTD_getFrameContentSize(zstd.data(), zstd.size()), data.size());
  EXPECT_EQ(ZSTD_findFrameCompressedSize(zstd.data(), zstd.size()), zstd.size());
  // SNAPPY: a raw block the library reads; LZ4_RAW: a raw block.
  const Bytes snappy = compress_with(Codec::SNAPPY, 0, data);
  size_t length = 0;
  EXPECT_TRUE(snappy::GetUncompressedLength(reinterpret_cast<const char*>(snappy.data()),
                                            snappy.size(), &length));
  EXPECT_EQ(length, data.size());
  const Bytes lz4 = compress_with(Codec::LZ4_RAW, 0, data);
  Bytes back(data.size());
  EXPECT_EQ(LZ4_decompress_safe(reinterpret_cast<const char*>(lz4.data()),
                                reinterpret_cast<char*>(back.data()), static_cast<int>(lz4.size()),
                                static_cast<int>(back.size())),
            static_cast<int>(data.size()));
  EXPECT_EQ(back, data);
}

TEST(Compress, HigherZstdLevelNoWorseOnRepetitiveText) {
  Bytes text;
  std::mt19937 rng(11);
  const std::vector<std::string> words = {"kernel", "matmul",      "softmax",    "runtime",
                                          "passed", "leaderboard", "submission", "score",
                                          "gpu",    "H100"};
  while (text.size() < 200000) {
    const std::string& word = words[rng() % words.size()];
    text.insert(text.end(), word.begin(), word.end());
    text.push_back(rng() % 8 == 0 ? '\n' : ' ');
  }
  const size_t fast = compress_with(Codec::ZSTD, 1, text).size();
  const size_t normal = compress_with(Codec::ZSTD, 3, text).size();
  const size_t best = compress_with(Codec::ZSTD, 19, text).size();
  EXPECT_LE(normal, fast);
  EXPECT_LE(best, normal);
  EXPECT_LT(best, text.size() / 3);
}

TEST(Compress, ThreadsKeepTheirOwnContexts) {
  // Threads alternate levels on their per-thread contexts; every result still round-trips.
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t, &failures] {
      for (int i = 0; i < 20; ++i) {
        const Bytes data =
            sample(5000 + static_cast<size_t>(i) * 100, 300, static_cast<uint32_t>(t));
        for (Codec codec : {Codec::GZIP, Codec::ZSTD, Codec::LZ4_RAW}) {
          const int level = compression_levels(codec) ? 1 + (i + t) % 5 : 0;
          Bytes compressed;
          compress(codec, level, data, compressed);
          Bytes back(data.size());
          decompress(codec, compressed, back);
          if (back != data) ++failures[static_cast<size_t>(t)];
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures, std::vector<int>(4, 0));
}

TEST(Compress, UnsupportedCodecs) {
  Bytes out;
  const Bytes data = {1, 2, 3};
  EXPECT_THROW(compress(Codec::LZ4, 0, data, out), UnsupportedError);
  EXPECT_THROW(compress(Codec::LZO, 0, data, out), UnsupportedError);
  EXPECT_THROW(compress(static_cast<Codec>(99), 0, data, out), UnsupportedError);
  EXPECT_TRUE(out.empty());
}

TEST(Compress, CodecFromName) {
  EXPECT_EQ(codec_from_name("none"), Codec::UNCOMPRESSED);
  EXPECT_EQ(codec_from_name("uncompressed"), Codec::UNCOMPRESSED);
  EXPECT_EQ(codec_from_name("UNCOMPRESSED"), Codec::UNCOMPRESSED);
  EXPECT_EQ(codec_from_name("snappy"), Codec::SNAPPY);
  EXPECT_EQ(codec_from_name("Snappy"), Codec::SNAPPY);
  EXPECT_EQ(codec_from_name("gzip"), Codec::GZIP);
  EXPECT_EQ(codec_from_name("ZSTD"), Codec::ZSTD);
  EXPECT_EQ(codec_from_name("lz4_raw"), Codec::LZ4_RAW);
  EXPECT_EQ(codec_from_name("LZ4_RAW"), Codec::LZ4_RAW);
  EXPECT_EQ(codec_from_name("brotli"), Codec::BROTLI);
  for (const char* unknown : {"", "zip", "zstd ", "lzo", "lz4raw", "gzip2", "snappyy"}) {
    EXPECT_EQ(codec_from_name(unknown), std::nullopt) << unknown;
  }
  try {
    (void)codec_from_name("LZ4");
    ADD_FAILURE() << "no error";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("lz4_raw"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace kbdata::parquet
