// The 256-bin sketch: the vector paths against its definition, the estimate against the exact
// Jaccard of the shingle sets, and the byte sketch.
#include "similarity/sketch.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "similarity/shingles.h"
#include "support/kernel_text.h"

namespace kbdata::similarity {
namespace {

std::string kernel(int seed, int edit = 0) { return testing::kernel_text(seed, edit); }

// The sketch as sketch.h (and docs/noise.md) defines it, one shingle after another: code_sketch,
// which hashes in blocks by a vectorised loop (and its AVX-512 clone where the CPU has one), must
// give the same.
CodeSketch definition_sketch(const std::string& code) {
  if (code.empty()) return {};
  const auto mix64 = [](uint64_t x) {
    x *= 0x9E3779B97F4A7C15ULL;
    x ^= x >> 32;
    x *= 0xD6E8FEB86659FD93ULL;
    x ^= x >> 32;
    return x;
  };
  std::string lowered = code;
  for (char& c : lowered) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  }
  std::vector<uint64_t> mins(kSketchBins, UINT64_MAX);
  const auto add = [&](uint64_t h) { mins[h >> 56] = std::min(mins[h >> 56], h); };
  if (lowered.size() < 5) {
    uint64_t v = 0;
    for (size_t i = 0; i < lowered.size(); ++i)
      v |= uint64_t{static_cast<unsigned char>(lowered[i])} << (8 * i);
    add(mix64(v | uint64_t{lowered.size()} << 48));
  }
  for (size_t i = 0; i + 5 <= lowered.size(); ++i) {
    uint64_t v = 0;
    for (size_t j = 0; j < 5; ++j)
      v |= uint64_t{static_cast<unsigned char>(lowered[i + j])} << (8 * j);
    add(mix64(v));
  }
  CodeSketch out(kSketchBins);
  for (size_t b = 0; b < kSketchBins; ++b) {
    out[b] = mins[b] == UINT64_MAX ? kEmptySketchBin : static_cast<uint32_t>(mins[b] >> 24);
  }
  return out;
}

TEST(SketchTest, IsItsDefinition) {
  uint64_t x = 12345;
  // Long texts too: past a few thousand shingles most hashes are filtered out before their bin.
  for (size_t length : {1, 3, 4, 5, 6, 255, 256, 259, 260, 261, 263, 264, 513, 2000, 9000, 40000}) {
    std::string code(length, ' ');
    for (char& c : code) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      c = static_cast<char>(x % 3 == 0 ? 'A' + x % 26 : x % 256);  // upper case and any byte
    }
    EXPECT_EQ(code_sketch(code), definition_sketch(code)) << length;
    EXPECT_EQ(code_sketch_portable(code), definition_sketch(code)) << length;
    if (__builtin_cpu_supports("avx2")) {
      EXPECT_EQ(code_sketch_avx2(code), definition_sketch(code)) << length;
    }
  }
  std::string kernels;  // code, whose shingles repeat
  for (int k = 1; k <= 30; ++k) kernels += kernel(k, k);
  EXPECT_EQ(code_sketch(kernels), definition_sketch(kernels));
  EXPECT_EQ(code_sketch_portable(kernels), definition_sketch(kernels));
  if (__builtin_cpu_supports("avx2")) {
    EXPECT_EQ(code_sketch_avx2(kernels), definition_sketch(kernels));
    // Every length near the vector loop's ends, and text past the end that must not be read
    // (a sanitizer sees a read past the string).
    for (size_t length = 1; length < 300; ++length) {
      const std::string part = kernels.substr(1000, length);
      EXPECT_EQ(code_sketch_avx2(part), definition_sketch(part)) << length;
    }
  }
}

TEST(SketchTest, EstimatesTheShingleJaccard) {
  const CodeSketch a = code_sketch(kernel(1));
  ASSERT_EQ(a.size(), kSketchBins);
  EXPECT_EQ(sketch_similarity(a.data(), code_sketch(kernel(1)).data()), 1.0);
  EXPECT_GE(sketch_similarity(a.data(), code_sketch(kernel(1, 1)).data()), 0.98);
  EXPECT_LT(sketch_similarity(a.data(), code_sketch(kernel(2)).data()), 0.2);
  EXPECT_TRUE(code_sketch("").empty());
  // Against the exact Jaccard of dedup's shingle sets: within 4 standard errors.
  for (int edit = 1; edit <= 40; ++edit) {
    std::string b = kernel(1, edit);
    b.replace(10 * edit, 8, "EDITED!!");  // lower-cased like every shingle
    const double exact = jaccard(shingle_set(kernel(1), 5), shingle_set(b, 5));
    const double estimate = sketch_similarity(a.data(), code_sketch(b).data());
    EXPECT_NEAR(estimate, exact, 4 * std::sqrt(exact * (1 - exact) / kSketchBins) + 1e-9) << edit;
  }
  // Case does not matter; text shorter than a shingle is one shingle.
  EXPECT_EQ(sketch_similarity(code_sketch("ABCDEFGH").data(), code_sketch("abcdefgh").data()), 1.0);
  EXPECT_EQ(sketch_similarity(code_sketch("ab").data(), code_sketch("ab").data()), 1.0);
  EXPECT_EQ(sketch_similarity(code_sketch("ab").data(), code_sketch("ac").data()), 0.0);
}

TEST(SketchTest, ByteSketchCutsEachBinToAByte) {
  const CodeSketch full = code_sketch(kernel(3));
  const ByteSketch bytes = byte_sketch(kernel(3));
  ASSERT_EQ(bytes.size(), kSketchBins);
  for (size_t b = 0; b < kSketchBins; ++b) {
    EXPECT_EQ(bytes[b], full[b] == kEmptySketchBin ? 0xFF : full[b] % 255) << b;
  }
  EXPECT_TRUE(byte_sketch("").empty());
  EXPECT_EQ(byte_sketch_similarity(bytes, byte_sketch(kernel(3))), 1.0);
  EXPECT_FALSE(byte_sketch_similarity(bytes, {}).has_value());
  // r = 0 corrects to below zero, clamped.
  const std::optional<double> far = byte_sketch_similarity(byte_sketch("ab"), byte_sketch("ac"));
  ASSERT_TRUE(far.has_value());
  EXPECT_EQ(*far, 0.0);
}

TEST(SketchTest, BinsEmptyLooksAtItsBinsOnly) {
  const CodeSketch s = code_sketch("ab");  // one shingle: one bin filled
  const size_t filled = static_cast<size_t>(
      std::find_if(s.begin(), s.end(), [](uint32_t v) { return v != kEmptySketchBin; }) -
      s.begin());
  ASSERT_LT(filled, kSketchBins);
  EXPECT_FALSE(sketch_bins_empty(s.data(), filled, 1));
  EXPECT_TRUE(sketch_bins_empty(s.data(), filled + 1, kSketchBins - filled - 1));
  EXPECT_TRUE(sketch_bins_empty(s.data(), 0, filled));
}

}  // namespace
}  // namespace kbdata::similarity
