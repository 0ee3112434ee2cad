// DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY, fed bytes built here by hand
// per the Parquet spec, and the value-decoder factory.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "common/error.h"
#include "parquet/encoding/delta_binary_packed.h"
#include "parquet/encoding/delta_byte_array.h"
#include "parquet/encoding/delta_length_byte_array.h"
#include "parquet/encoding/value_decoders.h"
#include "parquet/values.h"
#include "support/compact_writer.h"

namespace kbdata::parquet {
namespace {

using Bytes = std::vector<uint8_t>;

// --- A reference encoder, written from the spec independently of the decoder. ---

using kbdata::testing::put_uleb;
using kbdata::testing::put_zigzag;

int bits_needed(uint64_t value) {
  int bits = 0;
  while (value != 0) {
    ++bits;
    value >>= 1;
  }
  return bits;
}

struct DeltaOptions {
  uint64_t block_size = 128;
  uint64_t miniblocks = 4;
  bool int32 = false;
  // INT32 only: deltas computed in 64 bits without wrapping, as DuckDB 1.5 writes them (a jump
  // from INT32_MIN to INT32_MAX then needs 33 bits), and each delta offset by a multiple of 2^32
  // from delta_offsets (cycled; none when empty), which leaves the values unchanged modulo 2^32.
  bool int32_wide_deltas = false;
  std::vector<int64_t> delta_offsets;
  int unused_width = 0;  // the width byte written for miniblocks past the last value
  bool pad_last_miniblock = true;
};

// Encodes `values` (INT32 values given sign-extended) as DELTA_BINARY_PACKED; appends each used
// miniblock's bit width to *widths when given.
Bytes encode_delta(const std::vector<int64_t>& values, const DeltaOptions& o = {},
                   std::vector<int>* widths = nullptr) {
  Bytes out;
  put_uleb(out, o.block_size);
  put_uleb(out, o.miniblocks);
  put_uleb(out, values.size());
  put_zigzag(out, values.empty() ? 0 : values[0]);
  const uint64_t per_miniblock = o.block_size / o.miniblocks;
  const bool wrap32 = o.int32 && !o.int32_wide_deltas;
  const uint64_t mask = wrap32 ? 0xFFFFFFFFu : ~uint64_t{0};
  std::vector<uint64_t> deltas;
  for (size_t i = 1; i < values.size(); ++i) {
    uint64_t delta = static_cast<uint64_t>(values[i]) - static_cast<uint64_t>(values[i - 1]);
    if (o.int32_wide_deltas && !o.delta_offsets.empty()) {
      delta += static_cast<uint64_t>(o.delta_offsets[i % o.delta_offsets.size()]) << 32;
    }
    deltas.push_back(delta & mask);
  }
  auto as_signed = [&](uint64_t d) {
    return wrap32 ? static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(d)))
                  : static_cast<int64_t>(d);
  };
  for (size_t start = 0; start < deltas.size(); start += o.block_size) {
    const size_t end = std::min<size_t>(deltas.size(), start + o.block_size);
    int64_t min_delta = as_signed(deltas[start]);
    for (size_t i = start; i < end; ++i) min_delta = std::min(min_delta, as_signed(deltas[i]));
    put_zigzag(out, min_delta);
    std::vector<int> block_widths;
    for (uint64_t m = 0; m < o.miniblocks; ++m) {
      const size_t mb_start = start + m * per_miniblock;
      if (mb_start >= end) {
        block_widths.push_back(o.unused_width);
        continue;
      }
      uint64_t max = 0;
      for (size_t i = mb_start; i < std::min<size_t>(end, mb_start + per_miniblock); ++i) {
        max = std::max(max, (deltas[i] - static_cast<uint64_t>(min_delta)) & mask);
      }
      block_widths.push_back(bits_needed(max));
      if (widths != nullptr) widths->push_back(bits_needed(max));
    }
    for (int w : block_widths) out.push_back(static_cast<uint8_t>(w));
    for (uint64_t m = 0; m < o.miniblocks; ++m) {
      const size_t mb_start = start + m * per_miniblock;
      if (mb_start >= end) break;
      const int w = block_widths[m];
      Bytes packed(per_miniblock * w / 8, 0);
      const size_t used = std::min<size_t>(end - mb_start, per_miniblock);
      for (size_t i = 0; i < used; ++i) {
        const uint64_t v = (deltas[mb_start + i] - static_cast<uint64_t>(min_delta)) & mask;
        for (int b = 0; b < w; ++b) {
          const size_t bit = i * w + b;
          if ((v >> b) & 1) packed[bit / 8] |= static_cast<uint8_t>(1 << (bit % 8));
        }
      }
      if (!o.pad_last_miniblock && end == deltas.size() && mb_start + per_miniblock >= end) {
        packed.resize((used * w + 7) / 8);
      }
      out.insert(out.end(), packed.begin(), packed.end());
    }
  }
  return out;
}

std::vector<int64_t> decode_int64(const Bytes& encoded, size_t n,
                                  const std::vector<size_t>& chunks = {}) {
  DeltaBinaryPackedDecoder decoder(PhysicalType::INT64);
  decoder.set_data(encoded, n + 5);  // num_values is only an upper bound
  ValueBuffer out = ValueBuffer::for_type(PhysicalType::INT64, 0);
  size_t done = 0;
  for (size_t chunk : chunks) {
    decoder.decode(chunk, out);
    done += chunk;
  }
  decoder.decode(n - done, out);
  std::vector<int64_t> values;
  for (size_t i = 0; i < out.count; ++i) values.push_back(out.get<int64_t>(i));
  return values;
}

std::vector<int32_t> decode_int32(const Bytes& encoded, size_t n) {
  DeltaBinaryPackedDecoder decoder(PhysicalType::INT32);
  decoder.set_data(encoded, n);
  ValueBuffer out = ValueBuffer::for_type(PhysicalType::INT32, 0);
  decoder.decode(n, out);
  std::vector<int32_t> values;
  for (size_t i = 0; i < out.count; ++i) values.push_back(out.get<int32_t>(i));
  return values;
}

TEST(DeltaBinaryPacked, RoundTripsSeveralWidthsAndAPartialBlock) {
  std::mt19937_64 rng(7);
  std::vector<int64_t> values;
  // Magnitudes change every 32 values, so the miniblocks get different widths.
  for (int i = 0; i < 1000; ++i) {
    const int magnitude = (i / 32 * 7) % 40;
    values.push_back(static_cast<int64_t>(rng() & ((uint64_t{1} << magnitude) - 1)) - 5);
  }
  std::vector<int> widths;
  const Bytes encoded = encode_delta(values, {}, &widths);
  std::sort(widths.begin(), widths.end());
  widths.erase(std::unique(widths.begin(), widths.end()), widths.end());
  EXPECT_GE(widths.size(), 5u);
  EXPECT_EQ(decode_int64(encoded, values.size()), values);
  EXPECT_EQ(decode_int64(encoded, values.size(), {1, 7, 100, 250}), values);
}

TEST(DeltaBinaryPacked, WrapsAroundAtInt64Limits) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  const std::vector<int64_t> values = {kMax, kMin, kMax, 0, kMin, -1, kMax, kMax, kMin, 1};
  std::vector<int> widths;
  const Bytes encoded = encode_delta(values, {}, &widths);
  EXPECT_EQ(widths, std::vector<int>{64});
  EXPECT_EQ(decode_int64(encoded, values.size()), values);
}

TEST(DeltaBinaryPacked, WrapsAroundAtInt32Limits) {
  constexpr int64_t kMin = std::numeric_limits<int32_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  const std::vector<int64_t> values = {kMin, kMax, 0, kMin, kMax, -1, 1, kMax};
  DeltaOptions options;
  options.int32 = true;
  std::vector<int> widths;
  const Bytes encoded = encode_delta(values, options, &widths);
  EXPECT_EQ(widths, std::vector<int>{32});
  std::vector<int32_t> expected(values.begin(), values.end());
  EXPECT_EQ(decode_int32(encoded, values.size()), expected);
}

TEST(DeltaBinaryPacked, OtherBlockLayouts) {
  std::vector<int64_t> values;
  for (int i = 0; i < 700; ++i) values.push_back(i * i - 3 * i);
  for (auto [block, miniblocks] : {std::pair<uint64_t, uint64_t>{128, 1}, {256, 8}, {1024, 1}}) {
    DeltaOptions options;
    options.block_size = block;
    options.miniblocks = miniblocks;
    EXPECT_EQ(decode_int64(encode_delta(values, options), values.size()), values) << block;
  }
}

TEST(DeltaBinaryPacked, UnusedMiniblocksAndMissingPadding) {
  std::vector<int64_t> values;
  for (int i = 0; i < 140; ++i) values.push_back(i * 1000);  // last block: 11 deltas
  DeltaOptions options;
  options.unused_width = 0xFF;  // arbitrary: must be ignored
  options.pad_last_miniblock = false;
  EXPECT_EQ(decode_int64(encode_delta(values, options), values.size()), values);
}

TEST(DeltaBinaryPacked, EmptyAndSingleValuePages) {
  const Bytes empty_page = encode_delta({});
  EXPECT_TRUE(decode_int64(empty_page, 0).empty());
  EXPECT_THROW(decode_int64(empty_page, 1), FormatError);
  EXPECT_TRUE(decode_int64(Bytes{}, 0).empty());  // all-null page: no bytes at all
  EXPECT_THROW(decode_int64(Bytes{}, 1), FormatError);
  const Bytes single = encode_delta({-42});
  EXPECT_EQ(single.size(), 5u);  // header only
  EXPECT_EQ(decode_int64(single, 1), std::vector<int64_t>{-42});
  EXPECT_THROW(decode_int64(single, 2), FormatError);
}

TEST(DeltaBinaryPacked, TruncatedInputThrows) {
  std::vector<int64_t> values;
  for (int i = 0; i < 321; ++i) values.push_back(i * 37 % 101);  // no padding at the end
  const Bytes encoded = encode_delta(values);
  for (size_t keep = 1; keep < encoded.size(); ++keep) {
    const Bytes cut(encoded.begin(), encoded.begin() + static_cast<long>(keep));
    EXPECT_THROW(decode_int64(cut, values.size()), FormatError) << keep;
  }
  const Bytes header_cut = {0x80, 0x01, 0x04};  // block size, miniblocks, then nothing
  DeltaBinaryPackedDecoder decoder(PhysicalType::INT64);
  EXPECT_THROW(decoder.set_data(header_cut, 10), FormatError);
}

TEST(DeltaBinaryPacked, InvalidLayoutThrows) {
  auto header = [](uint64_t block, uint64_t miniblocks) {
    Bytes out;
    put_uleb(out, block);
    put_uleb(out, miniblocks);
    put_uleb(out, 5);
    put_zigzag(out, 0);
    return out;
  };
  DeltaBinaryPackedDecoder decoder(PhysicalType::INT64);
  EXPECT_NO_THROW(decoder.set_data(header(128, 4), 5));
  EXPECT_THROW(decoder.set_data(header(100, 4), 5), FormatError);
  EXPECT_THROW(decoder.set_data(header(0, 4), 5), FormatError);
  EXPECT_THROW(decoder.set_data(header(128, 0), 5), FormatError);
  EXPECT_THROW(decoder.set_data(header(128, 8), 5), FormatError);  // 16 values per miniblock
  EXPECT_THROW(decoder.set_data(header(128, 3), 5), FormatError);
}

// DuckDB 1.5's PARQUET_VERSION V2 files: INT32 deltas taken in 64 bits, so alternating extremes
// give 33-bit miniblocks (PARQUET-2435: readers accept them).
TEST(DeltaBinaryPacked, Int32MiniblocksOf33BitsAsDuckDBWritesThem) {
  constexpr int64_t kMin = std::numeric_limits<int32_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  std::vector<int64_t> values = {kMin, kMax, kMin, kMax, 0, kMax, kMin, -1, 1};
  std::mt19937_64 rng(16);
  while (values.size() < 600) {  // several blocks, some miniblocks of extremes, some random
    const uint64_t r = rng();
    values.push_back(r % 5 == 0 ? (r % 2 == 0 ? kMin : kMax)
                                : static_cast<int64_t>(static_cast<int32_t>(r >> 32)));
  }
  DeltaOptions options;
  options.int32 = true;
  options.int32_wide_deltas = true;
  std::vector<int> widths;
  const Bytes encoded = encode_delta(values, options, &widths);
  EXPECT_EQ(*std::max_element(widths.begin(), widths.end()), 33);
  const std::vector<int32_t> expected(values.begin(), values.end());
  EXPECT_EQ(decode_int32(encoded, values.size()), expected);
}

// Any delta congruent modulo 2^32 gives the same INT32 values, whatever width it needs up to 64.
TEST(DeltaBinaryPacked, Int32MiniblocksUpTo64BitsWrapModulo2To32) {
  std::vector<int64_t> values;
  std::mt19937_64 rng(64);
  for (int i = 0; i < 300; ++i) {
    values.push_back(static_cast<int32_t>(static_cast<uint32_t>(rng())));
  }
  DeltaOptions options;
  options.int32 = true;
  options.int32_wide_deltas = true;
  options.delta_offsets = {
      std::numeric_limits<int32_t>::max(), std::numeric_limits<int32_t>::min(), -1, 5, 0, 1 << 20};
  std::vector<int> widths;
  const Bytes encoded = encode_delta(values, options, &widths);
  EXPECT_EQ(*std::max_element(widths.begin(), widths.end()), 64);
  const std::vector<int32_t> expected(values.begin(), values.end());
  EXPECT_EQ(decode_int32(encoded, values.size()), expected);
}

TEST(DeltaBinaryPacked, MiniblockWidthBeyond64Throws) {
  auto page = [](int width) {
    Bytes out = {0x80, 0x01, 0x01, 0x03, 0x00};  // block 128, 1 miniblock, 3 values, first 0
    out.push_back(0);                            // min delta 0
    out.push_back(static_cast<uint8_t>(width));
    out.insert(out.end(), 128 * 72 / 8, 0xFF);  // enough bytes for any width
    return out;
  };
  DeltaBinaryPackedDecoder int32(PhysicalType::INT32);
  DeltaBinaryPackedDecoder int64(PhysicalType::INT64);
  ValueBuffer out32 = ValueBuffer::for_type(PhysicalType::INT32, 0);
  ValueBuffer out64 = ValueBuffer::for_type(PhysicalType::INT64, 0);
  // The decoders borrow the pages: keep them alive.
  const Bytes page32 = page(32), page33 = page(33), page64 = page(64), page65 = page(65);
  int32.set_data(page32, 3);
  ASSERT_NO_THROW(int32.decode(3, out32));
  EXPECT_EQ(out32.get<int32_t>(2), -2);  // 0 + (2^32 - 1) twice
  int32.set_data(page33, 3);
  ASSERT_NO_THROW(int32.decode(3, out32));
  EXPECT_EQ(out32.get<int32_t>(4), -1);  // 2^33 - 1 modulo 2^32
  EXPECT_EQ(out32.get<int32_t>(5), -2);  // 2 * (2^33 - 1) modulo 2^32
  int32.set_data(page64, 3);
  ASSERT_NO_THROW(int32.decode(3, out32));
  EXPECT_EQ(out32.get<int32_t>(7), -1);  // 2^64 - 1 modulo 2^32
  EXPECT_EQ(out32.get<int32_t>(8), -2);
  int64.set_data(page64, 3);
  ASSERT_NO_THROW(int64.decode(3, out64));
  EXPECT_EQ(out64.get<int64_t>(2), -2);  // 0 + (2^64 - 1) twice
  for (auto* decoder : {&int32, &int64}) {
    ValueBuffer& out = decoder == &int32 ? out32 : out64;
    decoder->set_data(page65, 3);
    try {
      decoder->decode(3, out);
      ADD_FAILURE() << "a 65-bit miniblock was accepted";
    } catch (const FormatError& e) {
      EXPECT_NE(std::string(e.what()).find("bit width 65 exceeds 64"), std::string::npos)
          << e.what();
    }
  }
}

// The byte-array encodings' length streams are INT32 streams too: 33-bit miniblocks are read.
TEST(DeltaLengthByteArray, LengthsIn33BitMiniblocks) {
  // Lengths 0, 3, 0: deltas 3 and -3, the second written as 2^33 - 3 (congruent modulo 2^32) in
  // a 33-bit miniblock with min delta 0.
  Bytes page = {0x80, 0x01, 0x01, 0x03, 0x00};  // block 128, 1 miniblock, 3 values, first 0
  page.push_back(0);                            // min delta 0
  page.push_back(33);
  Bytes packed(128 * 33 / 8, 0);
  const uint64_t deltas[2] = {3, (uint64_t{1} << 33) - 3};
  for (int i = 0; i < 2; ++i) {
    for (int b = 0; b < 33; ++b) {
      const size_t bit = static_cast<size_t>(i) * 33 + static_cast<size_t>(b);
      if ((deltas[i] >> b) & 1) packed[bit / 8] |= static_cast<uint8_t>(1 << (bit % 8));
    }
  }
  page.insert(page.end(), packed.begin(), packed.end());
  page.insert(page.end(), {'a', 'b', 'c'});
  DeltaLengthByteArrayDecoder decoder;
  decoder.set_data(page, 3);
  ValueBuffer out = ValueBuffer::for_type(PhysicalType::BYTE_ARRAY, 0);
  decoder.decode(3, out);
  ASSERT_EQ(out.count, 3u);
  EXPECT_EQ(out.string(0), "");
  EXPECT_EQ(out.string(1), "abc");
  EXPECT_EQ(out.string(2), "");
}

TEST(DeltaBinaryPacked, StreamEndOffset) {
  std::vector<int64_t> values;
  for (int i = 0; i < 500; ++i) values.push_back(i % 17);
  Bytes encoded = encode_delta(values);
  const size_t size = encoded.size();
  encoded.push_back(0xAA);  // what follows the stream
  DeltaBitPackedStream stream;
  stream.reset(encoded, 64);
  EXPECT_EQ(stream.end_offset(), size);
  std::vector<uint64_t> out(200);
  stream.next(out.data(), 200);
  EXPECT_EQ(stream.end_offset(), size);
}

// --- DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY ---

Bytes encode_dlba(const std::vector<std::string>& values) {
  std::vector<int64_t> lengths;
  for (const auto& v : values) lengths.push_back(static_cast<int64_t>(v.size()));
  DeltaOptions options;
  options.int32 = true;
  Bytes out = encode_delta(lengths, options);
  for (const auto& v : values) out.insert(out.end(), v.begin(), v.end());
  return out;
}

std::vector<std::string> read_all(ValueDecoder& decoder, const Bytes& data, size_t n,
                                  PhysicalType type = PhysicalType::BYTE_ARRAY,
                                  int type_length = 0) {
  decoder.set_data(data, n);
  ValueBuffer out = ValueBuffer::for_type(type, type_length);
  const size_t first = n / 3;
  decoder.decode(first, out);
  decoder.decode(n - first, out);
  std::vector<std::string> values;
  for (size_t i = 0; i < out.count; ++i) values.emplace_back(out.string(i));
  return values;
}

std::vector<std::string> sample_strings(size_t n) {
  std::vector<std::string> values;
  std::mt19937 rng(3);
  for (size_t i = 0; i < n; ++i) {
    std::string v = "kernel_" + std::to_string(i / 10);
    v.append(rng() % 20, static_cast<char>('a' + rng() % 26));
    if (i % 13 == 0) v.clear();
    values.push_back(v);
  }
  return values;
}

TEST(DeltaLengthByteArray, RoundTrips) {
  const auto values = sample_strings(1500);
  DeltaLengthByteArrayDecoder decoder;
  EXPECT_EQ(read_all(decoder, encode_dlba(values), values.size()), values);
  EXPECT_TRUE(read_all(decoder, encode_dlba({}), 0).empty());
}

TEST(DeltaLengthByteArray, LengthsOverrunningTheDataThrow) {
  const std::vector<std::string> values = {"abc", "defgh", "ij"};
  Bytes encoded = encode_dlba(values);
  encoded.pop_back();
  DeltaLengthByteArrayDecoder decoder;
  decoder.set_data(encoded, 3);
  ValueBuffer out = ValueBuffer::for_type(PhysicalType::BYTE_ARRAY, 0);
  EXPECT_NO_THROW(decoder.decode(2, out));  // reading stops at the bad value
  EXPECT_THROW(decoder.decode(1, out), FormatError);
}

TEST(DeltaLengthByteArray, NegativeLengthThrows) {
  DeltaOptions options;
  options.int32 = true;
  Bytes encoded = encode_delta({2, -1, 3}, options);
  encoded.insert(encoded.end(), 10, 'x');
  DeltaLengthByteArrayDecoder decoder;
  decoder.set_data(encoded, 3);
  ValueBuffer out = ValueBuffer::for_type(PhysicalType::BYTE_ARRAY, 0);
  EXPECT_THROW(decoder.decode(3, out), FormatError);
}

Bytes encode_dba(const std::vector<std::string>& values, std::vector<int64_t> prefixes = {}) {
  std::vector<std::string> suffixes;
  const bool compute = prefixes.empty();
  std::string previous;
  for (size_t i = 0; i < values.size(); ++i) {
    size_t p = 0;
    if (compute) {
      while (p < previous.size() && p < values[i].size() && previous[p] == values[i][p]) ++p;
      prefixes.push_back(static_cast<int64_t>(p));
    } else {
      p = static_cast<size_t>(prefixes[i]);
    }
    suffixes.push_back(values[i].substr(std::min(p, values[i].size())));
    previous = values[i];
  }
  DeltaOptions options;
  options.int32 = true;
  Bytes out = encode_delta(prefixes, options);
  const Bytes rest = encode_dlba(suffixes);
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

TEST(DeltaByteArray, RoundTripsByteArrays) {
  auto values = sample_strings(2100);
  std::sort(values.begin(), values.end());  // long shared prefixes
  DeltaByteArrayDecoder decoder(PhysicalType::BYTE_ARRAY, 0);
  EXPECT_EQ(read_all(decoder, encode_dba(values), values.size()), values);
  EXPECT_TRUE(read_all(decoder, encode_dba({}), 0).empty());
}

TEST(DeltaByteArray, RoundTripsFixedLength) {
  const std::vector<std::string> values = {"abcd", "abce", "abzz", "qbzz", "qbzz", "0000"};
  DeltaByteArrayDecoder decoder(PhysicalType::FIXED_LEN_BYTE_ARRAY, 4);
  EXPECT_EQ(
      read_all(decoder, encode_dba(values), values.size(), PhysicalType::FIXED_LEN_BYTE_ARRAY, 4),
      values);
  DeltaByteArrayDecoder wrong(PhysicalType::FIXED_LEN_BYTE_ARRAY, 3);
  EXPECT_THROW(
      read_all(wrong, encode_dba(values), values.size(), PhysicalType::FIXED_LEN_BYTE_ARRAY, 3),
      FormatError);
}

TEST(DeltaByteArray, PrefixLongerThanThePreviousValueThrows) {
  // Value 1 claims a 4-byte prefix of the 3-byte "abc".
  const Bytes encoded = encode_dba({"abc", "abcd"}, {0, 4});
  DeltaByteArrayDecoder decoder(PhysicalType::BYTE_ARRAY, 0);
  EXPECT_THROW(read_all(decoder, encoded, 2), FormatError);
  // A first value with any prefix at all.
  EXPECT_THROW(read_all(decoder, encode_dba({"abc"}, {1}), 1), FormatError);
}

TEST(ValueDecoders, Factory) {
  EXPECT_NE(make_value_decoder(Encoding::PLAIN, PhysicalType::INT96, 0), nullptr);
  EXPECT_NE(make_value_decoder(Encoding::RLE, PhysicalType::BOOLEAN, 0), nullptr);
  EXPECT_NE(make_value_decoder(Encoding::DELTA_BINARY_PACKED, PhysicalType::INT32, 0), nullptr);
  EXPECT_NE(make_value_decoder(Encoding::DELTA_BYTE_ARRAY, PhysicalType::FIXED_LEN_BYTE_ARRAY, 16),
            nullptr);
  EXPECT_NE(make_value_decoder(Encoding::BYTE_STREAM_SPLIT, PhysicalType::FIXED_LEN_BYTE_ARRAY, 2),
            nullptr);
  try {
    (void)make_value_decoder(Encoding::DELTA_BINARY_PACKED, PhysicalType::DOUBLE, 0);
    ADD_FAILURE() << "no error";
  } catch (const UnsupportedError& error) {
    EXPECT_STREQ(error.what(), "value encoding DELTA_BINARY_PACKED is not supported for DOUBLE");
  }
  EXPECT_THROW((void)make_value_decoder(Encoding::RLE, PhysicalType::INT32, 0), UnsupportedError);
  EXPECT_THROW((void)make_value_decoder(Encoding::DELTA_LENGTH_BYTE_ARRAY,
                                        PhysicalType::FIXED_LEN_BYTE_ARRAY, 4),
               UnsupportedError);
  EXPECT_THROW((void)make_value_decoder(Encoding::BYTE_STREAM_SPLIT, PhysicalType::BOOLEAN, 0),
               UnsupportedError);
  EXPECT_THROW((void)make_value_decoder(Encoding::RLE_DICTIONARY, PhysicalType::INT32, 0),
               UnsupportedError);
  EXPECT_THROW((void)make_value_decoder(Encoding::BIT_PACKED, PhysicalType::INT32, 0),
               UnsupportedError);
  EXPECT_THROW(
      (void)make_value_decoder(Encoding::BYTE_STREAM_SPLIT, PhysicalType::FIXED_LEN_BYTE_ARRAY, 0),
      FormatError);
}

}  // namespace
}  // namespace kbdata::parquet
