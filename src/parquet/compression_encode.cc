// Compression of page bodies for the writer; the reader's half is compression.cc.

#include <brotli/encode.h>
#include <lz4.h>
#include <snappy.h>
#include <zlib.h>
#include <zstd.h>

#include <cassert>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <string>

#include "common/error.h"
#include "common/malloc_tuning.h"
#include "parquet/compression.h"

namespace kbdata::parquet {
namespace {

// A page body's size is an int32 in its header; every library below takes such sizes.
constexpr size_t kMaxInput = INT32_MAX;

// A library failing on valid input: neither the input's fault nor unsupported, so the base Error.
[[noreturn]] void throw_codec_error(const char* codec, const std::string& what) {
  throw Error(std::string(codec) + ": " + what);
}

// Grows `out` by `bound` bytes and returns where the new bytes start; the caller shrinks it back
// to what the codec wrote.
uint8_t* grow(std::vector<uint8_t>& out, size_t bound) {
  const size_t start = out.size();
  reserve_for_append(out, bound);
  out.resize(start + bound);
  return out.data() + start;
}

// Some libraries reject null buffer pointers even for zero sizes.
const uint8_t* in_ptr(std::span<const uint8_t> input) {
  static const uint8_t empty = 0;
  return input.empty() ? &empty : input.data();
}

void compress_snappy(std::span<const uint8_t> input, std::vector<uint8_t>& out) {
  const size_t start = out.size();
  auto* dest = reinterpret_cast<char*>(grow(out, snappy::MaxCompressedLength(input.size())));
  size_t written = 0;
  snappy::RawCompress(reinterpret_cast<const char*>(in_ptr(input)), input.size(), dest, &written);
  out.resize(start + written);
}

// A deflate stream writing gzip members, kept per thread and reset for each page; rebuilt when the
// level changes (deflateParams on a reset stream would do, but its semantics changed across zlib
// versions).
class Deflater {
 public:
  Deflater() = default;
  ~Deflater() {
    if (level_) deflateEnd(&stream_);
  }
  Deflater(const Deflater&) = delete;
  Deflater& operator=(const Deflater&) = delete;

  void compress(int level, std::span<const uint8_t> input, std::vector<uint8_t>& out) {
    prepare(level);
    const size_t start = out.size();
    const size_t bound = deflateBound(&stream_, static_cast<uLong>(input.size()));
    stream_.next_in = const_cast<Bytef*>(in_ptr(input));
    stream_.avail_in = static_cast<uInt>(input.size());
    stream_.next_out = grow(out, bound);
    stream_.avail_out = static_cast<uInt>(bound);
    // deflateBound leaves room for the whole stream, so one call finishes it.
    const int status = deflate(&stream_, Z_FINISH);
    if (status != Z_STREAM_END) throw_codec_error("GZIP", "deflate did not finish the stream");
    out.resize(start + (bound - stream_.avail_out));
  }

 private:
  void prepare(int level) {
    if (level_ == level) {
      if (deflateReset(&stream_) != Z_OK) throw_codec_error("GZIP", "zlib reset failed");
      return;
    }
    if (level_) deflateEnd(&stream_);
    level_.reset();
    std::memset(&stream_, 0, sizeof(stream_));
    // 15 + 16: the largest window, with a gzip header and trailer; memLevel 8 is zlib's default.
    const int status = deflateInit2(&stream_, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    if (status == Z_MEM_ERROR) throw std::bad_alloc();
    if (status != Z_OK) throw_codec_error("GZIP", "zlib initialisation failed");
    level_ = level;
  }

  z_stream stream_{};
  std::optional<int> level_;  // the level stream_ was initialised with, if it is
};

void compress_gzip(int level, std::span<const uint8_t> input, std::vector<uint8_t>& out) {
  thread_local Deflater deflater;
  deflater.compress(level, input, out);
}

void compress_zstd(int level, std::span<const uint8_t> input, std::vector<uint8_t>& out) {
  struct FreeContext {
    void operator()(ZSTD_CCtx* context) const { ZSTD_freeCCtx(context); }
  };
  thread_local std::unique_ptr<ZSTD_CCtx, FreeContext> context;
  if (!context) {
    context.reset(ZSTD_createCCtx());
    if (!context) throw std::bad_alloc();
  }
  const size_t start = out.size();
  const size_t bound = ZSTD_compressBound(input.size());
  // ZSTD_compressCCtx writes one frame and records the content size in its header.
  const size_t written =
      ZSTD_compressCCtx(context.get(), grow(out, bound), bound, in_ptr(input), input.size(), level);
  if (ZSTD_isError(written)) {
    out.resize(start);
    throw_codec_error("ZSTD",
                      std::string("compression failed (") + ZSTD_getErrorName(written) + ")");
  }
  out.resize(start + written);
}

void compress_lz4_raw(std::span<const uint8_t> input, std::vector<uint8_t>& out) {
  // LZ4's state lives in a caller-provided buffer; one per thread, reinitialised by each call.
  thread_local std::unique_ptr<uint8_t[]> state;
  if (!state) state = std::make_unique<uint8_t[]>(static_cast<size_t>(LZ4_sizeofState()));
  const size_t start = out.size();
  const int bound = LZ4_compressBound(static_cast<int>(input.size()));
  const int written =
      LZ4_compress_fast_extState(state.get(), reinterpret_cast<const char*>(in_ptr(input)),
                                 reinterpret_cast<char*>(grow(out, static_cast<size_t>(bound))),
                                 static_cast<int>(input.size()), bound, 1);
  if (written <= 0) {
    out.resize(start);
    throw_codec_error("LZ4_RAW", "compression failed");
  }
  out.resize(start + static_cast<size_t>(written));
}

void compress_brotli(int level, std::span<const uint8_t> input, std::vector<uint8_t>& out) {
  const size_t start = out.size();
  // BrotliEncoderMaxCompressedSize is exact for stored blocks but is 0 on overflow, and at least
  // one byte is needed for the empty stream.
  size_t bound = BrotliEncoderMaxCompressedSize(input.size());
  if (bound < 16) bound = 16;
  size_t written = bound;
  const BROTLI_BOOL ok =
      BrotliEncoderCompress(level, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_GENERIC, input.size(),
                            in_ptr(input), &written, grow(out, bound));
  if (ok != BROTLI_TRUE) {
    out.resize(start);
    throw_codec_error("BROTLI", "compression failed");
  }
  out.resize(start + written);
}

char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool equals_lower(std::string_view name, std::string_view lower) {
  if (name.size() != lower.size()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    if (ascii_lower(name[i]) != lower[i]) return false;
  }
  return true;
}

}  // namespace

std::optional<CompressionLevels> compression_levels(Codec codec) {
  switch (codec) {
    case Codec::ZSTD:
      return CompressionLevels{1, 22, 3};
    case Codec::GZIP:
      return CompressionLevels{1, 9, 6};
    case Codec::BROTLI:
      return CompressionLevels{BROTLI_MIN_QUALITY, BROTLI_MAX_QUALITY, 8};
    default:
      return std::nullopt;
  }
}

void compress(Codec codec, int level, std::span<const uint8_t> input, std::vector<uint8_t>& out) {
  switch (codec) {
    case Codec::UNCOMPRESSED:
    case Codec::SNAPPY:
    case Codec::GZIP:
    case Codec::BROTLI:
    case Codec::ZSTD:
    case Codec::LZ4_RAW:
      break;
    case Codec::LZ4:
      throw UnsupportedError("writing the deprecated LZ4 codec is not supported (use LZ4_RAW)");
    case Codec::LZO:
      throw UnsupportedError("LZO compression is not supported");
    default:
      throw UnsupportedError("compression codec " + std::to_string(static_cast<int>(codec)) +
                             " is not supported");
  }
  if (input.size() > kMaxInput) {
    throw UnsupportedError(std::string(to_string(codec)) + ": page of " +
                           std::to_string(input.size()) + " bytes is larger than 2 GiB");
  }
#ifndef NDEBUG
  if (const auto levels = compression_levels(codec)) {
    assert(level >= levels->min && level <= levels->max);
  }
#endif
  switch (codec) {
    case Codec::UNCOMPRESSED:
      reserve_for_append(out, input.size());
      out.insert(out.end(), input.begin(), input.end());
      return;
    case Codec::SNAPPY:
      compress_snappy(input, out);
      return;
    case Codec::GZIP:
      compress_gzip(level, input, out);
      return;
    case Codec::BROTLI:
      compress_brotli(level, input, out);
      return;
    case Codec::ZSTD:
      compress_zstd(level, input, out);
      return;
    case Codec::LZ4_RAW:
      compress_lz4_raw(input, out);
      return;
    default:
      return;  // rejected above
  }
}

std::optional<Codec> codec_from_name(std::string_view name) {
  if (equals_lower(name, "none") || equals_lower(name, "uncompressed")) {
    return Codec::UNCOMPRESSED;
  }
  if (equals_lower(name, "snappy")) return Codec::SNAPPY;
  if (equals_lower(name, "gzip")) return Codec::GZIP;
  if (equals_lower(name, "zstd")) return Codec::ZSTD;
  if (equals_lower(name, "lz4_raw")) return Codec::LZ4_RAW;
  if (equals_lower(name, "brotli")) return Codec::BROTLI;
  if (equals_lower(name, "lz4")) {
    throw UsageError(
        "codec lz4 is the deprecated Hadoop-framed LZ4, which readers disagree about; use "
        "lz4_raw");
  }
  return std::nullopt;
}

}  // namespace kbdata::parquet
