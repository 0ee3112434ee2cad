#include "parquet/encoding/plain_encoder.h"

#include <cassert>
#include <cstring>

#include "common/malloc_tuning.h"
#include "parquet/encoding/rle_encoder.h"

namespace kbdata::parquet {
namespace {

void put_le32(uint32_t value, uint8_t* out) {
  for (int i = 0; i < 4; ++i) out[i] = static_cast<uint8_t>(value >> (8 * i));
}

}  // namespace

size_t plain_encoded_size(const ValueBuffer& values, size_t begin, size_t end) {
  assert(begin <= end && end <= values.count);
  const size_t n = end - begin;
  if (values.type == PhysicalType::BOOLEAN) return (n + 7) / 8;
  if (values.is_binary()) {
    return n * 4 + static_cast<size_t>(values.offsets[end] - values.offsets[begin]);
  }
  return n * static_cast<size_t>(values.width);
}

void encode_plain(const ValueBuffer& values, size_t begin, size_t end, std::vector<uint8_t>& out) {
  assert(begin <= end && end <= values.count);
  const size_t old_size = out.size();
  const size_t size = plain_encoded_size(values, begin, end);
  reserve_for_append(out, size);
  out.resize(old_size + size);
  uint8_t* dst = out.data() + old_size;
  if (values.type == PhysicalType::BOOLEAN) {
    // resize() zeroed the new bytes; set the true bits.
    const uint8_t* src = values.data.data() + begin;
    for (size_t i = 0; i < end - begin; ++i) {
      if (src[i] != 0) dst[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
    }
    return;
  }
  if (values.is_binary()) {
    for (size_t i = begin; i < end; ++i) {
      const uint64_t length = values.offsets[i + 1] - values.offsets[i];
      assert(length <= UINT32_MAX);
      put_le32(static_cast<uint32_t>(length), dst);
      if (length != 0) std::memcpy(dst + 4, values.data.data() + values.offsets[i], length);
      dst += 4 + length;
    }
    return;
  }
  const auto width = static_cast<size_t>(values.width);
  if (end != begin) std::memcpy(dst, values.data.data() + begin * width, (end - begin) * width);
}

void encode_boolean_rle(const ValueBuffer& values, size_t begin, size_t end,
                        std::vector<uint8_t>& out) {
  assert(values.type == PhysicalType::BOOLEAN && begin <= end && end <= values.count);
  const size_t prefix_at = out.size();
  out.resize(prefix_at + 4);
  RleBitPackedEncoder encoder(1);
  const uint8_t* src = values.data.data();
  size_t i = begin;
  while (i < end) {
    const bool value = src[i] != 0;
    size_t j = i + 1;
    while (j < end && (src[j] != 0) == value) ++j;
    encoder.put_repeated(value ? 1u : 0u, j - i);
    i = j;
  }
  encoder.flush(out);
  const size_t length = out.size() - prefix_at - 4;
  assert(length <= UINT32_MAX);
  put_le32(static_cast<uint32_t>(length), out.data() + prefix_at);
}

}  // namespace kbdata::parquet
