#include "parquet/encoding/boolean_rle_decoder.h"

#include <algorithm>
#include <cassert>
#include <string>

#include "common/error.h"

namespace kbdata::parquet {
namespace {

constexpr size_t kScratchValues = 1024;

}  // namespace

void BooleanRleDecoder::set_data(std::span<const uint8_t> data, size_t num_values) {
  values_left_ = num_values;
  if (data.empty()) {
    values_.reset({}, 1);
    values_left_ = 0;
    return;
  }
  if (data.size() < 4) {
    throw FormatError("RLE boolean length prefix is cut off (page has " +
                      std::to_string(data.size()) + " bytes)");
  }
  const uint32_t length = static_cast<uint32_t>(data[0]) | static_cast<uint32_t>(data[1]) << 8 |
                          static_cast<uint32_t>(data[2]) << 16 |
                          static_cast<uint32_t>(data[3]) << 24;
  if (length > data.size() - 4) {
    throw FormatError("RLE boolean length " + std::to_string(length) + " overruns the page (" +
                      std::to_string(data.size() - 4) + " bytes left)");
  }
  values_.reset(data.subspan(4, length), 1);
}

void BooleanRleDecoder::decode(size_t n, ValueBuffer& out) {
  assert(out.type == PhysicalType::BOOLEAN && out.width == 1);
  if (n > values_left_) {
    throw FormatError("RLE boolean page holds fewer values than requested (" + std::to_string(n) +
                      " requested, " + std::to_string(values_left_) + " left)");
  }
  if (scratch_.size() < kScratchValues) scratch_.resize(kScratchValues);
  size_t done = 0;
  while (done < n) {
    const size_t want = std::min(n - done, kScratchValues);
    const size_t got = values_.get_batch(scratch_.data(), want);
    // Bit width 1 guarantees every value is 0 or 1.
    const size_t old_size = out.data.size();
    resize_uninit(out.data, old_size + got);
    for (size_t i = 0; i < got; ++i) out.data[old_size + i] = static_cast<uint8_t>(scratch_[i]);
    out.count += got;
    done += got;
    if (got < want) {
      throw FormatError("RLE boolean values end after " + std::to_string(done) + " of " +
                        std::to_string(n) + " requested values");
    }
  }
  values_left_ -= n;
}

}  // namespace kbdata::parquet
