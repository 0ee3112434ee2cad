// BYTE_STREAM_SPLIT, fed streams built here by hand per the Parquet spec.

#include "parquet/encoding/byte_stream_split.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "common/error.h"
#include "parquet/encoding/value_decoders.h"
#include "parquet/values.h"

namespace kbdata::parquet {
namespace {

using Bytes = std::vector<uint8_t>;

// Splits `plain` (values of `width` bytes, concatenated) into width streams.
Bytes split(const Bytes& plain, size_t width) {
  const size_t n = plain.size() / width;
  Bytes out(plain.size());
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < width; ++j) out[j * n + i] = plain[i * width + j];
  }
  return out;
}

template <typename T>
Bytes plain_bytes(const std::vector<T>& values) {
  Bytes out(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
  return out;
}

Bytes decode_in_two(PhysicalType type, int type_length, const Bytes& data, size_t n) {
  auto decoder = make_value_decoder(Encoding::BYTE_STREAM_SPLIT, type, type_length);
  decoder->set_data(data, n + 3);  // num_values is only an upper bound
  ValueBuffer out = ValueBuffer::for_type(type, type_length);
  decoder->decode(n / 2, out);
  decoder->decode(n - n / 2, out);
  EXPECT_EQ(out.count, n);
  return {out.data.begin(), out.data.end()};
}

TEST(ByteStreamSplit, Floats) {
  const std::vector<float> values = {1.5f, -0.0f, 3.25e10f, -7.0f, 1e-30f};
  const Bytes plain = plain_bytes(values);
  const Bytes encoded = split(plain, 4);
  ASSERT_NE(encoded, plain);
  EXPECT_EQ(decode_in_two(PhysicalType::FLOAT, 0, encoded, values.size()), plain);
}

TEST(ByteStreamSplit, DoublesAndIntegers) {
  const std::vector<double> doubles = {1.0, -2.5, 1e300, 0.1, -0.0, 42.0, 7.0};
  EXPECT_EQ(decode_in_two(PhysicalType::DOUBLE, 0, split(plain_bytes(doubles), 8), 7),
            plain_bytes(doubles));
  const std::vector<int32_t> ints = {1, -1, 0x12345678, INT32_MIN};
  EXPECT_EQ(decode_in_two(PhysicalType::INT32, 0, split(plain_bytes(ints), 4), 4),
            plain_bytes(ints));
  const std::vector<int64_t> longs = {1, -1, 0x123456789abcdef0, INT64_MIN, 5};
  EXPECT_EQ(decode_in_two(PhysicalType::INT64, 0, split(plain_bytes(longs), 8), 5),
            plain_bytes(longs));
}

TEST(ByteStreamSplit, FixedLengthByteArrays) {
  const Bytes float16s = {0x00, 0x3c, 0x00, 0xc0, 0xff, 0x7b};  // 1, -2, 65504
  EXPECT_EQ(decode_in_two(PhysicalType::FIXED_LEN_BYTE_ARRAY, 2, split(float16s, 2), 3), float16s);
  Bytes wide;
  for (int i = 0; i < 5 * 7; ++i) wide.push_back(static_cast<uint8_t>(i * 11));
  EXPECT_EQ(decode_in_two(PhysicalType::FIXED_LEN_BYTE_ARRAY, 7, split(wide, 7), 5), wide);
}

TEST(ByteStreamSplit, EmptyPage) {
  ByteStreamSplitDecoder decoder(8);
  decoder.set_data({}, 4);
  ValueBuffer out = ValueBuffer::for_type(PhysicalType::DOUBLE, 0);
  decoder.decode(0, out);
  EXPECT_THROW(decoder.decode(1, out), FormatError);
}

TEST(ByteStreamSplit, SizeNotAMultipleOfTheWidthThrows) {
  ByteStreamSplitDecoder decoder(4);
  const Bytes data(10, 1);
  EXPECT_THROW(decoder.set_data(data, 3), FormatError);
}

TEST(ByteStreamSplit, TooManyValuesRequestedThrows) {
  ByteStreamSplitDecoder decoder(4);
  const Bytes data(12, 1);
  decoder.set_data(data, 10);
  ValueBuffer out = ValueBuffer::for_type(PhysicalType::FLOAT, 0);
  decoder.decode(2, out);
  EXPECT_THROW(decoder.decode(2, out), FormatError);
  decoder.decode(1, out);
  EXPECT_EQ(out.count, 3u);
}

}  // namespace
}  // namespace kbdata::parquet
