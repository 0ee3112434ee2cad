#include "parquet/encoding/rle_bit_packed.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

#include "common/error.h"

namespace kbdata::parquet {
namespace {

constexpr int kMaxBitWidth = 32;

// One group of 8 values of kBitWidth bits from `in`, which must be readable for
// kBitWidth + 8 bytes (each value is read as an unaligned 64-bit word).
template <int kBitWidth>
inline void unpack_group_wide(const uint8_t* in, uint32_t* out) {
  constexpr uint64_t kMask = (uint64_t{1} << kBitWidth) - 1;
  for (int i = 0; i < 8; ++i) {
    const int bit = i * kBitWidth;
    uint64_t word;
    std::memcpy(&word, in + bit / 8, sizeof(word));
    out[i] = static_cast<uint32_t>((word >> (bit % 8)) & kMask);
  }
}

template <int kBitWidth>
void unpack_groups(const uint8_t* in, size_t in_size, size_t groups, uint32_t* out) {
  if constexpr (kBitWidth == 0) {
    std::fill(out, out + groups * 8, 0u);
  } else if constexpr (kBitWidth == 8) {
    for (size_t i = 0; i < groups * 8; ++i) out[i] = in[i];
  } else if constexpr (kBitWidth == 16 || kBitWidth == 32) {
    constexpr size_t kBytes = kBitWidth / 8;
    for (size_t i = 0; i < groups * 8; ++i) {
      std::conditional_t<kBitWidth == 16, uint16_t, uint32_t> value;
      std::memcpy(&value, in + i * kBytes, kBytes);
      out[i] = value;
    }
  } else {
    // Groups that have 8 readable bytes past their end are read in place; the last ones are
    // copied to a padded buffer first.
    size_t direct = 0;
    if (in_size >= static_cast<size_t>(kBitWidth) + 8) {
      direct = std::min(groups, (in_size - 8) / kBitWidth);
    }
    for (size_t g = 0; g < direct; ++g) {
      unpack_group_wide<kBitWidth>(in, out);
      in += kBitWidth;
      out += 8;
    }
    for (size_t g = direct; g < groups; ++g) {
      uint8_t padded[kBitWidth + 8] = {};
      std::memcpy(padded, in, kBitWidth);
      unpack_group_wide<kBitWidth>(padded, out);
      in += kBitWidth;
      out += 8;
    }
  }
}

using UnpackFn = void (*)(const uint8_t*, size_t, size_t, uint32_t*);

template <size_t... kWidths>
constexpr std::array<UnpackFn, sizeof...(kWidths)> make_unpack_table(
    std::index_sequence<kWidths...>) {
  return {&unpack_groups<static_cast<int>(kWidths)>...};
}

constexpr auto kUnpack = make_unpack_table(std::make_index_sequence<kMaxBitWidth + 1>());

[[noreturn]] void throw_format(const std::string& message) { throw FormatError(message); }

}  // namespace

void RleBitPackedDecoder::reset(std::span<const uint8_t> data, int bit_width) {
  if (bit_width < 0 || bit_width > kMaxBitWidth) {
    throw_format("RLE/bit-packed bit width " + std::to_string(bit_width) + " is outside 0..32");
  }
  pos_ = data.data();
  end_ = data.data() + data.size();
  bit_width_ = bit_width;
  rle_left_ = 0;
  rle_value_ = 0;
  packed_left_ = 0;
  group_pos_ = 0;
  group_len_ = 0;
}

bool RleBitPackedDecoder::next_run() {
  while (pos_ != end_) {
    // ULEB128 run header of at most 32 bits.
    uint64_t header = 0;
    int shift = 0;
    while (true) {
      if (pos_ == end_) throw_format("RLE/bit-packed run header is cut off by the end of data");
      const uint8_t byte = *pos_++;
      header |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) break;
      shift += 7;
      if (shift >= 35) throw_format("RLE/bit-packed run header is longer than 5 bytes");
    }
    if (header > UINT32_MAX) throw_format("RLE/bit-packed run header exceeds 32 bits");

    if ((header & 1) != 0) {
      const uint64_t groups = header >> 1;
      const uint64_t values = groups * 8;
      if (bit_width_ == 0) {
        packed_left_ = values;
      } else {
        const auto available = static_cast<uint64_t>(end_ - pos_);
        packed_left_ = std::min(values, available * 8 / static_cast<uint64_t>(bit_width_));
      }
      if (values != 0 && packed_left_ == 0) {
        // A declared group with no bytes left at all: the data ends here.
        pos_ = end_;
        return false;
      }
      if (packed_left_ != 0) return true;
    } else {
      const uint64_t count = header >> 1;
      const int value_bytes = (bit_width_ + 7) / 8;
      if (end_ - pos_ < value_bytes) {
        throw_format("RLE run value is cut off by the end of data (need " +
                     std::to_string(value_bytes) + " bytes, " + std::to_string(end_ - pos_) +
                     " left)");
      }
      uint32_t value = 0;
      for (int i = 0; i < value_bytes; ++i) value |= static_cast<uint32_t>(pos_[i]) << (8 * i);
      pos_ += value_bytes;
      if (bit_width_ < 32 && (value >> bit_width_) != 0) {
        throw_format("RLE run value " + std::to_string(value) + " does not fit in bit width " +
                     std::to_string(bit_width_));
      }
      rle_value_ = value;
      rle_left_ = count;
      if (count != 0) return true;
    }
    // A run of zero values carries nothing; read the next header.
  }
  return false;
}

void RleBitPackedDecoder::buffer_group() {
  const auto available = static_cast<size_t>(end_ - pos_);
  const size_t group_bytes = std::min(static_cast<size_t>(bit_width_), available);
  uint8_t padded[kMaxBitWidth] = {};
  if (group_bytes != 0) std::memcpy(padded, pos_, group_bytes);
  kUnpack[bit_width_](padded, sizeof(padded), 1, group_);
  pos_ += group_bytes;
  group_pos_ = 0;
  group_len_ = static_cast<uint32_t>(std::min<uint64_t>(8, packed_left_));
  packed_left_ -= group_len_;
}

size_t RleBitPackedDecoder::get_batch(uint32_t* out, size_t n) {
  size_t done = 0;
  while (done < n) {
    const size_t want = n - done;
    if (group_pos_ < group_len_) {
      const size_t take = std::min<size_t>(want, group_len_ - group_pos_);
      std::memcpy(out + done, group_ + group_pos_, take * sizeof(uint32_t));
      group_pos_ += static_cast<uint32_t>(take);
      done += take;
    } else if (rle_left_ != 0) {
      const size_t take = static_cast<size_t>(std::min<uint64_t>(want, rle_left_));
      std::fill(out + done, out + done + take, rle_value_);
      rle_left_ -= take;
      done += take;
    } else if (packed_left_ != 0) {
      // The run is group-aligned here: whole groups go straight to out, a split one through
      // group_.
      const size_t groups = static_cast<size_t>(std::min<uint64_t>(want, packed_left_) / 8);
      if (groups != 0) {
        const size_t bytes = groups * static_cast<size_t>(bit_width_);
        kUnpack[bit_width_](pos_, static_cast<size_t>(end_ - pos_), groups, out + done);
        pos_ += bytes;
        packed_left_ -= groups * 8;
        done += groups * 8;
      } else {
        buffer_group();
      }
    } else if (!next_run()) {
      break;
    }
  }
  return done;
}

size_t RleBitPackedDecoder::skip(size_t n) {
  size_t done = 0;
  while (done < n) {
    const size_t want = n - done;
    if (group_pos_ < group_len_) {
      const size_t take = std::min<size_t>(want, group_len_ - group_pos_);
      group_pos_ += static_cast<uint32_t>(take);
      done += take;
    } else if (rle_left_ != 0) {
      const size_t take = static_cast<size_t>(std::min<uint64_t>(want, rle_left_));
      rle_left_ -= take;
      done += take;
    } else if (packed_left_ != 0) {
      const size_t groups = static_cast<size_t>(std::min<uint64_t>(want, packed_left_) / 8);
      if (groups != 0) {
        pos_ += groups * static_cast<size_t>(bit_width_);
        packed_left_ -= groups * 8;
        done += groups * 8;
      } else {
        buffer_group();
      }
    } else if (!next_run()) {
      break;
    }
  }
  return done;
}

RleBitPackedDecoder::Tally RleBitPackedDecoder::tally(size_t n, uint32_t value) {
  Tally t;
  const auto count = [&](const uint32_t* v, size_t k) {
    for (size_t i = 0; i < k; ++i) {
      t.equal += v[i] == value ? 1 : 0;
      t.largest = std::max(t.largest, v[i]);
    }
  };
  while (t.skipped < n) {
    const size_t want = n - t.skipped;
    if (group_pos_ < group_len_) {
      const size_t take = std::min<size_t>(want, group_len_ - group_pos_);
      count(group_ + group_pos_, take);
      group_pos_ += static_cast<uint32_t>(take);
      t.skipped += take;
    } else if (rle_left_ != 0) {
      const size_t take = static_cast<size_t>(std::min<uint64_t>(want, rle_left_));
      if (rle_value_ == value) t.equal += take;
      t.largest = std::max(t.largest, rle_value_);
      rle_left_ -= take;
      t.skipped += take;
    } else if (packed_left_ != 0) {
      // Whole groups, a block at a time; one bit a value is counted byte by byte.
      constexpr size_t kBlockGroups = 32;
      const size_t groups = std::min<size_t>(
          static_cast<size_t>(std::min<uint64_t>(want, packed_left_) / 8), kBlockGroups);
      if (groups == 0) {
        buffer_group();
        continue;
      }
      if (bit_width_ == 1) {
        size_t ones = 0;
        for (size_t b = 0; b < groups; ++b) ones += static_cast<size_t>(std::popcount(pos_[b]));
        t.equal += value == 1 ? ones : value == 0 ? groups * 8 - ones : 0;
        if (ones != 0) t.largest = std::max<uint32_t>(t.largest, 1);
      } else {
        uint32_t block[kBlockGroups * 8];
        kUnpack[bit_width_](pos_, static_cast<size_t>(end_ - pos_), groups, block);
        count(block, groups * 8);
      }
      pos_ += groups * static_cast<size_t>(bit_width_);
      packed_left_ -= groups * 8;
      t.skipped += groups * 8;
    } else if (!next_run()) {
      break;
    }
  }
  return t;
}

}  // namespace kbdata::parquet
