// The value and level decoders, fed byte sequences built here by hand per the Parquet spec.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/error.h"
#include "parquet/encoding/boolean_rle_decoder.h"
#include "parquet/encoding/dictionary_decoder.h"
#include "parquet/encoding/level_decoder.h"
#include "parquet/encoding/plain_decoder.h"
#include "parquet/encoding/rle_bit_packed.h"
#include "parquet/values.h"
#include "support/compact_writer.h"

namespace kbdata::parquet {
namespace {

using Bytes = std::vector<uint8_t>;

// --- A reference encoder, written from the spec independently of the decoders. ---

using kbdata::testing::put_uleb;

void put_le32(Bytes& out, uint32_t value) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(value >> (8 * i)));
}

// `values` packed least significant bit first, bit_width bits each, padded to whole bytes.
Bytes pack_lsb(const std::vector<uint32_t>& values, int bit_width) {
  Bytes out((values.size() * bit_width + 7) / 8, 0);
  size_t bit = 0;
  for (uint32_t value : values) {
    for (int b = 0; b < bit_width; ++b, ++bit) {
      if ((value >> b) & 1) out[bit / 8] |= static_cast<uint8_t>(1 << (bit % 8));
    }
  }
  return out;
}

// A bit-packed run of `values`, padded with zeros to a whole number of groups.
void put_bit_packed_run(Bytes& out, std::vector<uint32_t> values, int bit_width) {
  while (values.size() % 8 != 0) values.push_back(0);
  put_uleb(out, (values.size() / 8) << 1 | 1);
  Bytes packed = pack_lsb(values, bit_width);
  out.insert(out.end(), packed.begin(), packed.end());
}

void put_rle_run(Bytes& out, uint32_t value, uint64_t count, int bit_width) {
  put_uleb(out, count << 1);
  for (int i = 0; i < (bit_width + 7) / 8; ++i)
    out.push_back(static_cast<uint8_t>(value >> (8 * i)));
}

std::vector<uint32_t> random_values(size_t n, int bit_width, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint32_t> values(n);
  const uint64_t mask = bit_width == 0 ? 0 : (uint64_t{1} << bit_width) - 1;
  for (auto& v : values) v = static_cast<uint32_t>(rng() & mask);
  return values;
}

std::vector<uint32_t> decode_all(RleBitPackedDecoder& decoder, size_t n, size_t batch) {
  std::vector<uint32_t> out(n + 16, 0xdeadbeef);
  size_t done = 0;
  while (done < n) {
    const size_t got = decoder.get_batch(out.data() + done, std::min(batch, n - done));
    if (got == 0) break;
    done += got;
  }
  out.resize(done);
  return out;
}

ValueBuffer make_buffer(PhysicalType type, int width) {
  ValueBuffer buffer;
  buffer.type = type;
  buffer.width = width;
  return buffer;
}

template <typename T>
Bytes plain_bytes(const std::vector<T>& values) {
  Bytes out(values.size() * sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), values.data(), out.size());
  return out;
}

template <typename Fn>
std::string format_error_message(Fn&& fn) {
  try {
    fn();
  } catch (const FormatError& error) {
    return error.what();
  }
  return "(no FormatError)";
}

// --- RLE / bit-packed hybrid ---

TEST(RleBitPacked, SpecExampleBitPackedWidth3) {
  // parquet-format Encodings.md: 0..7 at bit width 3 is 10001000 11000110 11111010.
  const Bytes data = {0x03, 0x88, 0xC6, 0xFA};
  RleBitPackedDecoder decoder(data, 3);
  EXPECT_EQ(decode_all(decoder, 8, 8), (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  uint32_t extra;
  EXPECT_EQ(decoder.get_batch(&extra, 1), 0u);
}

TEST(RleBitPacked, RleRunKnownBytes) {
  // 300 times the value 0x1234 at bit width 13: header ULEB128(600) = D8 04, value in 2 bytes.
  const Bytes data = {0xD8, 0x04, 0x34, 0x12};
  RleBitPackedDecoder decoder(data, 13);
  auto values = decode_all(decoder, 400, 64);
  ASSERT_EQ(values.size(), 300u);
  for (uint32_t v : values) EXPECT_EQ(v, 0x1234u);
}

TEST(RleBitPacked, EveryBitWidthRoundTrips) {
  for (int bw = 0; bw <= 32; ++bw) {
    SCOPED_TRACE("bit width " + std::to_string(bw));
    const auto packed = random_values(8 * 37, bw, 100 + bw);
    const uint32_t repeated = bw == 0 ? 0 : static_cast<uint32_t>((uint64_t{1} << bw) - 1);
    Bytes data;
    put_bit_packed_run(data, packed, bw);
    put_rle_run(data, repeated, 21, bw);
    put_bit_packed_run(data, packed, bw);
    std::vector<uint32_t> expected = packed;
    expected.insert(expected.end(), 21, repeated);
    expected.insert(expected.end(), packed.begin(), packed.end());
    for (size_t batch : {1, 3, 7, 8, 9, 64, 1000}) {
      RleBitPackedDecoder decoder(data, bw);
      EXPECT_EQ(decode_all(decoder, expected.size() + 5, batch), expected) << "batch " << batch;
    }
  }
}

TEST(RleBitPacked, BatchesSplitGroupsAndRuns) {
  const int bw = 5;
  const auto a = random_values(24, bw, 1);
  const auto b = random_values(16, bw, 2);
  Bytes data;
  put_bit_packed_run(data, a, bw);
  put_rle_run(data, 17, 10, bw);
  put_bit_packed_run(data, b, bw);
  std::vector<uint32_t> expected = a;
  expected.insert(expected.end(), 10, 17);
  expected.insert(expected.end(), b.begin(), b.end());

  RleBitPackedDecoder decoder(data, bw);
  std::vector<uint32_t> got;
  for (size_t batch : {5, 6, 14, 2, 9, 13, 1, 50}) {
    std::vector<uint32_t> out(batch);
    out.resize(decoder.get_batch(out.data(), batch));
    got.insert(got.end(), out.begin(), out.end());
  }
  EXPECT_EQ(got, expected);
}

TEST(RleBitPacked, FinalRunEndingMidGroupStopsAtTheData) {
  // Header declares 2 groups (16 values) at bit width 3, but the writer wrote only the bytes of
  // 5 values (ceil(15 / 8) = 2 bytes): 5 values come out, then end of data.
  const std::vector<uint32_t> values = {1, 2, 3, 4, 5};
  Bytes data;
  put_uleb(data, 2 << 1 | 1);
  Bytes packed = pack_lsb(values, 3);
  ASSERT_EQ(packed.size(), 2u);
  data.insert(data.end(), packed.begin(), packed.end());
  RleBitPackedDecoder decoder(data, 3);
  EXPECT_EQ(decode_all(decoder, 16, 16), values);
}

TEST(RleBitPacked, FinalRunWithPartialSecondGroup) {
  const auto values = random_values(11, 7, 3);
  Bytes data;
  put_uleb(data, 2 << 1 | 1);
  Bytes packed = pack_lsb(values, 7);  // ceil(77 / 8) = 10 bytes of the 14 declared
  data.insert(data.end(), packed.begin(), packed.end());
  for (size_t batch : {1, 4, 8, 16}) {
    RleBitPackedDecoder decoder(data, 7);
    EXPECT_EQ(decode_all(decoder, 16, batch), values) << "batch " << batch;
  }
}

TEST(RleBitPacked, GroupWithNoBytesIsEndOfData) {
  Bytes data;
  put_rle_run(data, 2, 3, 2);
  put_uleb(data, 1 << 1 | 1);  // one group declared, no bytes follow
  RleBitPackedDecoder decoder(data, 2);
  EXPECT_EQ(decode_all(decoder, 10, 10), (std::vector<uint32_t>{2, 2, 2}));
}

TEST(RleBitPacked, GroupWithTooFewBitsForOneValueIsEndOfData) {
  // Bit width 17, one group declared, 2 bytes (16 bits) left: no value is complete.
  const Bytes data = {0x03, 0x05, 0x00};
  RleBitPackedDecoder decoder(data, 17);
  uint32_t out[8];
  EXPECT_EQ(decoder.get_batch(out, 8), 0u);
  EXPECT_EQ(decoder.get_batch(out, 8), 0u);
}

TEST(RleBitPacked, ZeroLengthRunsAreSkipped) {
  Bytes data;
  put_rle_run(data, 1, 0, 1);
  put_uleb(data, 0 << 1 | 1);
  put_rle_run(data, 1, 2, 1);
  RleBitPackedDecoder decoder(data, 1);
  EXPECT_EQ(decode_all(decoder, 5, 5), (std::vector<uint32_t>{1, 1}));
}

TEST(RleBitPacked, HugeRleRunYieldsOnlyWhatIsAsked) {
  Bytes data;
  put_rle_run(data, 9, 0x7fffffff, 4);
  RleBitPackedDecoder decoder(data, 4);
  std::vector<uint32_t> out(10);
  EXPECT_EQ(decoder.get_batch(out.data(), 10), 10u);
  EXPECT_EQ(out, std::vector<uint32_t>(10, 9));
}

TEST(RleBitPacked, BitWidthZeroBitPackedRun) {
  Bytes data;
  put_uleb(data, 3 << 1 | 1);  // 24 zeros, no bytes
  RleBitPackedDecoder decoder(data, 0);
  EXPECT_EQ(decode_all(decoder, 30, 7), std::vector<uint32_t>(24, 0));
}

TEST(RleBitPacked, Skip) {
  const int bw = 9;
  const auto a = random_values(40, bw, 4);
  Bytes data;
  put_bit_packed_run(data, a, bw);
  put_rle_run(data, 300, 20, bw);
  put_bit_packed_run(data, a, bw);
  std::vector<uint32_t> all = a;
  all.insert(all.end(), 20, 300);
  all.insert(all.end(), a.begin(), a.end());

  RleBitPackedDecoder decoder(data, bw);
  std::vector<uint32_t> got;
  size_t position = 0;
  std::vector<uint32_t> expected;
  for (auto [skip, take] :
       std::vector<std::pair<size_t, size_t>>{{3, 2}, {16, 5}, {0, 1}, {30, 3}, {9, 10}}) {
    EXPECT_EQ(decoder.skip(skip), skip);
    position += skip;
    std::vector<uint32_t> out(take);
    EXPECT_EQ(decoder.get_batch(out.data(), take), take);
    expected.insert(expected.end(), all.begin() + position, all.begin() + position + take);
    got.insert(got.end(), out.begin(), out.end());
    position += take;
  }
  EXPECT_EQ(got, expected);
  EXPECT_EQ(decoder.skip(1000), all.size() - position);
}

TEST(RleBitPacked, MalformedInputThrows) {
  EXPECT_THROW(RleBitPackedDecoder({}, 33), FormatError);
  EXPECT_THROW(RleBitPackedDecoder({}, -1), FormatError);

  uint32_t out[8];
  {
    const Bytes data = {0x08};  // RLE run of 4 at bit width 9: value needs 2 bytes, none left
    RleBitPackedDecoder decoder(data, 9);
    EXPECT_THROW(decoder.get_batch(out, 1), FormatError);
  }
  {
    const Bytes data = {0x08, 0x01};  // value needs 2 bytes, 1 left
    RleBitPackedDecoder decoder(data, 9);
    EXPECT_THROW(decoder.get_batch(out, 1), FormatError);
  }
  {
    const Bytes data = {0x80};  // header continues past the end
    RleBitPackedDecoder decoder(data, 1);
    EXPECT_THROW(decoder.get_batch(out, 1), FormatError);
  }
  {
    const Bytes data = {0x80, 0x80, 0x80, 0x80, 0x80, 0x01};  // header longer than 5 bytes
    RleBitPackedDecoder decoder(data, 1);
    EXPECT_THROW(decoder.get_batch(out, 1), FormatError);
  }
  {
    const Bytes data = {0xFE, 0xFF, 0xFF, 0xFF, 0x7F};  // 35-bit header
    RleBitPackedDecoder decoder(data, 1);
    EXPECT_THROW(decoder.get_batch(out, 1), FormatError);
  }
  {
    const Bytes data = {0x02, 0x04};  // RLE value 4 at bit width 2
    RleBitPackedDecoder decoder(data, 2);
    EXPECT_THROW(decoder.get_batch(out, 1), FormatError);
  }
}

TEST(RleBitPacked, DefaultDecoderIsEmpty) {
  RleBitPackedDecoder decoder;
  uint32_t out;
  EXPECT_EQ(decoder.get_batch(&out, 1), 0u);
}

// --- Levels ---

TEST(LevelDecoder, BitWidth) {
  EXPECT_EQ(LevelDecoder::bit_width(0), 0);
  EXPECT_EQ(LevelDecoder::bit_width(1), 1);
  EXPECT_EQ(LevelDecoder::bit_width(2), 2);
  EXPECT_EQ(LevelDecoder::bit_width(3), 2);
  EXPECT_EQ(LevelDecoder::bit_width(4), 3);
  EXPECT_EQ(LevelDecoder::bit_width(7), 3);
  EXPECT_EQ(LevelDecoder::bit_width(8), 4);
  EXPECT_EQ(LevelDecoder::bit_width(32767), 15);
}

TEST(LevelDecoder, V1RleWithLengthPrefix) {
  Bytes hybrid;
  put_rle_run(hybrid, 1, 5, 2);
  put_bit_packed_run(hybrid, {0, 1, 2, 2, 0, 1, 0, 2}, 2);
  Bytes page;
  put_le32(page, static_cast<uint32_t>(hybrid.size()));
  page.insert(page.end(), hybrid.begin(), hybrid.end());
  page.push_back(0xEE);  // the values section that follows
  page.push_back(0xEE);

  LevelDecoder decoder;
  EXPECT_EQ(decoder.set_data_v1(Encoding::RLE, 2, page, 13), 4 + hybrid.size());
  std::vector<int16_t> levels(13);
  decoder.decode(6, levels.data());
  decoder.decode(7, levels.data() + 6);
  EXPECT_EQ(levels, (std::vector<int16_t>{1, 1, 1, 1, 1, 0, 1, 2, 2, 0, 1, 0, 2}));
  int16_t extra;
  EXPECT_THROW(decoder.decode(1, &extra), FormatError);  // past the data
}

TEST(LevelDecoder, V1LengthPrefixOverrunsThePage) {
  Bytes page;
  put_le32(page, 10);
  page.insert(page.end(), {0x02, 0x01, 0x00});
  LevelDecoder decoder;
  EXPECT_THROW(decoder.set_data_v1(Encoding::RLE, 1, page, 1), FormatError);
  const Bytes short_page = {0x02, 0x00};
  EXPECT_THROW(decoder.set_data_v1(Encoding::RLE, 1, short_page, 1), FormatError);
  Bytes huge;
  put_le32(huge, 0xFFFFFFFF);
  EXPECT_THROW(decoder.set_data_v1(Encoding::RLE, 1, huge, 1), FormatError);
}

TEST(LevelDecoder, V1LegacyBitPackedSpecExample) {
  // parquet-format Encodings.md: 0..7 at bit width 3, MSB first: 00000101 00111001 01110111.
  const Bytes page = {0x05, 0x39, 0x77, 0xAA};
  LevelDecoder decoder;
  EXPECT_EQ(decoder.set_data_v1(Encoding::BIT_PACKED, 7, page, 8), 3u);
  std::vector<int16_t> levels(8);
  decoder.decode(3, levels.data());
  decoder.decode(5, levels.data() + 3);
  EXPECT_EQ(levels, (std::vector<int16_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  int16_t extra;
  EXPECT_THROW(decoder.decode(1, &extra), FormatError);
}

TEST(LevelDecoder, V1LegacyBitPackedWidth1AndPartialByte) {
  // 10 levels at bit width 1 take 2 bytes: 1011 0010 | 11xx xxxx.
  const Bytes page = {0xB2, 0xC0};
  LevelDecoder decoder;
  EXPECT_EQ(decoder.set_data_v1(Encoding::BIT_PACKED, 1, page, 10), 2u);
  std::vector<int16_t> levels(10);
  decoder.decode(10, levels.data());
  EXPECT_EQ(levels, (std::vector<int16_t>{1, 0, 1, 1, 0, 0, 1, 0, 1, 1}));
}

TEST(LevelDecoder, V1LegacyBitPackedErrors) {
  const Bytes page = {0x05, 0x39};
  LevelDecoder decoder;
  EXPECT_THROW(decoder.set_data_v1(Encoding::BIT_PACKED, 7, page, 8), FormatError);  // needs 3
  // max_level 5 at bit width 3: the level 7 is out of range.
  const Bytes bad = {0xFF};
  EXPECT_EQ(decoder.set_data_v1(Encoding::BIT_PACKED, 5, bad, 2), 1u);
  int16_t levels[2];
  EXPECT_THROW(decoder.decode(1, levels), FormatError);
}

TEST(LevelDecoder, V1OtherEncodingIsUnsupported) {
  const Bytes page = {0, 0, 0, 0};
  LevelDecoder decoder;
  try {
    decoder.set_data_v1(Encoding::PLAIN, 1, page, 1);
    ADD_FAILURE() << "no error";
  } catch (const UnsupportedError& error) {
    EXPECT_STREQ(error.what(), "level encoding PLAIN is not supported");
  }
}

TEST(LevelDecoder, V2AndLevelAboveMax) {
  Bytes levels_bytes;
  put_bit_packed_run(levels_bytes, {0, 1, 3, 2, 1, 0, 0, 3}, 2);
  LevelDecoder decoder;
  decoder.set_data_v2(3, levels_bytes);
  std::vector<int16_t> levels(8);
  decoder.decode(8, levels.data());
  EXPECT_EQ(levels, (std::vector<int16_t>{0, 1, 3, 2, 1, 0, 0, 3}));

  decoder.set_data_v2(2, levels_bytes);  // bit width 2 still, but 3 > max_level 2
  EXPECT_THROW(decoder.decode(8, levels.data()), FormatError);
}

TEST(LevelDecoder, TooFewLevelsThrows) {
  Bytes levels_bytes;
  put_rle_run(levels_bytes, 1, 4, 1);
  LevelDecoder decoder;
  decoder.set_data_v2(1, levels_bytes);
  std::vector<int16_t> levels(5);
  EXPECT_THROW(decoder.decode(5, levels.data()), FormatError);
  // Truncated run: the header promises an RLE value that is missing.
  const Bytes truncated = {0x08};
  decoder.set_data_v2(300, truncated);
  EXPECT_THROW(decoder.decode(1, levels.data()), FormatError);
}

TEST(LevelDecoder, ManyLevelsAcrossScratchChunks) {
  const auto values = random_values(5000, 2, 7);
  Bytes page;
  Bytes hybrid;
  put_bit_packed_run(hybrid, std::vector<uint32_t>(values.begin(), values.begin() + 2000), 2);
  put_rle_run(hybrid, 3, 1000, 2);
  put_bit_packed_run(hybrid, std::vector<uint32_t>(values.begin() + 3000, values.end()), 2);
  put_le32(page, static_cast<uint32_t>(hybrid.size()));
  page.insert(page.end(), hybrid.begin(), hybrid.end());
  LevelDecoder decoder;
  EXPECT_EQ(decoder.set_data_v1(Encoding::RLE, 3, page, 5000), page.size());
  std::vector<int16_t> levels(5000);
  decoder.decode(5000, levels.data());
  for (size_t i = 0; i < 5000; ++i) {
    const uint32_t expected = i >= 2000 && i < 3000 ? 3 : values[i];
    ASSERT_EQ(levels[i], static_cast<int16_t>(expected)) << i;
  }
}

// count() passes levels as decode() reads them: on RLE and bit-packed runs of every width in
// use (width 1 counted by bytes), requests splitting groups and runs, and the deprecated
// BIT_PACKED encoding; its errors are decode()'s.
TEST(LevelDecoder, CountAgreesWithDecode) {
  for (int max_level : {1, 2, 3, 5, 7, 300}) {
    const int width = LevelDecoder::bit_width(max_level);
    const auto values = random_values(3000, width, static_cast<uint32_t>(max_level));
    Bytes hybrid;
    std::vector<uint32_t> all;
    auto capped = [&](size_t from, size_t to) {
      std::vector<uint32_t> v(values.begin() + static_cast<long>(from),
                              values.begin() + static_cast<long>(to));
      for (uint32_t& x : v) x = std::min<uint32_t>(x, static_cast<uint32_t>(max_level));
      return v;
    };
    const std::vector<uint32_t> a = capped(0, 1200), c = capped(1704, 3000);
    put_bit_packed_run(hybrid, a, width);
    put_rle_run(hybrid, static_cast<uint32_t>(max_level), 500, width);
    put_bit_packed_run(hybrid, c, width);
    all.insert(all.end(), a.begin(), a.end());
    all.insert(all.end(), 500, static_cast<uint32_t>(max_level));
    all.insert(all.end(), c.begin(), c.end());
    for (int16_t level : {int16_t{0}, static_cast<int16_t>(max_level)}) {
      LevelDecoder counted;
      counted.set_data_v2(max_level, hybrid);
      // Requests counted and decoded in turn (so that each resumes where the other stopped),
      // splitting groups and runs; the 500-value RLE run lies in the 1,000 counted from 1,037.
      size_t at = 0, request = 0;
      for (size_t step : {3, 8, 13, 1, 1005, 7, 1000, 256, 5, 698}) {
        ASSERT_LE(at + step, all.size());
        if (request++ % 2 == 0) {
          const size_t expected = static_cast<size_t>(std::count_if(
              all.begin() + static_cast<long>(at), all.begin() + static_cast<long>(at + step),
              [&](uint32_t v) { return v == static_cast<uint32_t>(level); }));
          EXPECT_EQ(counted.count(step, level), expected)
              << "max " << max_level << " at " << at << " step " << step;
        } else {
          std::vector<int16_t> levels(step);
          counted.decode(step, levels.data());
          for (size_t i = 0; i < step; ++i) {
            ASSERT_EQ(levels[i], static_cast<int16_t>(all[at + i])) << at + i;
          }
        }
        at += step;
      }
      EXPECT_EQ(at, all.size());
      EXPECT_THROW(counted.count(1, level), FormatError);  // past the data
    }
  }
  // A level above the max (bit width 2, max 2), and the deprecated encoding.
  Bytes over;
  put_bit_packed_run(over, {0, 1, 3, 2, 1, 0, 0, 3}, 2);
  LevelDecoder decoder;
  decoder.set_data_v2(2, over);
  EXPECT_THROW(decoder.count(8, 1), FormatError);
  const Bytes packed = {0xB2, 0xC0};  // 1011 0010 | 11: ten levels at width 1, MSB first
  EXPECT_EQ(decoder.set_data_v1(Encoding::BIT_PACKED, 1, packed, 10), 2u);
  EXPECT_EQ(decoder.count(4, 1), 3u);
  EXPECT_EQ(decoder.count(6, 0), 3u);
  EXPECT_THROW(decoder.count(1, 0), FormatError);
}

TEST(LevelDecoder, MaxLevelZeroHasNoLevels) {
  const Bytes page = {1, 2, 3};
  LevelDecoder decoder;
  EXPECT_EQ(decoder.set_data_v1(Encoding::RLE, 0, page, 3), 0u);
  std::vector<int16_t> levels(3, 7);
  decoder.decode(3, levels.data());
  EXPECT_EQ(levels, std::vector<int16_t>(3, 0));
  EXPECT_THROW(decoder.set_data_v2(-1, page), FormatError);
  EXPECT_THROW(decoder.set_data_v2(40000, page), FormatError);
}

// --- PLAIN ---

TEST(PlainDecoder, FixedWidthTypes) {
  {
    const std::vector<int32_t> values = {1, -2, 3, 2147483647, -2147483647 - 1};
    const Bytes data = plain_bytes(values);
    auto decoder = make_plain_decoder(PhysicalType::INT32, 0);
    decoder->set_data(data, values.size());
    auto out = make_buffer(PhysicalType::INT32, 4);
    decoder->decode(2, out);
    decoder->decode(3, out);
    ASSERT_EQ(out.count, 5u);
    for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(out.get<int32_t>(i), values[i]);
    EXPECT_THROW(decoder->decode(1, out), FormatError);
    EXPECT_EQ(out.count, 5u);
  }
  {
    const std::vector<int64_t> values = {INT64_MIN, 0, INT64_MAX};
    const Bytes data = plain_bytes(values);
    auto decoder = make_plain_decoder(PhysicalType::INT64, 0);
    decoder->set_data(data, values.size());
    auto out = make_buffer(PhysicalType::INT64, 8);
    decoder->decode(3, out);
    for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(out.get<int64_t>(i), values[i]);
  }
  {
    const std::vector<float> values = {1.5f, -0.0f, 3.25f};
    const Bytes data = plain_bytes(values);
    auto decoder = make_plain_decoder(PhysicalType::FLOAT, 0);
    decoder->set_data(data, values.size());
    auto out = make_buffer(PhysicalType::FLOAT, 4);
    decoder->decode(3, out);
    for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(out.get<float>(i), values[i]);
  }
  {
    const std::vector<double> values = {1e300, -2.5};
    const Bytes data = plain_bytes(values);
    auto decoder = make_plain_decoder(PhysicalType::DOUBLE, 0);
    decoder->set_data(data, values.size());
    auto out = make_buffer(PhysicalType::DOUBLE, 8);
    decoder->decode(2, out);
    for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(out.get<double>(i), values[i]);
  }
}

TEST(PlainDecoder, Int96AndFixedLenByteArray) {
  Bytes data(36);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i);
  auto int96 = make_plain_decoder(PhysicalType::INT96, 0);
  int96->set_data(data, 3);
  auto out96 = make_buffer(PhysicalType::INT96, 12);
  int96->decode(1, out96);
  int96->decode(2, out96);
  EXPECT_EQ(out96.data, data);
  EXPECT_EQ(out96.bytes(2)[0], 24);

  auto flba = make_plain_decoder(PhysicalType::FIXED_LEN_BYTE_ARRAY, 5);
  flba->set_data(data, 7);
  auto out = make_buffer(PhysicalType::FIXED_LEN_BYTE_ARRAY, 5);
  flba->decode(7, out);
  EXPECT_EQ(out.count, 7u);
  EXPECT_EQ(out.bytes(6)[4], 34);
  EXPECT_THROW(flba->decode(1, out), FormatError);  // 1 byte left of a 5-byte value

  EXPECT_THROW(make_plain_decoder(PhysicalType::FIXED_LEN_BYTE_ARRAY, 0), FormatError);
  EXPECT_THROW(make_plain_decoder(PhysicalType::FIXED_LEN_BYTE_ARRAY, -3), FormatError);
  EXPECT_THROW(make_plain_decoder(static_cast<PhysicalType>(42), 0), FormatError);
}

TEST(PlainDecoder, FixedWidthFewerBytesThanValues) {
  const Bytes data = {1, 0, 0, 0, 2, 0, 0};  // one INT32 and three bytes
  auto decoder = make_plain_decoder(PhysicalType::INT32, 0);
  decoder->set_data(data, 2);
  auto out = make_buffer(PhysicalType::INT32, 4);
  EXPECT_THROW(decoder->decode(2, out), FormatError);
  EXPECT_EQ(out.count, 0u);
  decoder->decode(1, out);
  EXPECT_EQ(out.get<int32_t>(0), 1);
}

TEST(PlainDecoder, Boolean) {
  // 19 values LSB first: 1,0,1,1,0,0,0,1 | 0,1,1,1,1,1,1,1 | 1,0,1
  const Bytes data = {0x8D, 0xFE, 0x05};
  const std::vector<uint8_t> expected = {1, 0, 1, 1, 0, 0, 0, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1};
  for (size_t first : {0, 1, 3, 8, 11, 19}) {
    auto decoder = make_plain_decoder(PhysicalType::BOOLEAN, 0);
    decoder->set_data(data, 19);
    auto out = make_buffer(PhysicalType::BOOLEAN, 1);
    decoder->decode(first, out);
    decoder->decode(19 - first, out);
    EXPECT_EQ(out.data, expected) << "first batch " << first;
    EXPECT_EQ(out.count, 19u);
    EXPECT_THROW(decoder->decode(1, out), FormatError);  // past num_values
  }
  auto decoder = make_plain_decoder(PhysicalType::BOOLEAN, 0);
  decoder->set_data(data, 100);  // num_values larger than the bytes hold
  auto out = make_buffer(PhysicalType::BOOLEAN, 1);
  EXPECT_THROW(decoder->decode(25, out), FormatError);
  decoder->decode(24, out);
  EXPECT_EQ(out.count, 24u);
}

TEST(PlainDecoder, ByteArray) {
  Bytes data;
  const std::vector<std::string> values = {"hello", "", "parquet", std::string(1000, 'x'), "z"};
  for (const auto& v : values) {
    put_le32(data, static_cast<uint32_t>(v.size()));
    data.insert(data.end(), v.begin(), v.end());
  }
  auto decoder = make_plain_decoder(PhysicalType::BYTE_ARRAY, 0);
  decoder->set_data(data, values.size());
  auto out = make_buffer(PhysicalType::BYTE_ARRAY, 0);
  decoder->decode(2, out);
  decoder->decode(3, out);
  ASSERT_EQ(out.count, values.size());
  ASSERT_EQ(out.offsets.size(), values.size() + 1);
  for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(out.string(i), values[i]);
  EXPECT_THROW(decoder->decode(1, out), FormatError);
}

TEST(PlainDecoder, ByteArrayOverrunsThrow) {
  {
    Bytes data;
    put_le32(data, 3);
    data.insert(data.end(), {'a', 'b', 'c'});
    put_le32(data, 5);  // only 4 bytes follow
    data.insert(data.end(), {'d', 'e', 'f', 'g'});
    auto decoder = make_plain_decoder(PhysicalType::BYTE_ARRAY, 0);
    decoder->set_data(data, 2);
    auto out = make_buffer(PhysicalType::BYTE_ARRAY, 0);
    const std::string message = format_error_message([&] { decoder->decode(2, out); });
    EXPECT_NE(message.find("overruns"), std::string::npos) << message;
    EXPECT_EQ(out.count, 0u);  // nothing appended on error
    EXPECT_EQ(out.offsets.size(), 1u);
    decoder->decode(1, out);
    EXPECT_EQ(out.string(0), "abc");
  }
  {
    Bytes data;
    put_le32(data, 0xFFFFFFFF);
    auto decoder = make_plain_decoder(PhysicalType::BYTE_ARRAY, 0);
    decoder->set_data(data, 1);
    auto out = make_buffer(PhysicalType::BYTE_ARRAY, 0);
    EXPECT_THROW(decoder->decode(1, out), FormatError);
  }
  {
    const Bytes data = {0x01, 0x00};  // length cut off
    auto decoder = make_plain_decoder(PhysicalType::BYTE_ARRAY, 0);
    decoder->set_data(data, 1);
    auto out = make_buffer(PhysicalType::BYTE_ARRAY, 0);
    EXPECT_THROW(decoder->decode(1, out), FormatError);
  }
}

// --- Dictionary ---

DictionaryDecoder int32_dictionary(const std::vector<int32_t>& values) {
  auto dictionary = make_buffer(PhysicalType::INT32, 4);
  const auto bytes = plain_bytes(values);
  dictionary.data.assign(bytes.begin(), bytes.end());
  dictionary.count = values.size();
  return DictionaryDecoder(std::move(dictionary));
}

TEST(DictionaryDecoder, GathersFixedWidth) {
  const std::vector<int32_t> dict = {100, 200, 300, 400, 500};
  auto decoder = int32_dictionary(dict);
  std::vector<uint32_t> indices = {4, 0, 1, 2, 3, 3, 2, 1, 0, 4, 4};
  Bytes data = {3};
  put_rle_run(data, 2, 3000, 3);
  put_bit_packed_run(data, indices, 3);
  decoder.set_data(data, 3000 + indices.size());
  auto out = make_buffer(PhysicalType::INT32, 4);
  decoder.decode(1500, out);
  decoder.decode(1500 + indices.size(), out);
  ASSERT_EQ(out.count, 3000 + indices.size());
  for (size_t i = 0; i < 3000; ++i) ASSERT_EQ(out.get<int32_t>(i), 300);
  for (size_t i = 0; i < indices.size(); ++i) {
    EXPECT_EQ(out.get<int32_t>(3000 + i), dict[indices[i]]);
  }
  EXPECT_THROW(decoder.decode(1, out), FormatError);  // past num_values
}

TEST(DictionaryDecoder, GathersByteArray) {
  auto dictionary = make_buffer(PhysicalType::BYTE_ARRAY, 0);
  for (std::string v : {"alpha", "", "gamma"}) {
    dictionary.append_binary({reinterpret_cast<const uint8_t*>(v.data()), v.size()});
  }
  DictionaryDecoder decoder(std::move(dictionary));
  Bytes data = {2};
  put_bit_packed_run(data, {2, 1, 0, 0, 2}, 2);
  decoder.set_data(data, 5);
  auto out = make_buffer(PhysicalType::BYTE_ARRAY, 0);
  decoder.decode(5, out);
  ASSERT_EQ(out.count, 5u);
  EXPECT_EQ(out.string(0), "gamma");
  EXPECT_EQ(out.string(1), "");
  EXPECT_EQ(out.string(2), "alpha");
  EXPECT_EQ(out.string(3), "alpha");
  EXPECT_EQ(out.string(4), "gamma");
}

TEST(DictionaryDecoder, RefusesABatchLargerThanTheCapBeforeAllocating) {
  // One dictionary string of 1 MiB + 1 byte, repeated 1024 times by a 3-byte RLE run: the gather
  // would need just over 1 GiB.
  auto dictionary = make_buffer(PhysicalType::BYTE_ARRAY, 0);
  std::vector<uint8_t> big((size_t{1} << 20) + 1, 'x');
  dictionary.append_binary(big);
  DictionaryDecoder decoder(std::move(dictionary));
  Bytes data = {1, 0x80, 0x10, 0x00};  // bit width 1; RLE run of 1024 (header 2048) of index 0
  decoder.set_data(data, 1024);
  auto out = make_buffer(PhysicalType::BYTE_ARRAY, 0);
  EXPECT_THROW(decoder.decode(1024, out), FormatError);
  EXPECT_LT(out.data.capacity(), size_t{1} << 30);
}

TEST(DictionaryDecoder, GathersOddWidths) {
  for (int width : {3, 12}) {
    auto dictionary = make_buffer(PhysicalType::FIXED_LEN_BYTE_ARRAY, width);
    dictionary.count = 4;
    for (int i = 0; i < 4 * width; ++i) dictionary.data.push_back(static_cast<uint8_t>(i));
    DictionaryDecoder decoder(std::move(dictionary));
    Bytes data = {2};
    put_bit_packed_run(data, {3, 0, 2}, 2);
    decoder.set_data(data, 3);
    auto out = make_buffer(PhysicalType::FIXED_LEN_BYTE_ARRAY, width);
    decoder.decode(3, out);
    ASSERT_EQ(out.data.size(), static_cast<size_t>(3 * width));
    EXPECT_EQ(out.bytes(0)[0], 3 * width);
    EXPECT_EQ(out.bytes(1)[width - 1], width - 1);
    EXPECT_EQ(out.bytes(2)[1], 2 * width + 1);
  }
}

TEST(DictionaryDecoder, IndexOutOfRange) {
  auto decoder = int32_dictionary({7, 8, 9});
  Bytes data = {3};
  put_bit_packed_run(data, {0, 1, 5}, 3);
  decoder.set_data(data, 3);
  auto out = make_buffer(PhysicalType::INT32, 4);
  const std::string message = format_error_message([&] { decoder.decode(3, out); });
  EXPECT_NE(message.find("dictionary index 5 out of range (dictionary has 3 values)"),
            std::string::npos)
      << message;
}

TEST(DictionaryDecoder, IndexEqualToSizeIsOutOfRange) {
  auto decoder = int32_dictionary({7, 8, 9});
  Bytes data = {2};
  put_rle_run(data, 3, 1, 2);
  decoder.set_data(data, 1);
  auto out = make_buffer(PhysicalType::INT32, 4);
  EXPECT_THROW(decoder.decode(1, out), FormatError);
}

TEST(DictionaryDecoder, BitWidthAbove32) {
  auto decoder = int32_dictionary({1});
  const Bytes data = {33, 0x02, 0x00};
  EXPECT_THROW(decoder.set_data(data, 1), FormatError);
}

TEST(DictionaryDecoder, BitWidthZero) {
  {
    auto decoder = int32_dictionary({42});
    Bytes data = {0};
    put_rle_run(data, 0, 6, 0);
    decoder.set_data(data, 6);
    auto out = make_buffer(PhysicalType::INT32, 4);
    decoder.decode(6, out);
    for (size_t i = 0; i < 6; ++i) EXPECT_EQ(out.get<int32_t>(i), 42);
  }
  {
    // ARROW-GH-43605: bit width 0 and an empty dictionary: fine while no value is asked for.
    auto decoder = int32_dictionary({});
    Bytes data = {0};
    put_rle_run(data, 0, 6, 0);
    decoder.set_data(data, 6);
    auto out = make_buffer(PhysicalType::INT32, 4);
    decoder.decode(0, out);
    EXPECT_THROW(decoder.decode(1, out), FormatError);
  }
}

TEST(DictionaryDecoder, EmptyPageAndShortIndices) {
  auto decoder = int32_dictionary({1, 2});
  auto out = make_buffer(PhysicalType::INT32, 4);
  decoder.set_data({}, 0);
  decoder.decode(0, out);
  EXPECT_THROW(decoder.decode(1, out), FormatError);

  Bytes data = {1};
  put_rle_run(data, 1, 3, 1);
  decoder.set_data(data, 4);
  EXPECT_THROW(decoder.decode(4, out), FormatError);  // only 3 indices
}

// --- RLE booleans ---

TEST(BooleanRleDecoder, Decodes) {
  Bytes hybrid;
  put_rle_run(hybrid, 1, 10, 1);
  put_bit_packed_run(hybrid, {0, 1, 1, 0, 1, 0, 0, 1, 1}, 1);
  Bytes data;
  put_le32(data, static_cast<uint32_t>(hybrid.size()));
  data.insert(data.end(), hybrid.begin(), hybrid.end());
  BooleanRleDecoder decoder;
  decoder.set_data(data, 19);
  auto out = make_buffer(PhysicalType::BOOLEAN, 1);
  decoder.decode(4, out);
  decoder.decode(15, out);
  std::vector<uint8_t> expected(10, 1);
  for (uint8_t v : {0, 1, 1, 0, 1, 0, 0, 1, 1}) expected.push_back(v);
  EXPECT_EQ(out.data, expected);
  EXPECT_EQ(out.count, 19u);
  EXPECT_THROW(decoder.decode(1, out), FormatError);
}

TEST(BooleanRleDecoder, Errors) {
  BooleanRleDecoder decoder;
  Bytes data;
  put_le32(data, 9);
  data.insert(data.end(), {0x04, 0x01});
  EXPECT_THROW(decoder.set_data(data, 2), FormatError);  // length overruns
  const Bytes cut = {0x02, 0x00};
  EXPECT_THROW(decoder.set_data(cut, 1), FormatError);  // prefix cut off

  Bytes short_values;
  put_le32(short_values, 2);
  short_values.insert(short_values.end(), {0x04, 0x01});  // 2 values
  decoder.set_data(short_values, 3);
  auto out = make_buffer(PhysicalType::BOOLEAN, 1);
  EXPECT_THROW(decoder.decode(3, out), FormatError);
}

// skip(n) moves past values as decoding and dropping them would: the values after a skip are the
// ones a full decode gives there, for the plain and dictionary decoders, fixed width and bytes.
TEST(Decoders, SkipMovesPastValuesAsDecodingWould) {
  std::mt19937 rng(7);
  // PLAIN INT64, BOOLEAN and BYTE_ARRAY pages.
  Bytes ints, bools, strings;
  std::vector<int64_t> int_values;
  std::vector<std::string> string_values;
  for (int i = 0; i < 500; ++i) {
    const int64_t v = static_cast<int64_t>(rng()) - 1'000'000;
    int_values.push_back(v);
    for (int b = 0; b < 8; ++b)
      ints.push_back(static_cast<uint8_t>(static_cast<uint64_t>(v) >> (8 * b)));
    std::string s(rng() % 40, static_cast<char>('a' + i % 26));
    string_values.push_back(s);
    put_le32(strings, static_cast<uint32_t>(s.size()));
    strings.insert(strings.end(), s.begin(), s.end());
  }
  bools = pack_lsb(std::vector<uint32_t>(500, 1), 1);
  for (size_t i = 0; i < 500; i += 3) bools[i / 8] &= static_cast<uint8_t>(~(1u << (i % 8)));
  auto bool_value = [&](size_t i) { return i % 3 == 0 ? 0 : 1; };
  // A dictionary page's indices: an RLE run, then bit-packed ones.
  const std::vector<int32_t> dict = {7, 11, 13, 17, 19, 23, 29, 31};
  std::vector<uint32_t> indices(480);
  for (uint32_t& i : indices) i = rng() % 8;
  Bytes dict_data = {3};
  put_rle_run(dict_data, 5, 20, 3);
  put_bit_packed_run(dict_data, indices, 3);
  auto dict_value = [&](size_t i) { return i < 20 ? dict[5] : dict[indices[i - 20]]; };

  for (size_t skip : {size_t{0}, size_t{1}, size_t{7}, size_t{8}, size_t{19}, size_t{20},
                      size_t{21}, size_t{333}, size_t{499}}) {
    auto i64 = make_plain_decoder(PhysicalType::INT64, 0);
    i64->set_data(ints, 500);
    ASSERT_TRUE(i64->skip(skip));
    auto out = make_buffer(PhysicalType::INT64, 8);
    i64->decode(500 - skip, out);
    for (size_t i = skip; i < 500; ++i) ASSERT_EQ(out.get<int64_t>(i - skip), int_values[i]);
    EXPECT_THROW((void)i64->skip(1), FormatError);

    auto b = make_plain_decoder(PhysicalType::BOOLEAN, 0);
    b->set_data(bools, 500);
    ASSERT_TRUE(b->skip(skip));
    auto bout = make_buffer(PhysicalType::BOOLEAN, 1);
    b->decode(500 - skip, bout);
    for (size_t i = skip; i < 500; ++i) ASSERT_EQ(bout.data[i - skip], bool_value(i)) << i;

    auto str = make_plain_decoder(PhysicalType::BYTE_ARRAY, 0);
    str->set_data(strings, 500);
    ASSERT_TRUE(str->skip(skip));
    auto sout = make_buffer(PhysicalType::BYTE_ARRAY, 0);
    str->decode(500 - skip, sout);
    for (size_t i = skip; i < 500; ++i) ASSERT_EQ(sout.string(i - skip), string_values[i]);

    auto d = int32_dictionary(dict);
    d.set_data(dict_data, 500);
    ASSERT_TRUE(d.skip(skip));
    auto dout = make_buffer(PhysicalType::INT32, 4);
    d.decode(500 - skip, dout);
    for (size_t i = skip; i < 500; ++i) ASSERT_EQ(dout.get<int32_t>(i - skip), dict_value(i));
    EXPECT_THROW((void)d.skip(1), FormatError);
  }
  // A length that overruns the page is an error when skipped too.
  Bytes bad;
  put_le32(bad, 1000);
  auto str = make_plain_decoder(PhysicalType::BYTE_ARRAY, 0);
  str->set_data(bad, 1);
  EXPECT_THROW((void)str->skip(1), FormatError);
}

}  // namespace
}  // namespace kbdata::parquet
