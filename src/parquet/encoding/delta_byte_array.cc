#include "parquet/encoding/delta_byte_array.h"

#include <algorithm>
#include <cassert>
#include <string>

#include "common/error.h"

namespace kbdata::parquet {
namespace {

constexpr size_t kBatchValues = 1024;

}  // namespace

DeltaByteArrayDecoder::DeltaByteArrayDecoder(PhysicalType type, int type_length)
    : type_(type), type_length_(type_length) {
  assert(type == PhysicalType::BYTE_ARRAY ||
         (type == PhysicalType::FIXED_LEN_BYTE_ARRAY && type_length > 0));
}

void DeltaByteArrayDecoder::set_data(std::span<const uint8_t> data, size_t num_values) {
  prefixes_.reset(data, kMaxDeltaBitWidth);
  const size_t start = data.empty() ? 0 : prefixes_.end_offset();
  suffixes_.set_data(data.subspan(start), num_values);
  previous_.clear();
}

void DeltaByteArrayDecoder::decode(size_t n, ValueBuffer& out) {
  assert(out.type == type_);
  const uint64_t left = std::min(prefixes_.values_left(), suffixes_.values_left());
  if (n > left) {
    throw FormatError("DELTA_BYTE_ARRAY page holds fewer values than requested (" +
                      std::to_string(n) + " requested, " + std::to_string(left) + " left)");
  }
  if (prefix_batch_.size() < kBatchValues) prefix_batch_.resize(kBatchValues);
  const bool fixed = type_ == PhysicalType::FIXED_LEN_BYTE_ARRAY;
  const size_t start_size = out.data.size();
  size_t done = 0;
  while (done < n) {
    const size_t take = std::min(n - done, kBatchValues);
    next_lengths(prefixes_, take, scratch_, prefix_batch_.data(),
                 "DELTA_BYTE_ARRAY prefix lengths");
    suffix_batch_.clear();
    suffixes_.decode(take, suffix_batch_);
    for (size_t i = 0; i < take; ++i) {
      const uint32_t prefix = prefix_batch_[i];
      if (prefix > previous_.size()) {
        throw FormatError("DELTA_BYTE_ARRAY prefix length " + std::to_string(prefix) +
                          " exceeds the previous value's " + std::to_string(previous_.size()) +
                          " bytes");
      }
      const auto suffix = suffix_batch_.bytes(i);
      if (fixed && prefix + suffix.size() != static_cast<size_t>(type_length_)) {
        throw FormatError("DELTA_BYTE_ARRAY value of " + std::to_string(prefix + suffix.size()) +
                          " bytes in a FIXED_LEN_BYTE_ARRAY(" + std::to_string(type_length_) +
                          ") column");
      }
      if (out.data.size() - start_size + prefix + suffix.size() > kMaxBatchBytes) {
        throw FormatError("DELTA_BYTE_ARRAY batch decodes to more than " +
                          std::to_string(kMaxBatchBytes) + " bytes");
      }
      previous_.resize(prefix);
      previous_.insert(previous_.end(), suffix.begin(), suffix.end());
      append_uninit(out.data, previous_.data(), previous_.size());
      if (!fixed) out.offsets.push_back(out.data.size());
    }
    out.count += take;
    done += take;
  }
}

}  // namespace kbdata::parquet
