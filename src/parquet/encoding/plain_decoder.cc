#include "parquet/encoding/plain_decoder.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <string>

#include "common/error.h"

namespace kbdata::parquet {
namespace {

uint32_t load_le32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

// The errors of a BYTE_ARRAY value's length, read from a page's bytes or from a PageStream.
[[noreturn]] void throw_length_cut_off(size_t i) {
  throw FormatError("BYTE_ARRAY value " + std::to_string(i) +
                    ": length is cut off by the end of the page");
}

[[noreturn]] void throw_value_overruns(uint32_t length, uint64_t left) {
  throw FormatError("BYTE_ARRAY value length " + std::to_string(length) + " overruns the page (" +
                    std::to_string(left) + " bytes left)");
}

[[noreturn]] void throw_too_few(size_t n, size_t left) {
  throw FormatError("PLAIN page holds fewer values than requested (" + std::to_string(n) +
                    " requested, " + std::to_string(left) + " left)");
}

// INT32, INT64, INT96, FLOAT, DOUBLE and FIXED_LEN_BYTE_ARRAY: values of `width` bytes, copied
// as stored.
class PlainFixedDecoder final : public ValueDecoder {
 public:
  explicit PlainFixedDecoder(size_t width) : width_(width) {}

  void set_data(std::span<const uint8_t> data, size_t num_values) override {
    data_ = data;
    pos_ = 0;
    values_left_ = num_values;
  }

  void decode(size_t n, ValueBuffer& out) override {
    assert(!out.is_binary() && static_cast<size_t>(out.width) == width_);
    const size_t in_bytes = (data_.size() - pos_) / width_;
    if (n > values_left_ || n > in_bytes) throw_too_few(n, std::min(values_left_, in_bytes));
    const uint8_t* begin = data_.data() + pos_;
    const size_t bytes = n * width_;
    append_uninit(out.data, begin, bytes);
    out.count += n;
    pos_ += bytes;
    values_left_ -= n;
  }

  bool skip(size_t n) override {
    const size_t in_bytes = (data_.size() - pos_) / width_;
    if (n > values_left_ || n > in_bytes) throw_too_few(n, std::min(values_left_, in_bytes));
    pos_ += n * width_;
    values_left_ -= n;
    return true;
  }

 private:
  size_t width_;
  std::span<const uint8_t> data_;  // the page's values, owned by the page buffer
  size_t pos_ = 0;
  size_t values_left_ = 0;
};

class PlainBooleanDecoder final : public ValueDecoder {
 public:
  void set_data(std::span<const uint8_t> data, size_t num_values) override {
    data_ = data;
    bit_ = 0;
    values_left_ = num_values;
  }

  void decode(size_t n, ValueBuffer& out) override {
    assert(out.type == PhysicalType::BOOLEAN && out.width == 1);
    // Bits not yet read; fits in size_t for any page this process can hold.
    const uint64_t bits_left = static_cast<uint64_t>(data_.size()) * 8 - bit_;
    if (n > values_left_ || n > bits_left) {
      throw_too_few(n, static_cast<size_t>(std::min<uint64_t>(values_left_, bits_left)));
    }
    const size_t old_size = out.data.size();
    resize_uninit(out.data, old_size + n);
    uint8_t* dst = out.data.data() + old_size;
    const uint8_t* src = data_.data();
    size_t i = 0;
    // Leading bits up to a byte boundary, whole bytes, then the tail.
    for (; i < n && bit_ % 8 != 0; ++i, ++bit_) dst[i] = (src[bit_ / 8] >> (bit_ % 8)) & 1;
    for (; i + 8 <= n; i += 8, bit_ += 8) {
      const uint8_t byte = src[bit_ / 8];
      for (int b = 0; b < 8; ++b) dst[i + b] = (byte >> b) & 1;
    }
    for (; i < n; ++i, ++bit_) dst[i] = (src[bit_ / 8] >> (bit_ % 8)) & 1;
    out.count += n;
    values_left_ -= n;
  }

  bool skip(size_t n) override {
    const uint64_t bits_left = static_cast<uint64_t>(data_.size()) * 8 - bit_;
    if (n > values_left_ || n > bits_left) {
      throw_too_few(n, static_cast<size_t>(std::min<uint64_t>(values_left_, bits_left)));
    }
    bit_ += n;
    values_left_ -= n;
    return true;
  }

 private:
  std::span<const uint8_t> data_;  // the page's values, owned by the page buffer
  uint64_t bit_ = 0;
  size_t values_left_ = 0;
};

class PlainByteArrayDecoder final : public ValueDecoder {
 public:
  void set_data(std::span<const uint8_t> data, size_t num_values) override {
    data_ = data;
    pos_ = 0;
    values_left_ = num_values;
  }

  void decode(size_t n, ValueBuffer& out) override {
    assert(out.is_binary());
    // First pass: validate every length and total the bytes, so that the buffers grow once.
    const uint8_t* const begin = data_.data() + pos_;
    size_t total = 0;
    walk(
        n, [&](const uint8_t*, uint32_t length) { total += length; }, /*advance=*/false);
    // Second pass: one memcpy per value into storage grown once.
    const size_t old_size = out.data.size();
    resize_uninit(out.data, old_size + total);
    const size_t old_offsets = out.offsets.size();
    out.offsets.resize(old_offsets + n);
    uint8_t* dst = out.data.data() + old_size;
    uint64_t* offsets = out.offsets.data() + old_offsets;
    uint64_t offset = old_size;
    const uint8_t* p = begin;
    for (size_t i = 0; i < n; ++i) {
      const uint32_t length = load_le32(p);
      p += 4;
      if (length != 0) std::memcpy(dst, p, length);
      dst += length;
      p += length;
      offset += length;
      offsets[i] = offset;
    }
    out.count += n;
    pos_ += static_cast<size_t>(p - begin);
    values_left_ -= n;
  }

  void measure(size_t n, ValueMeasure fn, ValueBuffer& out, ValueBuffer&) override {
    walk(n, [&](const uint8_t* value, uint32_t length) {
      out.append_measure(fn({value, length}));
    });
  }

  bool skip(size_t n) override {
    walk(n, [](const uint8_t*, uint32_t) {});
    return true;
  }

 private:
  // Calls each(value, length) for the next n values, checking every length against the page
  // (FormatError), and moves past them unless `advance` is false.
  template <typename Each>
  void walk(size_t n, Each&& each, bool advance = true) {
    if (n > values_left_) throw_too_few(n, values_left_);
    const uint8_t* const end = data_.data() + data_.size();
    const uint8_t* p = data_.data() + pos_;
    for (size_t i = 0; i < n; ++i) {
      if (end - p < 4) throw_length_cut_off(i);
      const uint32_t length = load_le32(p);
      p += 4;
      if (length > static_cast<size_t>(end - p)) {
        throw_value_overruns(length, static_cast<uint64_t>(end - p));
      }
      each(p, length);
      p += length;
    }
    if (advance) {
      pos_ = static_cast<size_t>(p - data_.data());
      values_left_ -= n;
    }
  }

  std::span<const uint8_t> data_;  // the page's values, owned by the page buffer
  size_t pos_ = 0;
  size_t values_left_ = 0;
};

}  // namespace

void StreamedByteArrayDecoder::set_stream(PageStream& stream, uint64_t offset, size_t num_values) {
  stream_ = &stream;
  pos_ = offset;
  values_left_ = num_values;
}

void StreamedByteArrayDecoder::set_data(std::span<const uint8_t>, size_t) {
  assert(false && "StreamedByteArrayDecoder reads a PageStream");
}

template <typename Each>
void StreamedByteArrayDecoder::walk(size_t n, Each&& each) {
  if (n > values_left_) throw_too_few(n, values_left_);
  const uint64_t end = stream_->length();
  for (size_t i = 0; i < n; ++i) {
    if (end - pos_ < 4) throw_length_cut_off(i);
    const uint32_t length = load_le32(stream_->view(pos_, 4).data());
    pos_ += 4;
    if (length > end - pos_) throw_value_overruns(length, end - pos_);
    each(stream_->view(pos_, length));
    pos_ += length;
    stream_->release(pos_);
    --values_left_;
  }
}

void StreamedByteArrayDecoder::decode(size_t n, ValueBuffer& out) {
  assert(out.is_binary());
  out.offsets.reserve(out.offsets.size() + n);
  walk(n, [&](std::span<const uint8_t> value) { out.append_binary(value); });
}

bool StreamedByteArrayDecoder::skip(size_t n) {
  walk(n, [](std::span<const uint8_t>) {});
  return true;
}

void StreamedByteArrayDecoder::measure(size_t n, ValueMeasure fn, ValueBuffer& out, ValueBuffer&) {
  walk(n, [&](std::span<const uint8_t> value) { out.append_measure(fn(value)); });
}

std::unique_ptr<ValueDecoder> make_plain_decoder(PhysicalType type, int type_length) {
  switch (type) {
    case PhysicalType::BOOLEAN:
      return std::make_unique<PlainBooleanDecoder>();
    case PhysicalType::INT32:
    case PhysicalType::FLOAT:
      return std::make_unique<PlainFixedDecoder>(4);
    case PhysicalType::INT64:
    case PhysicalType::DOUBLE:
      return std::make_unique<PlainFixedDecoder>(8);
    case PhysicalType::INT96:
      return std::make_unique<PlainFixedDecoder>(12);
    case PhysicalType::BYTE_ARRAY:
      return std::make_unique<PlainByteArrayDecoder>();
    case PhysicalType::FIXED_LEN_BYTE_ARRAY:
      if (type_length <= 0) {
        throw FormatError("FIXED_LEN_BYTE_ARRAY type length " + std::to_string(type_length) +
                          " is not positive");
      }
      return std::make_unique<PlainFixedDecoder>(static_cast<size_t>(type_length));
  }
  throw FormatError("unknown physical type " + std::to_string(static_cast<int>(type)));
}

}  // namespace kbdata::parquet
