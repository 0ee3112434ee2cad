#include "parquet/encoding/delta_encoder.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstring>
#include <type_traits>

#include "common/varint.h"
#include "parquet/encoding/rle_encoder.h"

namespace kbdata::parquet {
namespace {

constexpr size_t kBlockSize = 128;
constexpr size_t kMiniblocks = 4;
constexpr size_t kMiniblockSize = kBlockSize / kMiniblocks;

void put_zigzag(int64_t value, std::vector<uint8_t>& out) {
  append_uleb128(out, zigzag_encode(value));
}

// Packs kMiniblockSize values of `width` (0..64) bits, least significant bit first, appending
// kMiniblockSize * width / 8 bytes.
template <typename U>
void pack_miniblock(const U* values, int width, std::vector<uint8_t>& out) {
  if (width == 0) return;
  const size_t old_size = out.size();
  out.resize(old_size + kMiniblockSize * static_cast<size_t>(width) / 8, 0);
  uint8_t* dst = out.data() + old_size;
  size_t bit = 0;
  for (size_t k = 0; k < kMiniblockSize; ++k) {
    uint64_t value = values[k];  // holds at most `width` bits
    int remaining = width;
    while (remaining > 0) {
      const int shift = static_cast<int>(bit % 8);
      dst[bit / 8] |= static_cast<uint8_t>(value << shift);
      const int written = 8 - shift;
      value >>= written;
      bit += static_cast<size_t>(written);
      remaining -= written;
    }
    bit -= static_cast<size_t>(-remaining);  // the last byte was written only in part
  }
}

// The stream of n values of the unsigned type U (uint32_t for INT32, uint64_t for INT64), value i
// read from src + i * sizeof(U) (little-endian, possibly unaligned).
template <typename U>
void encode_stream(const uint8_t* src, size_t n, std::vector<uint8_t>& out) {
  using S = std::make_signed_t<U>;
  auto load = [src](size_t i) {
    U value;
    std::memcpy(&value, src + i * sizeof(U), sizeof(U));
    return value;
  };
  append_uleb128(out, kBlockSize);
  append_uleb128(out, kMiniblocks);
  append_uleb128(out, n);
  if (n == 0) {
    put_zigzag(0, out);
    return;
  }
  U previous = load(0);
  put_zigzag(static_cast<S>(previous), out);

  U deltas[kBlockSize];
  for (size_t i = 1; i < n;) {
    const size_t m = std::min(kBlockSize, n - i);
    for (size_t k = 0; k < m; ++k) {
      const U value = load(i + k);
      deltas[k] = static_cast<U>(value - previous);
      previous = value;
    }
    S min_delta = static_cast<S>(deltas[0]);
    for (size_t k = 1; k < m; ++k) min_delta = std::min(min_delta, static_cast<S>(deltas[k]));
    put_zigzag(min_delta, out);
    // Deltas relative to min delta; the block's unused tail is zero padding.
    for (size_t k = 0; k < m; ++k)
      deltas[k] = static_cast<U>(deltas[k] - static_cast<U>(min_delta));
    std::fill(deltas + m, deltas + kBlockSize, U{0});

    const size_t widths_at = out.size();
    out.resize(widths_at + kMiniblocks, 0);
    const size_t used = (m + kMiniblockSize - 1) / kMiniblockSize;
    for (size_t mb = 0; mb < used; ++mb) {
      const U* mini = deltas + mb * kMiniblockSize;
      U max_value = 0;
      for (size_t k = 0; k < kMiniblockSize; ++k) max_value = std::max(max_value, mini[k]);
      const int width = static_cast<int>(std::bit_width(max_value));
      out[widths_at + mb] = static_cast<uint8_t>(width);
      pack_miniblock(mini, width, out);
    }
    i += m;
  }
}

}  // namespace

void encode_delta_binary_packed(const ValueBuffer& values, size_t begin, size_t end,
                                std::vector<uint8_t>& out) {
  assert(begin <= end && end <= values.count);
  if (values.type == PhysicalType::INT32) {
    encode_stream<uint32_t>(values.data.data() + begin * 4, end - begin, out);
  } else {
    assert(values.type == PhysicalType::INT64);
    encode_stream<uint64_t>(values.data.data() + begin * 8, end - begin, out);
  }
}

void encode_delta_binary_packed_int32(std::span<const int32_t> values, std::vector<uint8_t>& out) {
  encode_stream<uint32_t>(reinterpret_cast<const uint8_t*>(values.data()), values.size(), out);
}

void encode_delta_binary_packed_int64(std::span<const int64_t> values, std::vector<uint8_t>& out) {
  encode_stream<uint64_t>(reinterpret_cast<const uint8_t*>(values.data()), values.size(), out);
}

void encode_delta_length_byte_array(const ValueBuffer& values, size_t begin, size_t end,
                                    std::vector<uint8_t>& out) {
  assert(values.is_binary() && begin <= end && end <= values.count);
  std::vector<int32_t> lengths(end - begin);
  for (size_t i = begin; i < end; ++i) {
    const uint64_t length = values.offsets[i + 1] - values.offsets[i];
    assert(length <= INT32_MAX);
    lengths[i - begin] = static_cast<int32_t>(length);
  }
  encode_delta_binary_packed_int32(lengths, out);
  const auto* bytes = values.data.data();
  out.insert(out.end(), bytes + values.offsets[begin], bytes + values.offsets[end]);
}

}  // namespace kbdata::parquet
