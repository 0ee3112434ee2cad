#include "parquet/compression.h"

#include <brotli/decode.h>
#include <lz4.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include <climits>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <string>

#include "common/error.h"
#include "parquet/snappy_decoder.h"

namespace kbdata::parquet {
namespace {

[[noreturn]] void throw_codec_error(const char* codec, const std::string& what) {
  throw FormatError(std::string(codec) + ": " + what);
}

void check_size(const char* codec, size_t produced, size_t expected) {
  if (produced != expected) {
    throw_codec_error(codec, "page decompressed to " + std::to_string(produced) +
                                 " bytes, header says " + std::to_string(expected));
  }
}

[[noreturn]] void throw_too_large(const char* codec, size_t expected) {
  throw_codec_error(
      codec, "page decompresses to more than the header's " + std::to_string(expected) + " bytes");
}

// Some libraries reject null buffer pointers even for zero sizes.
uint8_t* out_ptr(std::span<uint8_t> output) {
  static uint8_t empty;
  return output.empty() ? &empty : output.data();
}

const uint8_t* in_ptr(std::span<const uint8_t> input) {
  static const uint8_t empty = 0;
  return input.empty() ? &empty : input.data();
}

void decompress_snappy(std::span<const uint8_t> input, std::span<uint8_t> output) {
  const std::optional<uint64_t> length = snappy_uncompressed_length(input);
  if (!length) throw_codec_error("SNAPPY", "invalid compressed data (bad length header)");
  check_size("SNAPPY", *length, output.size());
  if (!snappy_decompress(input, output)) throw_codec_error("SNAPPY", "invalid compressed data");
}

// An inflate stream kept per thread and reset for each page.
class Inflater {
 public:
  Inflater() {
    std::memset(&stream_, 0, sizeof(stream_));
    // 15 + 32: the largest window, with gzip or zlib header detected automatically.
    const int status = inflateInit2(&stream_, 15 + 32);
    if (status == Z_MEM_ERROR) throw std::bad_alloc();
    if (status != Z_OK) throw_codec_error("GZIP", "zlib initialisation failed");
  }
  ~Inflater() { inflateEnd(&stream_); }
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;

  void decompress(std::span<const uint8_t> input, std::span<uint8_t> output) {
    if (input.size() > UINT_MAX || output.size() > UINT_MAX) {
      throw_codec_error("GZIP", "page larger than 4 GiB");
    }
    reset();
    stream_.next_in = const_cast<Bytef*>(in_ptr(input));
    stream_.avail_in = static_cast<uInt>(input.size());
    stream_.next_out = out_ptr(output);
    stream_.avail_out = static_cast<uInt>(output.size());
    while (true) {
      const int status = inflate(&stream_, Z_NO_FLUSH);
      if (status == Z_STREAM_END) {
        if (stream_.avail_in == 0) break;
        // Another gzip member follows (parallel gzip writers concatenate them).
        reset();
        continue;
      }
      if (status == Z_OK) continue;
      if (status == Z_BUF_ERROR) {
        // No progress possible: the input ended mid-stream, or the output is full.
        if (stream_.avail_in == 0) throw_codec_error("GZIP", "compressed data is truncated");
        throw_too_large("GZIP", output.size());
      }
      if (status == Z_MEM_ERROR) throw std::bad_alloc();
      throw_codec_error("GZIP", std::string("invalid compressed data (") +
                                    (stream_.msg != nullptr ? stream_.msg : "zlib error") + ")");
    }
    check_size("GZIP", output.size() - stream_.avail_out, output.size());
  }

 private:
  void reset() {
    if (inflateReset(&stream_) != Z_OK) throw_codec_error("GZIP", "zlib reset failed");
  }

  z_stream stream_;
};

void decompress_gzip(std::span<const uint8_t> input, std::span<uint8_t> output) {
  thread_local Inflater inflater;
  inflater.decompress(input, output);
}

void decompress_zstd(std::span<const uint8_t> input, std::span<uint8_t> output) {
  struct FreeContext {
    void operator()(ZSTD_DCtx* context) const { ZSTD_freeDCtx(context); }
  };
  thread_local std::unique_ptr<ZSTD_DCtx, FreeContext> context;
  if (!context) {
    context.reset(ZSTD_createDCtx());
    if (!context) throw std::bad_alloc();
  }
  // Decompresses every frame of the input, concatenated and skippable ones included.
  const size_t result = ZSTD_decompressDCtx(context.get(), out_ptr(output), output.size(),
                                            in_ptr(input), input.size());
  if (ZSTD_isError(result)) {
    if (ZSTD_getErrorCode(result) == ZSTD_error_dstSize_tooSmall) {
      throw_too_large("ZSTD", output.size());
    }
    throw_codec_error("ZSTD",
                      std::string("invalid compressed data (") + ZSTD_getErrorName(result) + ")");
  }
  check_size("ZSTD", result, output.size());
}

void decompress_lz4_raw(std::span<const uint8_t> input, std::span<uint8_t> output) {
  if (input.size() > INT_MAX || output.size() > INT_MAX) {
    throw_codec_error("LZ4_RAW", "page larger than 2 GiB");
  }
  const int result = LZ4_decompress_safe(
      reinterpret_cast<const char*>(in_ptr(input)), reinterpret_cast<char*>(out_ptr(output)),
      static_cast<int>(input.size()), static_cast<int>(output.size()));
  if (result < 0) {
    throw_codec_error("LZ4_RAW", "invalid compressed data or more than the header's " +
                                     std::to_string(output.size()) + " bytes");
  }
  check_size("LZ4_RAW", static_cast<size_t>(result), output.size());
}

uint32_t load_be32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) << 24 | static_cast<uint32_t>(p[1]) << 16 |
         static_cast<uint32_t>(p[2]) << 8 | static_cast<uint32_t>(p[3]);
}

// Hadoop's framing of LZ4 (the Lz4Codec of Hadoop, which parquet-mr used): repeated frames of a
// 4-byte big-endian uncompressed size, a 4-byte big-endian compressed size and an LZ4 block.
// Returns false unless the frames parse, cover the input exactly and fill `output` exactly.
bool decompress_lz4_hadoop(std::span<const uint8_t> input, std::span<uint8_t> output) {
  constexpr size_t kPrefix = 8;
  size_t in = 0;
  size_t out = 0;
  while (input.size() - in >= kPrefix) {
    const uint32_t uncompressed = load_be32(input.data() + in);
    const uint32_t compressed = load_be32(input.data() + in + 4);
    in += kPrefix;
    if (compressed > input.size() - in || uncompressed > output.size() - out ||
        compressed > INT_MAX || uncompressed > INT_MAX) {
      return false;
    }
    const int result =
        LZ4_decompress_safe(reinterpret_cast<const char*>(input.data() + in),
                            reinterpret_cast<char*>(out_ptr(output) + out),
                            static_cast<int>(compressed), static_cast<int>(uncompressed));
    if (result < 0 || static_cast<uint32_t>(result) != uncompressed) return false;
    in += compressed;
    out += uncompressed;
  }
  return in == input.size() && out == output.size();
}

// The deprecated LZ4 codec: Hadoop-framed as parquet-mr wrote it or, failing that, one raw LZ4
// block as older parquet-cpp wrote it (Arrow reads both the same way).
void decompress_lz4(std::span<const uint8_t> input, std::span<uint8_t> output) {
  if (decompress_lz4_hadoop(input, output)) return;
  if (input.size() > INT_MAX || output.size() > INT_MAX) {
    throw_codec_error("LZ4", "page larger than 2 GiB");
  }
  const int result = LZ4_decompress_safe(
      reinterpret_cast<const char*>(in_ptr(input)), reinterpret_cast<char*>(out_ptr(output)),
      static_cast<int>(input.size()), static_cast<int>(output.size()));
  if (result < 0) {
    throw_codec_error("LZ4", "invalid compressed data (neither Hadoop-framed nor a raw block of " +
                                 std::to_string(output.size()) + " bytes)");
  }
  check_size("LZ4", static_cast<size_t>(result), output.size());
}

void decompress_brotli(std::span<const uint8_t> input, std::span<uint8_t> output) {
  size_t produced = output.size();
  const BrotliDecoderResult result =
      BrotliDecoderDecompress(input.size(), in_ptr(input), &produced, out_ptr(output));
  if (result != BROTLI_DECODER_RESULT_SUCCESS) {
    throw_codec_error("BROTLI", "invalid compressed data or more than the header's " +
                                    std::to_string(output.size()) + " bytes");
  }
  check_size("BROTLI", produced, output.size());
}

}  // namespace

void decompress(Codec codec, std::span<const uint8_t> input, std::span<uint8_t> output) {
  switch (codec) {
    case Codec::UNCOMPRESSED:
      if (input.size() != output.size()) {
        throw_codec_error("UNCOMPRESSED", "page is " + std::to_string(input.size()) +
                                              " bytes, header says " +
                                              std::to_string(output.size()));
      }
      if (!input.empty()) std::memcpy(output.data(), input.data(), input.size());
      return;
    case Codec::LZO:
      throw UnsupportedError("LZO compression is not supported");
    case Codec::LZ4:
    case Codec::SNAPPY:
    case Codec::GZIP:
    case Codec::BROTLI:
    case Codec::ZSTD:
    case Codec::LZ4_RAW:
      break;
    default:
      throw UnsupportedError("compression codec " + std::to_string(static_cast<int>(codec)) +
                             " is not supported");
  }
  if (input.empty() && output.empty()) return;
  switch (codec) {
    case Codec::SNAPPY:
      decompress_snappy(input, output);
      return;
    case Codec::GZIP:
      decompress_gzip(input, output);
      return;
    case Codec::BROTLI:
      decompress_brotli(input, output);
      return;
    case Codec::ZSTD:
      decompress_zstd(input, output);
      return;
    case Codec::LZ4_RAW:
      decompress_lz4_raw(input, output);
      return;
    case Codec::LZ4:
      decompress_lz4(input, output);
      return;
    default:
      return;  // handled above
  }
}

}  // namespace kbdata::parquet
