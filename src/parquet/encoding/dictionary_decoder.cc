#include "parquet/encoding/dictionary_decoder.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <string>
#include <utility>

#include "common/error.h"

namespace kbdata::parquet {
namespace {

constexpr size_t kScratchValues = 1024;

template <size_t kWidth>
void gather_fixed(const uint8_t* dictionary, const uint32_t* indices, size_t n, uint8_t* out) {
  for (size_t i = 0; i < n; ++i) {
    std::memcpy(out + i * kWidth, dictionary + static_cast<size_t>(indices[i]) * kWidth, kWidth);
  }
}

void gather_fixed(const uint8_t* dictionary, const uint32_t* indices, size_t n, size_t width,
                  uint8_t* out) {
  for (size_t i = 0; i < n; ++i) {
    std::memcpy(out + i * width, dictionary + static_cast<size_t>(indices[i]) * width, width);
  }
}

}  // namespace

DictionaryDecoder::DictionaryDecoder(std::shared_ptr<const ValueBuffer> shared)
    : dictionary_(std::move(shared)) {
  assert(dictionary_->is_binary()
             ? dictionary_->offsets.size() == dictionary_->count + 1 &&
                   dictionary_->offsets.back() <= dictionary_->data.size()
             : dictionary_->width > 0 &&
                   dictionary_->data.size() ==
                       dictionary_->count * static_cast<size_t>(dictionary_->width));
  if (dictionary_->is_binary()) {
    for (size_t i = 0; i < dictionary_->count; ++i) {
      max_value_bytes_ =
          std::max<size_t>(max_value_bytes_, dictionary_->offsets[i + 1] - dictionary_->offsets[i]);
    }
  } else {
    max_value_bytes_ = static_cast<size_t>(dictionary_->width);
  }
}

void DictionaryDecoder::set_data(std::span<const uint8_t> data, size_t num_values) {
  values_left_ = num_values;
  if (data.empty()) {
    indices_.reset({}, 0);
    values_left_ = 0;
    return;
  }
  const int bit_width = data[0];
  if (bit_width > 32) {
    throw FormatError("dictionary index bit width " + std::to_string(bit_width) + " exceeds 32");
  }
  indices_.reset(data.subspan(1), bit_width);
}

void DictionaryDecoder::check_left(size_t n) const {
  if (n > values_left_) {
    throw FormatError("dictionary-encoded page holds fewer values than requested (" +
                      std::to_string(n) + " requested, " + std::to_string(values_left_) + " left)");
  }
}

void DictionaryDecoder::read_indices(size_t n, size_t done, size_t total, uint32_t* into) {
  const size_t got = indices_.get_batch(into, n);
  if (got < n) {
    throw FormatError("dictionary indices end after " + std::to_string(done + got) + " of " +
                      std::to_string(total) + " requested values");
  }
  uint32_t max_index = 0;
  for (size_t i = 0; i < got; ++i) max_index = std::max(max_index, into[i]);
  if (max_index >= dictionary_->count) {
    throw FormatError("dictionary index " + std::to_string(max_index) +
                      " out of range (dictionary has " + std::to_string(dictionary_->count) +
                      " values)");
  }
}

void DictionaryDecoder::decode(size_t n, ValueBuffer& out) {
  assert(out.type == dictionary_->type && out.width == dictionary_->width);
  check_left(n);
  if (scratch_.size() < kScratchValues) scratch_.resize(kScratchValues);
  size_t done = 0;
  while (done < n) {
    const size_t want = std::min(n - done, kScratchValues);
    read_indices(want, done, n, scratch_.data());
    gather(scratch_.data(), want, out);
    done += want;
  }
  values_left_ -= n;
}

void DictionaryDecoder::decode_indices(size_t n, std::vector<uint32_t>& out) {
  check_left(n);
  const size_t old_size = out.size();
  out.resize(old_size + n);
  read_indices(n, 0, n, out.data() + old_size);
  values_left_ -= n;
}

bool DictionaryDecoder::skip(size_t n) {
  check_left(n);
  const size_t got = indices_.skip(n);
  if (got < n) {
    throw FormatError("dictionary indices end after " + std::to_string(got) + " of " +
                      std::to_string(n) + " skipped values");
  }
  values_left_ -= n;
  return true;
}

void DictionaryDecoder::gather(const uint32_t* indices, size_t n, ValueBuffer& out) const {
  if (dictionary_->is_binary()) {
    const uint64_t* offsets = dictionary_->offsets.data();
    size_t total = 0;
    for (size_t i = 0; i < n; ++i) total += offsets[indices[i] + 1] - offsets[indices[i]];
    const size_t old_size = out.data.size();
    // total cannot wrap: at most kScratchValues values of at most 2^32 bytes each.
    const bool first_value_alone = n == 1 && out.count == 0;  // a batch always makes progress
    if (total > kMaxBatchBytes - std::min(old_size, kMaxBatchBytes) && !first_value_alone) {
      throw FormatError("dictionary values of one batch would take " +
                        std::to_string(old_size + total) + " bytes, more than the " +
                        std::to_string(kMaxBatchBytes >> 20) + " MiB limit");
    }
    resize_uninit(out.data, old_size + total);
    const size_t old_offsets = out.offsets.size();
    out.offsets.resize(old_offsets + n);
    uint8_t* dst = out.data.data() + old_size;
    uint64_t* out_offsets = out.offsets.data() + old_offsets;
    uint64_t offset = old_size;
    const uint8_t* values = dictionary_->data.data();
    for (size_t i = 0; i < n; ++i) {
      const uint64_t begin = offsets[indices[i]];
      const uint64_t length = offsets[indices[i] + 1] - begin;
      if (length != 0) std::memcpy(dst, values + begin, length);
      dst += length;
      offset += length;
      out_offsets[i] = offset;
    }
    out.count += n;
    return;
  }
  const auto width = static_cast<size_t>(dictionary_->width);
  const size_t old_size = out.data.size();
  resize_uninit(out.data, old_size + n * width);
  uint8_t* dst = out.data.data() + old_size;
  const uint8_t* src = dictionary_->data.data();
  switch (width) {
    case 1:
      gather_fixed<1>(src, indices, n, dst);
      break;
    case 4:
      gather_fixed<4>(src, indices, n, dst);
      break;
    case 8:
      gather_fixed<8>(src, indices, n, dst);
      break;
    case 12:
      gather_fixed<12>(src, indices, n, dst);
      break;
    case 16:
      gather_fixed<16>(src, indices, n, dst);
      break;
    default:
      gather_fixed(src, indices, n, width, dst);
      break;
  }
  out.count += n;
}

}  // namespace kbdata::parquet
