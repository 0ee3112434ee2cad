// The value and level encoders: byte-exact checks against encodings worked out by hand from the
// Parquet spec, and round trips through the existing decoders.

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "parquet/encoding/boolean_rle_decoder.h"
#include "parquet/encoding/delta_binary_packed.h"
#include "parquet/encoding/delta_encoder.h"
#include "parquet/encoding/dictionary_decoder.h"
#include "parquet/encoding/dictionary_encoder.h"
#include "parquet/encoding/level_decoder.h"
#include "parquet/encoding/plain_decoder.h"
#include "parquet/encoding/plain_encoder.h"
#include "parquet/encoding/rle_bit_packed.h"
#include "parquet/encoding/rle_encoder.h"
#include "parquet/encoding/value_decoders.h"
#include "parquet/values.h"

namespace kbdata::parquet {
namespace {

using Bytes = std::vector<uint8_t>;

// The value counts every encoder is tried on: around a group of 8, a miniblock of 32 and a block
// of 128.
const std::vector<size_t> kCounts = {0, 1, 2, 7, 8, 9, 31, 32, 33, 127, 128, 129, 130, 1000};

template <typename T>
ValueBuffer fixed_buffer(PhysicalType type, const std::vector<T>& values) {
  ValueBuffer buffer = ValueBuffer::for_type(type, sizeof(T));
  buffer.data.resize(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(buffer.data.data(), values.data(), buffer.data.size());
  buffer.count = values.size();
  return buffer;
}

ValueBuffer boolean_buffer(const std::vector<uint8_t>& values) {
  ValueBuffer buffer = ValueBuffer::for_type(PhysicalType::BOOLEAN, 0);
  buffer.data.assign(values.begin(), values.end());
  buffer.count = values.size();
  return buffer;
}

ValueBuffer string_buffer(const std::vector<std::string>& values) {
  ValueBuffer buffer = ValueBuffer::for_type(PhysicalType::BYTE_ARRAY, 0);
  for (const std::string& value : values) {
    buffer.append_binary({reinterpret_cast<const uint8_t*>(value.data()), value.size()});
  }
  return buffer;
}

// Values [begin, end) of `values` as a buffer of their own.
ValueBuffer slice(const ValueBuffer& values, size_t begin, size_t end) {
  ValueBuffer out = ValueBuffer::for_type(values.type, values.width);
  for (size_t i = begin; i < end; ++i) {
    auto bytes = values.bytes(i);
    if (values.is_binary()) {
      out.append_binary(bytes);
    } else {
      out.data.insert(out.data.end(), bytes.begin(), bytes.end());
      ++out.count;
    }
  }
  return out;
}

void expect_same_values(const ValueBuffer& expected, const ValueBuffer& actual) {
  ASSERT_EQ(expected.count, actual.count);
  for (size_t i = 0; i < expected.count; ++i) {
    auto e = expected.bytes(i);
    auto a = actual.bytes(i);
    ASSERT_EQ(Bytes(e.begin(), e.end()), Bytes(a.begin(), a.end())) << "value " << i;
  }
}

// Decodes `n` values of `encoded` with the reader's decoder of `encoding` and checks they are
// `expected`.
void expect_decodes_to(Encoding encoding, const Bytes& encoded, const ValueBuffer& expected) {
  auto decoder = make_value_decoder(encoding, expected.type, expected.width);
  decoder->set_data(encoded, expected.count);
  ValueBuffer decoded = ValueBuffer::for_type(expected.type, expected.width);
  decoder->decode(expected.count, decoded);
  expect_same_values(expected, decoded);
}

std::vector<int32_t> random_int32(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<int32_t> values(n);
  for (auto& value : values) value = static_cast<int32_t>(rng());
  return values;
}

std::vector<std::string> random_strings(size_t n, size_t max_length, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::string> values(n);
  for (auto& value : values) {
    value.resize(rng() % (max_length + 1));
    for (char& c : value) c = static_cast<char>(rng());
  }
  return values;
}

// --- The RLE / bit-packed hybrid ---

std::vector<uint32_t> hybrid_round_trip(const std::vector<uint32_t>& values, int bit_width,
                                        Bytes* encoded_out = nullptr) {
  RleBitPackedEncoder encoder(bit_width);
  for (uint32_t value : values) encoder.put(value);
  Bytes encoded;
  encoder.flush(encoded);
  if (encoded_out != nullptr) *encoded_out = encoded;
  RleBitPackedDecoder decoder(encoded, bit_width);
  // The reader asks for exactly the values it expects; ask for more to see the padding is at
  // most one partial group.
  std::vector<uint32_t> decoded(values.size() + 64);
  const size_t got = decoder.get_batch(decoded.data(), decoded.size());
  EXPECT_GE(got, values.size());
  EXPECT_LT(got, values.size() + 8);
  decoded.resize(std::min(got, values.size()));
  return decoded;
}

TEST(RleEncoder, BitWidthFor) {
  EXPECT_EQ(bit_width_for(0), 0);
  EXPECT_EQ(bit_width_for(1), 1);
  EXPECT_EQ(bit_width_for(2), 2);
  EXPECT_EQ(bit_width_for(3), 2);
  EXPECT_EQ(bit_width_for(4), 3);
  EXPECT_EQ(bit_width_for(255), 8);
  EXPECT_EQ(bit_width_for(256), 9);
  EXPECT_EQ(bit_width_for(UINT32_MAX), 32);
  EXPECT_EQ(bit_width_for(UINT64_MAX), 64);
}

TEST(RleEncoder, SpecExampleBitPackedWidth3) {
  // The spec's bit-packing example: 0..7 at width 3 pack to 10001000 11000110 11111010. Eight
  // distinct values are one bit-packed run of one group: header (1 << 1 | 1) = 3.
  Bytes encoded;
  hybrid_round_trip({0, 1, 2, 3, 4, 5, 6, 7}, 3, &encoded);
  EXPECT_EQ(encoded, (Bytes{0x03, 0x88, 0xC6, 0xFA}));
}

TEST(RleEncoder, LongRunIsOneRleRun) {
  // 1000 sevens at width 3: header 1000 << 1 = 2000 = ULEB D0 0F, then the value in one byte.
  Bytes encoded;
  const std::vector<uint32_t> values(1000, 7);
  EXPECT_EQ(hybrid_round_trip(values, 3, &encoded), values);
  EXPECT_EQ(encoded, (Bytes{0xD0, 0x0F, 0x07}));

  // put_repeated() writes the same bytes, and a value of width 17 takes 3 bytes.
  RleBitPackedEncoder encoder(17);
  encoder.put_repeated(0x1ABCD, 1000);
  Bytes repeated;
  encoder.flush(repeated);
  EXPECT_EQ(repeated, (Bytes{0xD0, 0x0F, 0xCD, 0xAB, 0x01}));
}

TEST(RleEncoder, ShortTailRunHasExactCount) {
  // Three equal values and nothing pending: an RLE run of exactly 3 (header 6).
  Bytes encoded;
  EXPECT_EQ(hybrid_round_trip({5, 5, 5}, 3, &encoded), (std::vector<uint32_t>{5, 5, 5}));
  EXPECT_EQ(encoded, (Bytes{0x06, 0x05}));
}

TEST(RleEncoder, MixedRunsKnownBytes) {
  // 1, 2 then twelve 4s at width 3. The first group [1 2 4 4 4 4 4 4] is not all equal, so it is
  // bit-packed and the repeat count restarts at the group boundary. The last six 4s are all equal
  // but a bit-packed run is still pending, so they join it as a zero-padded group: one run of two
  // groups, header 2 << 1 | 1 = 5.
  //   group 1: 001 010 100 100 100 100 100 100 -> bits LSB first:
  //            byte0 = 1 | 2<<3 | (4<<6 & 0xff) = 0x01 | 0x10 | 0x00 = 0x11
  //            value 2 (4) spans bits 6..8: bit 8 set -> byte1 bit 0;
  //            values 3..7 (4 each) put bit 2 of each at bits 11, 14, 17, 20, 23
  //            byte1 = bit8 | bit11 | bit14 = 0x01 | 0x08 | 0x40 = 0x49
  //            byte2 = bit17 | bit20 | bit23 = 0x02 | 0x10 | 0x80 = 0x92
  //   group 2: six 4s and two 0s of padding: bits 2, 5, 8, 11, 14, 17
  //            byte0 = 0x04 | 0x20 = 0x24, byte1 = 0x01 | 0x08 | 0x40 = 0x49, byte2 = 0x02
  std::vector<uint32_t> values = {1, 2};
  values.insert(values.end(), 12, 4);
  Bytes encoded;
  EXPECT_EQ(hybrid_round_trip(values, 3, &encoded), values);
  EXPECT_EQ(encoded, (Bytes{0x05, 0x11, 0x49, 0x92, 0x24, 0x49, 0x02}));
}

TEST(RleEncoder, RunAfterLiteralGroup) {
  // A literal group, then a group-aligned run of 20 nines, then one 1: literal run of one group,
  // RLE run of 20, and the last value as an RLE run of 1.
  std::vector<uint32_t> values = {0, 1, 2, 3, 4, 5, 6, 7};
  values.insert(values.end(), 20, 9);
  values.push_back(1);
  Bytes encoded;
  EXPECT_EQ(hybrid_round_trip(values, 4, &encoded), values);
  EXPECT_EQ(encoded, (Bytes{0x03, 0x10, 0x32, 0x54, 0x76, 40, 0x09, 0x02, 0x01}));
}

TEST(RleEncoder, LiteralRunsAreCappedAt63Groups) {
  // 1000 distinct-ish values (no group repeats): bit-packed runs of at most 63 groups, whose
  // headers fit in one byte (63 << 1 | 1 = 127).
  std::vector<uint32_t> values(1000);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<uint32_t>(i % 13);
  Bytes encoded;
  EXPECT_EQ(hybrid_round_trip(values, 4, &encoded), values);
  EXPECT_EQ(encoded[0], 127);
  // 125 groups: runs of 63 and 62, each group 4 bytes.
  EXPECT_EQ(encoded.size(), 1 + 63 * 4 + 1 + 62 * 4u);
  EXPECT_EQ(encoded[1 + 63 * 4], 62 << 1 | 1);
}

TEST(RleEncoder, EveryBitWidthRoundTrips) {
  std::mt19937 rng(42);
  for (int bit_width = 0; bit_width <= 32; ++bit_width) {
    const uint32_t mask = bit_width == 32 ? UINT32_MAX : (uint32_t{1} << bit_width) - 1;
    for (size_t n : kCounts) {
      // Random values; random values in runs of random length; the extremes 0 and max.
      std::vector<uint32_t> random(n), runs, extremes(n);
      for (auto& value : random) value = rng() & mask;
      while (runs.size() < n) {
        const uint32_t value = rng() & mask;
        const size_t length = std::min<size_t>(n - runs.size(), rng() % 40 + 1);
        runs.insert(runs.end(), length, value);
      }
      for (size_t i = 0; i < n; ++i) extremes[i] = (i / 3) % 2 == 0 ? mask : 0;
      for (const auto* values : {&random, &runs, &extremes}) {
        EXPECT_EQ(hybrid_round_trip(*values, bit_width), *values)
            << "bit width " << bit_width << ", " << n << " values";
      }
    }
  }
}

TEST(RleEncoder, EmptyInputIsEmptyAndEncoderIsReusable) {
  RleBitPackedEncoder encoder(5);
  Bytes encoded;
  encoder.flush(encoded);
  EXPECT_TRUE(encoded.empty());
  encoder.put(3);
  encoder.flush(encoded);
  EXPECT_EQ(encoded, (Bytes{0x02, 0x03}));
  // After flush the encoder starts afresh: a repeat of the last value is a new run.
  encoder.put(3);
  encoder.flush(encoded);
  EXPECT_EQ(encoded, (Bytes{0x02, 0x03, 0x02, 0x03}));
}

TEST(RleEncoder, PutRepeatedMatchesPut) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    RleBitPackedEncoder one(6), many(6);
    for (int run = 0; run < 20; ++run) {
      const uint32_t value = rng() % 4;
      const size_t count = rng() % 3 == 0 ? rng() % 100 : rng() % 5;
      for (size_t i = 0; i < count; ++i) one.put(value);
      many.put_repeated(value, count);
    }
    Bytes a, b;
    one.flush(a);
    many.flush(b);
    ASSERT_EQ(a, b) << "trial " << trial;
  }
}

TEST(RleEncoder, HugeRunRoundTrips) {
  RleBitPackedEncoder encoder(1);
  encoder.put_repeated(1, 3'000'000'000ULL);  // more than one run header can count
  encoder.put(0);
  Bytes encoded;
  encoder.flush(encoded);
  RleBitPackedDecoder decoder(encoded, 1);
  EXPECT_EQ(decoder.skip(3'000'000'000ULL), 3'000'000'000ULL);
  uint32_t last = 7;
  EXPECT_EQ(decoder.get_batch(&last, 1), 1u);
  EXPECT_EQ(last, 0u);
}

// --- Levels ---

TEST(LevelEncoder, RoundTripsThroughLevelDecoder) {
  std::mt19937 rng(3);
  for (int max_level : {1, 2, 3, 7, 100, 32767}) {
    for (size_t n : kCounts) {
      std::vector<int16_t> levels(n);
      for (size_t i = 0; i < n; ++i) {
        levels[i] = static_cast<int16_t>(rng() % 4 == 0 ? rng() % (max_level + 1) : max_level);
      }
      Bytes encoded;
      encode_levels(levels, max_level, encoded);
      LevelDecoder v2;
      v2.set_data_v2(max_level, encoded);
      std::vector<int16_t> decoded(n);
      v2.decode(n, decoded.data());
      EXPECT_EQ(decoded, levels) << "max level " << max_level << ", " << n << " levels";

      // The v1 form: the caller's 4-byte length prefix in front, then the values section.
      Bytes page = {static_cast<uint8_t>(encoded.size()), static_cast<uint8_t>(encoded.size() >> 8),
                    static_cast<uint8_t>(encoded.size() >> 16), 0};
      page.insert(page.end(), encoded.begin(), encoded.end());
      page.push_back(0xEE);
      LevelDecoder v1;
      EXPECT_EQ(v1.set_data_v1(Encoding::RLE, max_level, page, n), encoded.size() + 4);
      v1.decode(n, decoded.data());
      EXPECT_EQ(decoded, levels);
    }
  }
}

TEST(LevelEncoder, KnownBytesAndMaxLevelZero) {
  // Definition levels 1,1,1,0 at max level 1: not all equal, so one padded bit-packed group:
  // bits 1,1,1,0,0,0,0,0 -> 0x07.
  Bytes encoded;
  const std::vector<int16_t> levels = {1, 1, 1, 0};
  encode_levels(levels, 1, encoded);
  EXPECT_EQ(encoded, (Bytes{0x03, 0x07}));
  // Max level 0: no levels are stored.
  Bytes none;
  const std::vector<int16_t> zeros(10, 0);
  encode_levels(zeros, 0, none);
  EXPECT_TRUE(none.empty());
}

// --- PLAIN ---

template <typename T>
void check_plain_fixed(PhysicalType type, const std::vector<T>& all) {
  const ValueBuffer buffer = fixed_buffer(type, all);
  for (size_t n : kCounts) {
    if (n > all.size()) continue;
    // From an offset, so that begin matters.
    const size_t begin = all.size() - n;
    Bytes encoded = {0xAA};  // encoders append
    encode_plain(buffer, begin, all.size(), encoded);
    ASSERT_EQ(encoded.size(), 1 + n * sizeof(T));
    EXPECT_EQ(encoded[0], 0xAA);
    EXPECT_EQ(plain_encoded_size(buffer, begin, all.size()), n * sizeof(T));
    expect_decodes_to(Encoding::PLAIN, Bytes(encoded.begin() + 1, encoded.end()),
                      slice(buffer, begin, all.size()));
  }
}

TEST(PlainEncoder, FixedWidthTypesRoundTrip) {
  std::vector<int32_t> int32 = random_int32(1000, 1);
  int32[0] = INT32_MIN;
  int32[999] = INT32_MAX;
  check_plain_fixed(PhysicalType::INT32, int32);
  std::vector<int64_t> int64(1000);
  for (size_t i = 0; i < int64.size(); ++i) {
    int64[i] =
        i % 2 == 0 ? INT64_MIN + static_cast<int64_t>(i) : INT64_MAX - static_cast<int64_t>(i);
  }
  check_plain_fixed(PhysicalType::INT64, int64);
  std::vector<double> doubles(1000);
  for (size_t i = 0; i < doubles.size(); ++i) doubles[i] = std::sqrt(static_cast<double>(i)) - 7;
  doubles[5] = std::numeric_limits<double>::quiet_NaN();
  doubles[6] = -0.0;
  check_plain_fixed(PhysicalType::DOUBLE, doubles);
  std::vector<float> floats(1000, -1.5f);
  check_plain_fixed(PhysicalType::FLOAT, floats);
}

TEST(PlainEncoder, FixedLenByteArrayAndInt96) {
  ValueBuffer flba = ValueBuffer::for_type(PhysicalType::FIXED_LEN_BYTE_ARRAY, 3);
  for (int i = 0; i < 129; ++i) {
    flba.data.insert(flba.data.end(), {static_cast<uint8_t>(i), 0xFF, static_cast<uint8_t>(~i)});
    ++flba.count;
  }
  Bytes encoded;
  encode_plain(flba, 0, flba.count, encoded);
  EXPECT_EQ(encoded, std::vector<uint8_t>(flba.data.begin(), flba.data.end()));
  expect_decodes_to(Encoding::PLAIN, encoded, flba);

  ValueBuffer int96 = ValueBuffer::for_type(PhysicalType::INT96, 0);
  for (int i = 0; i < 9; ++i) {
    for (int b = 0; b < 12; ++b) int96.data.push_back(static_cast<uint8_t>(i * 12 + b));
    ++int96.count;
  }
  encoded.clear();
  encode_plain(int96, 0, int96.count, encoded);
  expect_decodes_to(Encoding::PLAIN, encoded, int96);
}

TEST(PlainEncoder, BooleanKnownBytes) {
  // 1,0,1,1,0,0,0,0 | 1 -> LSB first 0b00001101, then 0b00000001 (zero-padded).
  const ValueBuffer values = boolean_buffer({1, 0, 1, 1, 0, 0, 0, 0, 1});
  Bytes encoded;
  encode_plain(values, 0, values.count, encoded);
  EXPECT_EQ(encoded, (Bytes{0x0D, 0x01}));
  expect_decodes_to(Encoding::PLAIN, encoded, values);
}

TEST(PlainEncoder, BooleanRoundTrips) {
  std::mt19937 rng(11);
  std::vector<uint8_t> all(1000);
  for (auto& value : all) value = rng() % 2;
  const ValueBuffer buffer = boolean_buffer(all);
  for (size_t n : kCounts) {
    const size_t begin = all.size() - n;  // an unaligned start: bits restart at the first value
    Bytes encoded;
    encode_plain(buffer, begin, all.size(), encoded);
    EXPECT_EQ(encoded.size(), (n + 7) / 8);
    expect_decodes_to(Encoding::PLAIN, encoded, slice(buffer, begin, all.size()));
  }
}

TEST(PlainEncoder, ByteArrayKnownBytesAndRoundTrip) {
  const ValueBuffer values = string_buffer({"ab", "", "c"});
  Bytes encoded;
  encode_plain(values, 0, values.count, encoded);
  EXPECT_EQ(encoded, (Bytes{2, 0, 0, 0, 'a', 'b', 0, 0, 0, 0, 1, 0, 0, 0, 'c'}));
  expect_decodes_to(Encoding::PLAIN, encoded, values);

  std::vector<std::string> strings = random_strings(1000, 50, 5);
  strings[3] = "";
  strings[500] = std::string(1 << 20, 'x');  // a large value: its length needs 3 bytes
  const ValueBuffer buffer = string_buffer(strings);
  for (size_t n : kCounts) {
    const size_t begin = strings.size() - n;
    Bytes out;
    encode_plain(buffer, begin, strings.size(), out);
    EXPECT_EQ(out.size(), plain_encoded_size(buffer, begin, strings.size()));
    expect_decodes_to(Encoding::PLAIN, out, slice(buffer, begin, strings.size()));
  }
  const ValueBuffer empties = string_buffer(std::vector<std::string>(9, ""));
  Bytes out;
  encode_plain(empties, 0, empties.count, out);
  EXPECT_EQ(out, Bytes(36, 0));
  expect_decodes_to(Encoding::PLAIN, out, empties);
}

// --- RLE booleans ---

TEST(BooleanRleEncoder, KnownBytes) {
  // Ten trues: an RLE run of 10 (header 20) with the value in one byte; length prefix 2.
  Bytes encoded;
  encode_boolean_rle(boolean_buffer(std::vector<uint8_t>(10, 1)), 0, 10, encoded);
  EXPECT_EQ(encoded, (Bytes{2, 0, 0, 0, 20, 1}));
  // No values: the prefix alone, length 0.
  Bytes empty;
  encode_boolean_rle(boolean_buffer({}), 0, 0, empty);
  EXPECT_EQ(empty, (Bytes{0, 0, 0, 0}));
  expect_decodes_to(Encoding::RLE, empty, boolean_buffer({}));
}

TEST(BooleanRleEncoder, RoundTrips) {
  std::mt19937 rng(13);
  for (size_t n : kCounts) {
    std::vector<uint8_t> random(n), runs;
    for (auto& value : random) value = rng() % 2;
    while (runs.size() < n)
      runs.insert(runs.end(), std::min<size_t>(n - runs.size(), rng() % 30 + 1), rng() % 2);
    for (const auto* values : {&random, &runs}) {
      const ValueBuffer buffer = boolean_buffer(*values);
      Bytes encoded;
      encode_boolean_rle(buffer, 0, n, encoded);
      expect_decodes_to(Encoding::RLE, encoded, buffer);
    }
  }
}

// --- Dictionary ---

ValueBuffer decode_dictionary(const DictionaryEncoder& encoder) {
  Bytes page;
  encoder.encode_dictionary(page);
  EXPECT_EQ(page.size(), encoder.plain_size());
  const ValueBuffer& entries = encoder.values();
  auto plain = make_plain_decoder(entries.type, entries.width);
  plain->set_data(page, entries.count);
  ValueBuffer dictionary = ValueBuffer::for_type(entries.type, entries.width);
  plain->decode(entries.count, dictionary);
  return dictionary;
}

// Dictionary-encodes `values` and decodes them back through the reader's dictionary decoder.
void check_dictionary_round_trip(const ValueBuffer& values, size_t expected_entries) {
  DictionaryEncoder encoder(values.type, values.width);
  std::vector<uint32_t> indices;
  encoder.insert_range(values, 0, values.count, indices);
  EXPECT_EQ(encoder.size(), expected_entries);
  Bytes page;
  encode_dictionary_indices(indices, encoder.size(), page);
  EXPECT_EQ(page[0], dictionary_index_bit_width(encoder.size()));
  DictionaryDecoder decoder(decode_dictionary(encoder));
  decoder.set_data(page, values.count);
  ValueBuffer decoded = ValueBuffer::for_type(values.type, values.width);
  decoder.decode(values.count, decoded);
  expect_same_values(values, decoded);
}

TEST(DictionaryEncoder, ComparesByBytes) {
  const double quiet_nan = std::numeric_limits<double>::quiet_NaN();
  const double other_nan = std::bit_cast<double>(std::bit_cast<uint64_t>(quiet_nan) | 1);
  const ValueBuffer values = fixed_buffer(
      PhysicalType::DOUBLE,
      std::vector<double>{0.0, -0.0, quiet_nan, other_nan, 0.0, quiet_nan, -0.0, other_nan, 1.5});
  DictionaryEncoder encoder(PhysicalType::DOUBLE, 8);
  std::vector<uint32_t> indices;
  encoder.insert_range(values, 0, values.count, indices);
  EXPECT_EQ(indices, (std::vector<uint32_t>{0, 1, 2, 3, 0, 2, 1, 3, 4}));
  EXPECT_EQ(encoder.size(), 5u);
  EXPECT_EQ(encoder.plain_size(), 40u);
  check_dictionary_round_trip(values, 5);
}

TEST(DictionaryEncoder, StringsDedupAndRoundTrip) {
  const ValueBuffer small = string_buffer({"b", "", "a", "b", "", "ab", "a"});
  DictionaryEncoder encoder(PhysicalType::BYTE_ARRAY, 0);
  std::vector<uint32_t> indices;
  encoder.insert_range(small, 0, small.count, indices);
  EXPECT_EQ(indices, (std::vector<uint32_t>{0, 1, 2, 0, 1, 3, 2}));
  // PLAIN: 4 + 1, 4 + 0, 4 + 1, 4 + 2.
  EXPECT_EQ(encoder.plain_size(), 20u);
  Bytes page;
  encoder.encode_dictionary(page);
  EXPECT_EQ(page, (Bytes{1, 0, 0, 0, 'b', 0, 0, 0, 0, 1, 0, 0, 0, 'a', 2, 0, 0, 0, 'a', 'b'}));

  // Many entries (the table grows several times), with repeats and one large string.
  std::vector<std::string> distinct = random_strings(5000, 20, 17);
  for (size_t i = 0; i < distinct.size(); ++i) distinct[i] += std::to_string(i);  // all distinct
  distinct[10] = std::string(100000, 'z');
  std::vector<std::string> all = distinct;
  std::mt19937 rng(19);
  for (int i = 0; i < 20000; ++i) all.push_back(distinct[rng() % distinct.size()]);
  check_dictionary_round_trip(string_buffer(all), distinct.size());

  // clear() empties the dictionary; indices restart at 0.
  encoder.clear();
  EXPECT_EQ(encoder.size(), 0u);
  EXPECT_EQ(encoder.plain_size(), 0u);
  EXPECT_EQ(encoder.insert(small, 2), 0u);
  EXPECT_EQ(encoder.insert(small, 0), 1u);
  EXPECT_EQ(encoder.insert(small, 6), 0u);
}

TEST(DictionaryEncoder, FixedWidthTypesRoundTrip) {
  for (size_t n : kCounts) {
    std::vector<int32_t> int32 = random_int32(n, 23);
    for (auto& value : int32) value %= 50;  // repeats
    ValueBuffer buffer = fixed_buffer(PhysicalType::INT32, int32);
    DictionaryEncoder counter(PhysicalType::INT32, 4);
    for (size_t i = 0; i < n; ++i) counter.insert(buffer, i);
    check_dictionary_round_trip(buffer, counter.size());
  }
  std::vector<int64_t> int64(3000);
  for (size_t i = 0; i < int64.size(); ++i) int64[i] = static_cast<int64_t>(i % 1500) << 40;
  check_dictionary_round_trip(fixed_buffer(PhysicalType::INT64, int64), 1500);

  ValueBuffer flba = ValueBuffer::for_type(PhysicalType::FIXED_LEN_BYTE_ARRAY, 5);
  for (int i = 0; i < 300; ++i) {
    flba.data.insert(flba.data.end(), {1, 2, 3, 4, static_cast<uint8_t>(i % 7)});
    ++flba.count;
  }
  DictionaryEncoder flba_encoder(PhysicalType::FIXED_LEN_BYTE_ARRAY, 5);
  for (size_t i = 0; i < flba.count; ++i) flba_encoder.insert(flba, i);
  EXPECT_EQ(flba_encoder.plain_size(), 35u);
  check_dictionary_round_trip(flba, 7);

  const ValueBuffer booleans = boolean_buffer({1, 1, 0, 1, 0, 0, 0, 0, 1, 1});
  DictionaryEncoder boolean_encoder(PhysicalType::BOOLEAN, 1);
  for (size_t i = 0; i < booleans.count; ++i) boolean_encoder.insert(booleans, i);
  EXPECT_EQ(boolean_encoder.plain_size(), 1u);
  check_dictionary_round_trip(booleans, 2);
}

TEST(DictionaryIndices, BitWidthAndKnownBytes) {
  EXPECT_EQ(dictionary_index_bit_width(0), 0);
  EXPECT_EQ(dictionary_index_bit_width(1), 1);
  EXPECT_EQ(dictionary_index_bit_width(2), 1);
  EXPECT_EQ(dictionary_index_bit_width(3), 2);
  EXPECT_EQ(dictionary_index_bit_width(4), 2);
  EXPECT_EQ(dictionary_index_bit_width(5), 3);
  EXPECT_EQ(dictionary_index_bit_width(size_t{1} << 32), 32);

  // Twelve zeros into a one-entry dictionary: width byte 1, an RLE run of 12 (header 24).
  Bytes page;
  encode_dictionary_indices(std::vector<uint32_t>(12, 0), 1, page);
  EXPECT_EQ(page, (Bytes{1, 24, 0}));
  // No indices: the width byte alone.
  Bytes empty;
  encode_dictionary_indices({}, 0, empty);
  EXPECT_EQ(empty, (Bytes{0}));
  DictionaryDecoder decoder(ValueBuffer::for_type(PhysicalType::INT32, 0));
  decoder.set_data(empty, 0);
  ValueBuffer none = ValueBuffer::for_type(PhysicalType::INT32, 0);
  decoder.decode(0, none);
  EXPECT_EQ(none.count, 0u);
}

// --- DELTA_BINARY_PACKED ---

TEST(DeltaEncoder, SpecExamples) {
  // The spec's example 1, values 1..5: deltas all 1, min delta 1, every width 0.
  //   header: block 128 = 80 01, 4 miniblocks, 5 values, first value zigzag(1) = 2
  //   block:  min delta zigzag(1) = 2, widths 0 0 0 0, no data
  Bytes encoded;
  encode_delta_binary_packed(fixed_buffer(PhysicalType::INT32, std::vector<int32_t>{1, 2, 3, 4, 5}),
                             0, 5, encoded);
  EXPECT_EQ(encoded, (Bytes{0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00}));

  // The spec's example 2, values 7 5 3 1 2 3 4 5: deltas -2 -2 -2 1 1 1 1, min delta -2,
  // relative deltas 0 0 0 3 3 3 3 at width 2 (then 25 zeros of padding, 8 bytes in all):
  //   header: 80 01 04 08, first value zigzag(7) = 14
  //   block:  min delta zigzag(-2) = 3, widths 2 0 0 0,
  //           data 0b11000000 (0 0 0 3), 0b00111111 (3 3 3 0), then six zero bytes
  encoded.clear();
  encode_delta_binary_packed(
      fixed_buffer(PhysicalType::INT64, std::vector<int64_t>{7, 5, 3, 1, 2, 3, 4, 5}), 0, 8,
      encoded);
  EXPECT_EQ(encoded, (Bytes{0x80, 0x01, 0x04, 0x08, 0x0E, 0x03, 0x02, 0x00, 0x00, 0x00, 0xC0, 0x3F,
                            0, 0, 0, 0, 0, 0}));
}

TEST(DeltaEncoder, EmptyAndSingleValueAreAHeader) {
  Bytes empty;
  encode_delta_binary_packed_int32({}, empty);
  EXPECT_EQ(empty, (Bytes{0x80, 0x01, 0x04, 0x00, 0x00}));
  expect_decodes_to(Encoding::DELTA_BINARY_PACKED, empty,
                    fixed_buffer(PhysicalType::INT32, std::vector<int32_t>{}));

  Bytes one;
  const std::vector<int64_t> value = {-3};
  encode_delta_binary_packed_int64(value, one);
  EXPECT_EQ(one, (Bytes{0x80, 0x01, 0x04, 0x01, 0x05}));
  expect_decodes_to(Encoding::DELTA_BINARY_PACKED, one, fixed_buffer(PhysicalType::INT64, value));
}

TEST(DeltaEncoder, LastBlockLayout) {
  // 1 + 33 values: one block of 33 deltas, miniblocks 0 and 1 used (1 padded to 32 deltas),
  // 2 and 3 width 0 with no data. Deltas alternate 5 / 0, delta 32 being 5 (width 3 in both): 2 *
  // 32 * 3 / 8 = 24 bytes.
  std::vector<int32_t> values = {100};
  for (int i = 0; i < 33; ++i) values.push_back(values.back() + (i % 2 == 0 ? 5 : 0));
  Bytes encoded;
  encode_delta_binary_packed_int32(values, encoded);
  // header 80 01 04 22 zigzag(100) = C8 01; min delta 0; widths
  const Bytes head = {0x80, 0x01, 0x04, 0x22, 0xC8, 0x01, 0x00, 0x03, 0x03, 0x00, 0x00};
  ASSERT_EQ(encoded.size(), head.size() + 24);
  EXPECT_EQ(Bytes(encoded.begin(), encoded.begin() + head.size()), head);
  expect_decodes_to(Encoding::DELTA_BINARY_PACKED, encoded,
                    fixed_buffer(PhysicalType::INT32, values));
  // The stream ends exactly where the encoder stopped.
  DeltaBitPackedStream stream;
  stream.reset(encoded, 32);
  EXPECT_EQ(stream.end_offset(), encoded.size());
}

TEST(DeltaEncoder, Int32RoundTrips) {
  for (size_t n : kCounts) {
    std::vector<std::vector<int32_t>> cases;
    cases.push_back(random_int32(n, 29));
    std::vector<int32_t> extremes(n), ramp(n), constant(n, -77), small = random_int32(n, 31);
    for (size_t i = 0; i < n; ++i) {
      extremes[i] = i % 2 == 0 ? INT32_MIN : INT32_MAX;
      ramp[i] = static_cast<int32_t>(i * 3) - 1000;
      small[i] %= 100;
    }
    cases.push_back(extremes);
    cases.push_back(ramp);
    cases.push_back(constant);
    cases.push_back(small);
    for (const auto& values : cases) {
      const ValueBuffer buffer = fixed_buffer(PhysicalType::INT32, values);
      Bytes a, b;
      encode_delta_binary_packed(buffer, 0, n, a);
      encode_delta_binary_packed_int32(values, b);
      EXPECT_EQ(a, b);
      expect_decodes_to(Encoding::DELTA_BINARY_PACKED, a, buffer);
      DeltaBitPackedStream stream;
      stream.reset(a, 32);
      EXPECT_EQ(stream.end_offset(), a.size());
    }
  }
  // The extremes alternating make every delta wrap: the widths must be 32, never 33.
  Bytes encoded;
  const std::vector<int32_t> extremes = {INT32_MIN, INT32_MAX, INT32_MIN, INT32_MAX, INT32_MIN};
  encode_delta_binary_packed_int32(extremes, encoded);
  expect_decodes_to(Encoding::DELTA_BINARY_PACKED, encoded,
                    fixed_buffer(PhysicalType::INT32, extremes));
  // The decoders accept up to 64 bits (PARQUET-2435); a stream limited to 32 checks the writer.
  DeltaBitPackedStream stream;
  stream.reset(encoded, 32);
  EXPECT_NO_THROW((void)stream.end_offset());
}

TEST(DeltaEncoder, Int64RoundTrips) {
  std::mt19937_64 rng(37);
  for (size_t n : kCounts) {
    std::vector<int64_t> random(n), extremes(n), mixed(n);
    for (size_t i = 0; i < n; ++i) {
      random[i] = static_cast<int64_t>(rng());
      extremes[i] = i % 2 == 0 ? INT64_MIN : INT64_MAX;
      mixed[i] = i % 3 == 0 ? INT64_MIN : static_cast<int64_t>(i);
    }
    for (const auto* values : {&random, &extremes, &mixed}) {
      const ValueBuffer buffer = fixed_buffer(PhysicalType::INT64, *values);
      // Encoded from an offset of a larger buffer too.
      ValueBuffer padded = fixed_buffer(PhysicalType::INT64, std::vector<int64_t>{1, 2, 3});
      padded.data.insert(padded.data.end(), buffer.data.begin(), buffer.data.end());
      padded.count += n;
      Bytes a, b;
      encode_delta_binary_packed(buffer, 0, n, a);
      encode_delta_binary_packed(padded, 3, 3 + n, b);
      EXPECT_EQ(a, b);
      expect_decodes_to(Encoding::DELTA_BINARY_PACKED, a, buffer);
    }
  }
}

// --- DELTA_LENGTH_BYTE_ARRAY ---

TEST(DeltaLengthByteArrayEncoder, KnownBytes) {
  // "ab", "", "xyz": lengths 2 0 3 (first 2, deltas -2 3, min -2, relative 0 5 at width 3:
  // bits 000 101 -> 0b00101000 = 0x28, then 11 zero bytes of padding), then "abxyz".
  Bytes encoded;
  const ValueBuffer values = string_buffer({"ab", "", "xyz"});
  encode_delta_length_byte_array(values, 0, 3, encoded);
  Bytes expected = {0x80, 0x01, 0x04, 0x03, 0x04, 0x03, 0x03, 0x00, 0x00, 0x00, 0x28};
  expected.insert(expected.end(), 11, 0);
  expected.insert(expected.end(), {'a', 'b', 'x', 'y', 'z'});
  EXPECT_EQ(encoded, expected);
  expect_decodes_to(Encoding::DELTA_LENGTH_BYTE_ARRAY, encoded, values);
}

TEST(DeltaLengthByteArrayEncoder, RoundTrips) {
  std::vector<std::string> strings = random_strings(1000, 40, 41);
  for (size_t i = 0; i < strings.size(); i += 7) strings[i].clear();
  strings[77] = std::string(3 << 20, 'q');
  const ValueBuffer buffer = string_buffer(strings);
  for (size_t n : kCounts) {
    const size_t begin = strings.size() - n;
    Bytes encoded;
    encode_delta_length_byte_array(buffer, begin, strings.size(), encoded);
    expect_decodes_to(Encoding::DELTA_LENGTH_BYTE_ARRAY, encoded,
                      slice(buffer, begin, strings.size()));
  }
  const ValueBuffer empties = string_buffer(std::vector<std::string>(200, ""));
  Bytes encoded;
  encode_delta_length_byte_array(empties, 0, empties.count, encoded);
  expect_decodes_to(Encoding::DELTA_LENGTH_BYTE_ARRAY, encoded, empties);
  Bytes none;
  encode_delta_length_byte_array(empties, 5, 5, none);
  EXPECT_EQ(none, (Bytes{0x80, 0x01, 0x04, 0x00, 0x00}));
  expect_decodes_to(Encoding::DELTA_LENGTH_BYTE_ARRAY, none, string_buffer({}));
}

}  // namespace
}  // namespace kbdata::parquet
