#include "parquet/encoding/delta_length_byte_array.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <string>

#include "common/error.h"

namespace kbdata::parquet {
namespace {

constexpr size_t kBatchValues = 1024;

}  // namespace

void DeltaLengthByteArrayDecoder::set_data(std::span<const uint8_t> data, size_t /*num_values*/) {
  lengths_.reset(data, kMaxDeltaBitWidth);
  const size_t start = data.empty() ? 0 : lengths_.end_offset();
  bytes_ = data.subspan(start);
  bytes_pos_ = 0;
}

void DeltaLengthByteArrayDecoder::decode(size_t n, ValueBuffer& out) {
  assert(out.is_binary());
  if (n > lengths_.values_left()) {
    throw FormatError("DELTA_LENGTH_BYTE_ARRAY page holds fewer values than requested (" +
                      std::to_string(n) + " requested, " + std::to_string(lengths_.values_left()) +
                      " left)");
  }
  if (batch_lengths_.size() < kBatchValues) batch_lengths_.resize(kBatchValues);
  size_t done = 0;
  while (done < n) {
    const size_t take = std::min(n - done, kBatchValues);
    next_lengths(lengths_, take, scratch_, batch_lengths_.data(),
                 "DELTA_LENGTH_BYTE_ARRAY lengths");
    // Validate the batch's lengths against the bytes left, so that the buffers grow once.
    const size_t left = bytes_.size() - bytes_pos_;
    size_t total = 0;
    for (size_t i = 0; i < take; ++i) {
      total += batch_lengths_[i];  // each < 2^31: no overflow for batches of 1024
      if (total > left) {
        throw FormatError("DELTA_LENGTH_BYTE_ARRAY value lengths overrun the page (" +
                          std::to_string(left) + " bytes of values left)");
      }
    }
    const size_t old_size = out.data.size();
    resize_uninit(out.data, old_size + total);
    if (total != 0) std::memcpy(out.data.data() + old_size, bytes_.data() + bytes_pos_, total);
    uint64_t offset = old_size;
    for (size_t i = 0; i < take; ++i) {
      offset += batch_lengths_[i];
      out.offsets.push_back(offset);
    }
    bytes_pos_ += total;
    out.count += take;
    done += take;
  }
}

}  // namespace kbdata::parquet
