#include "parquet/encoding/byte_stream_split.h"

#include <cassert>
#include <string>

#include "common/error.h"

namespace kbdata::parquet {

void ByteStreamSplitDecoder::set_data(std::span<const uint8_t> data, size_t /*num_values*/) {
  if (data.size() % width_ != 0) {
    throw FormatError("BYTE_STREAM_SPLIT page of " + std::to_string(data.size()) +
                      " bytes is not a multiple of the value width " + std::to_string(width_));
  }
  data_ = data;
  count_ = data.size() / width_;
  pos_ = 0;
}

void ByteStreamSplitDecoder::decode(size_t n, ValueBuffer& out) {
  assert(!out.is_binary() && static_cast<size_t>(out.width) == width_);
  if (n > count_ - pos_) {
    throw FormatError("BYTE_STREAM_SPLIT page holds fewer values than requested (" +
                      std::to_string(n) + " requested, " + std::to_string(count_ - pos_) +
                      " left)");
  }
  const size_t old_size = out.data.size();
  resize_uninit(out.data, old_size + n * width_);
  uint8_t* dst = out.data.data() + old_size;
  // Stream by stream: contiguous reads, strided writes.
  for (size_t j = 0; j < width_; ++j) {
    const uint8_t* stream = data_.data() + j * count_ + pos_;
    for (size_t i = 0; i < n; ++i) dst[i * width_ + j] = stream[i];
  }
  pos_ += n;
  out.count += n;
}

}  // namespace kbdata::parquet
