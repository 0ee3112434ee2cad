#include "parquet/encoding/level_decoder.h"

#include <algorithm>
#include <bit>
#include <string>

#include "common/error.h"

namespace kbdata::parquet {
namespace {

constexpr int kMaxLevel = 32767;  // levels are int16_t
constexpr size_t kScratchValues = 1024;

void check_max_level(int max_level) {
  if (max_level < 0 || max_level > kMaxLevel) {
    throw FormatError("max level " + std::to_string(max_level) + " is outside 0.." +
                      std::to_string(kMaxLevel));
  }
}

}  // namespace

int LevelDecoder::bit_width(int max_level) {
  return max_level <= 0 ? 0 : std::bit_width(static_cast<unsigned>(max_level));
}

size_t LevelDecoder::v1_bytes(Encoding encoding, int max_level, std::span<const uint8_t> prefix,
                              uint64_t page_bytes, size_t num_values) {
  check_max_level(max_level);
  if (max_level == 0) return 0;
  if (encoding == Encoding::RLE) {
    if (page_bytes < 4 || prefix.size() < 4) {
      throw FormatError("RLE levels length prefix is cut off (page has " +
                        std::to_string(page_bytes) + " bytes)");
    }
    const uint32_t length =
        static_cast<uint32_t>(prefix[0]) | static_cast<uint32_t>(prefix[1]) << 8 |
        static_cast<uint32_t>(prefix[2]) << 16 | static_cast<uint32_t>(prefix[3]) << 24;
    if (length > page_bytes - 4) {
      throw FormatError("RLE levels length " + std::to_string(length) + " overruns the page (" +
                        std::to_string(page_bytes - 4) + " bytes left)");
    }
    return 4 + static_cast<size_t>(length);
  }
  if (encoding == Encoding::BIT_PACKED) {
    // bit_width <= 15: the product fits in 64 bits once num_values is below 2^60.
    const uint64_t bits =
        static_cast<uint64_t>(num_values) * static_cast<uint64_t>(bit_width(max_level));
    const uint64_t bytes = bits / 8 + (bits % 8 != 0 ? 1 : 0);
    if (static_cast<uint64_t>(num_values) >= (uint64_t{1} << 60) || bytes > page_bytes) {
      throw FormatError("BIT_PACKED levels of " + std::to_string(num_values) +
                        " values overrun the page (need " + std::to_string(bytes) + " bytes, " +
                        std::to_string(page_bytes) + " left)");
    }
    return static_cast<size_t>(bytes);
  }
  throw UnsupportedError(std::string("level encoding ") + to_string(encoding) +
                         " is not supported");
}

size_t LevelDecoder::set_data_v1(Encoding encoding, int max_level, std::span<const uint8_t> data,
                                 size_t num_values) {
  const size_t bytes = v1_bytes(encoding, max_level, data, data.size(), num_values);
  max_level_ = max_level;
  bit_width_ = bit_width(max_level);
  if (max_level == 0) {
    mode_ = Mode::kZero;
  } else if (encoding == Encoding::RLE) {
    mode_ = Mode::kRle;
    rle_.reset(data.subspan(4, bytes - 4), bit_width_);
  } else {
    mode_ = Mode::kBitPacked;
    packed_ = data.first(bytes);
    packed_left_ = num_values;
    packed_bit_ = 0;
  }
  return bytes;
}

void LevelDecoder::set_data_v2(int max_level, std::span<const uint8_t> data) {
  check_max_level(max_level);
  max_level_ = max_level;
  bit_width_ = bit_width(max_level);
  if (max_level == 0) {
    mode_ = Mode::kZero;
    return;
  }
  mode_ = Mode::kRle;
  rle_.reset(data, bit_width_);
}

void LevelDecoder::decode(size_t n, int16_t* out) {
  switch (mode_) {
    case Mode::kZero:
      std::fill(out, out + n, int16_t{0});
      return;
    case Mode::kRle:
      decode_rle(n, out);
      return;
    case Mode::kBitPacked:
      decode_bit_packed(n, out);
      return;
  }
}

size_t LevelDecoder::count(size_t n, int16_t level) {
  if (mode_ == Mode::kZero) return level == 0 ? n : 0;
  if (mode_ == Mode::kBitPacked) {
    // The deprecated encoding, rare: decoded a block at a time.
    int16_t block[256];
    size_t equal = 0;
    for (size_t done = 0; done < n;) {
      const size_t k = std::min(n - done, std::size(block));
      decode_bit_packed(k, block);
      equal += static_cast<size_t>(std::count(block, block + k, level));
      done += k;
    }
    return equal;
  }
  const RleBitPackedDecoder::Tally t = rle_.tally(n, static_cast<uint32_t>(level));
  if (t.largest > static_cast<uint32_t>(max_level_)) {
    throw FormatError("level " + std::to_string(t.largest) + " exceeds the max level " +
                      std::to_string(max_level_));
  }
  if (t.skipped < n) {
    throw FormatError("levels end after " + std::to_string(t.skipped) + " of " + std::to_string(n) +
                      " requested values");
  }
  return t.equal;
}

void LevelDecoder::decode_rle(size_t n, int16_t* out) {
  if (scratch_.size() < kScratchValues) scratch_.resize(kScratchValues);
  size_t done = 0;
  while (done < n) {
    const size_t want = std::min(n - done, kScratchValues);
    const size_t got = rle_.get_batch(scratch_.data(), want);
    uint32_t max_seen = 0;
    for (size_t i = 0; i < got; ++i) {
      max_seen = std::max(max_seen, scratch_[i]);
      out[done + i] = static_cast<int16_t>(scratch_[i]);
    }
    if (max_seen > static_cast<uint32_t>(max_level_)) {
      throw FormatError("level " + std::to_string(max_seen) + " exceeds the max level " +
                        std::to_string(max_level_));
    }
    done += got;
    if (got < want) {
      throw FormatError("levels end after " + std::to_string(done) + " of " + std::to_string(n) +
                        " requested values");
    }
  }
}

void LevelDecoder::decode_bit_packed(size_t n, int16_t* out) {
  if (n > packed_left_) {
    throw FormatError("BIT_PACKED levels end: " + std::to_string(n) + " requested, " +
                      std::to_string(packed_left_) + " left");
  }
  // Most significant bit first. set_data_v1 checked that every level's bits are in packed_.
  const uint8_t* bytes = packed_.data();
  for (size_t i = 0; i < n; ++i) {
    uint32_t level = 0;
    for (int b = 0; b < bit_width_; ++b) {
      const uint64_t bit = packed_bit_ + static_cast<uint64_t>(b);
      level = (level << 1) | ((bytes[bit / 8] >> (7 - bit % 8)) & 1u);
    }
    packed_bit_ += static_cast<uint64_t>(bit_width_);
    if (level > static_cast<uint32_t>(max_level_)) {
      throw FormatError("level " + std::to_string(level) + " exceeds the max level " +
                        std::to_string(max_level_));
    }
    out[i] = static_cast<int16_t>(level);
  }
  packed_left_ -= n;
}

}  // namespace kbdata::parquet
