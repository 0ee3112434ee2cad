#include "parquet/encoding/dictionary_encoder.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstring>

#include "parquet/encoding/plain_encoder.h"
#include "parquet/encoding/rle_encoder.h"

namespace kbdata::parquet {
namespace {

constexpr size_t kInitialSlots = 1024;

constexpr uint64_t kMul1 = 0x9e3779b97f4a7c15ULL;
constexpr uint64_t kMul2 = 0xbf58476d1ce4e5b9ULL;
constexpr uint64_t kMul3 = 0x94d049bb133111ebULL;

// The SplitMix64 / Murmur3 finalizer: every input bit affects every output bit.
inline uint64_t fmix64(uint64_t h) {
  h ^= h >> 30;
  h *= kMul2;
  h ^= h >> 27;
  h *= kMul3;
  h ^= h >> 31;
  return h;
}

// A fast non-cryptographic hash of `n` bytes (the dictionary sees trusted writer input, not an
// adversary's keys).
inline uint64_t hash_bytes(const uint8_t* p, size_t n) {
  uint64_t h = kMul1 ^ (n * kMul3);
  while (n >= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    h = std::rotl(h ^ (word * kMul2), 29) * kMul1;
    p += 8;
    n -= 8;
  }
  if (n != 0) {
    uint64_t word = 0;
    std::memcpy(&word, p, n);
    h = std::rotl(h ^ (word * kMul2), 29) * kMul1;
  }
  return fmix64(h);
}

}  // namespace

DictionaryEncoder::DictionaryEncoder(PhysicalType type, int width)
    : values_(ValueBuffer::for_type(type, width)),
      slots_(kInitialSlots, 0),
      mask_(kInitialSlots - 1) {
  assert(type != PhysicalType::FIXED_LEN_BYTE_ARRAY || width > 0);
}

uint32_t DictionaryEncoder::insert(const ValueBuffer& values, size_t i) {
  assert(values.type == values_.type && values.width == values_.width && i < values.count);
  const std::span<const uint8_t> value = values.bytes(i);
  const uint64_t hash = hash_bytes(value.data(), value.size());
  const uint64_t tag = hash & 0xffffffff00000000ULL;
  for (uint64_t slot = hash & mask_;; slot = (slot + 1) & mask_) {
    const uint64_t entry = slots_[slot];
    if (entry == 0) break;
    if ((entry & 0xffffffff00000000ULL) != tag) continue;
    const auto index = static_cast<uint32_t>(entry) - 1;
    const std::span<const uint8_t> existing = values_.bytes(index);
    if (existing.size() == value.size() &&
        (value.empty() || std::memcmp(existing.data(), value.data(), value.size()) == 0)) {
      return index;
    }
  }
  assert(values_.count < UINT32_MAX - 1);
  const auto index = static_cast<uint32_t>(values_.count);
  if (values_.is_binary()) {
    values_.append_binary(value);
    plain_size_ += 4 + value.size();
  } else {
    append_uninit(values_.data, value.data(), value.size());
    ++values_.count;
    plain_size_ =
        values_.type == PhysicalType::BOOLEAN ? (values_.count + 7) / 8 : values_.data.size();
  }
  if ((values_.count) * 2 > slots_.size()) {
    grow();  // rehashes every entry, the new one included
  } else {
    uint64_t slot = hash & mask_;
    while (slots_[slot] != 0) slot = (slot + 1) & mask_;
    slots_[slot] = tag | (uint64_t{index} + 1);
  }
  return index;
}

void DictionaryEncoder::insert_range(const ValueBuffer& values, size_t begin, size_t end,
                                     std::vector<uint32_t>& indices) {
  assert(begin <= end && end <= values.count);
  indices.reserve(indices.size() + (end - begin));
  for (size_t i = begin; i < end; ++i) indices.push_back(insert(values, i));
}

void DictionaryEncoder::grow() {
  slots_.assign(slots_.size() * 2, 0);
  mask_ = slots_.size() - 1;
  for (size_t index = 0; index < values_.count; ++index) {
    const std::span<const uint8_t> value = values_.bytes(index);
    const uint64_t hash = hash_bytes(value.data(), value.size());
    uint64_t slot = hash & mask_;
    while (slots_[slot] != 0) slot = (slot + 1) & mask_;
    slots_[slot] = (hash & 0xffffffff00000000ULL) | (uint64_t{index} + 1);
  }
}

void DictionaryEncoder::encode_dictionary(std::vector<uint8_t>& out) const {
  encode_plain(values_, 0, values_.count, out);
}

void DictionaryEncoder::clear() {
  values_.clear();
  plain_size_ = 0;
  std::fill(slots_.begin(), slots_.end(), 0);
}

int dictionary_index_bit_width(size_t dictionary_size) {
  if (dictionary_size == 0) return 0;
  return std::max(1, bit_width_for(dictionary_size - 1));
}

void encode_dictionary_indices(std::span<const uint32_t> indices, size_t dictionary_size,
                               std::vector<uint8_t>& out) {
  const int bit_width = dictionary_index_bit_width(dictionary_size);
  out.push_back(static_cast<uint8_t>(bit_width));
  RleBitPackedEncoder encoder(bit_width);
  size_t i = 0;
  while (i < indices.size()) {
    const uint32_t index = indices[i];
    assert(index < dictionary_size);
    size_t j = i + 1;
    while (j < indices.size() && indices[j] == index) ++j;
    encoder.put_repeated(index, j - i);
    i = j;
  }
  encoder.flush(out);
}

}  // namespace kbdata::parquet
