// Known values of every similarity hash, so that a change of bytes is caught here before it
// changes an output (dedup's clusters, pairs' decontamination, noise, near-duplicates). The
// mixers' and the sketch's values were computed independently (Python integers, from the
// definitions in mix.h and sketch.h); the XXH3-based ones (shingles, band keys, signatures) are
// those of the code before it moved to src/similarity/ (dedup/shingles.cc and minhash.cc
// compiled alone), whose outputs the
// golden tests hold unchanged.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "similarity/lsh.h"
#include "similarity/minhash.h"
#include "similarity/mix.h"
#include "similarity/shingles.h"
#include "similarity/sketch.h"

namespace kbdata::similarity {
namespace {

TEST(SimilarityKnownValues, Mixers) {
  static_assert(splitmix64_finalize(0) == 0);
  EXPECT_EQ(splitmix64_finalize(1), 0x5692161d100b05e5ULL);
  EXPECT_EQ(splitmix64_finalize(0x0123456789abcdefULL), 0xb2c058e4ebb5112cULL);
  static_assert(multiply_mix64(0) == 0);
  EXPECT_EQ(multiply_mix64(1), 0x17fb89ee9dcab42aULL);
  EXPECT_EQ(multiply_mix64(0x0123456789abcdefULL), 0x5fdbd9a49276ebe0ULL);
}

TEST(SimilarityKnownValues, Sketch) {
  // "ab": one shingle (shorter than 5 bytes), 'a' | 'b' << 8 | 2 << 48, mixed: bin 149.
  const CodeSketch ab = code_sketch("AB");
  ASSERT_EQ(ab.size(), kSketchBins);
  EXPECT_EQ(ab[149], 0xcd14fb3dU);
  EXPECT_EQ(std::count(ab.begin(), ab.end(), kEmptySketchBin), 255);
  // "hello": one 5-byte shingle: bin 123.
  const CodeSketch hello = code_sketch_portable("HeLLo");
  EXPECT_EQ(hello[123], 0x35a85e26U);
  EXPECT_EQ(byte_sketch("hello")[123], 0x35a85e26U % 255);
}

TEST(SimilarityKnownValues, ShinglesAndBandKeys) {
  EXPECT_EQ(shingle_set("hello", 5), std::vector<uint64_t>{0x7a75fee0ee52b980ULL});
  EXPECT_EQ(shingle_set("abcdef", 5).size(), 2u);
  const std::vector<uint64_t> bins64 = {1, 2, 3};
  const std::vector<uint32_t> bins32 = {1, 2, 3};
  EXPECT_EQ(band_key(bins64, 0), 0x7c68b4906e7ea780ULL);
  EXPECT_EQ(band_key(bins64, 7), 0x278ad251747e2e79ULL);
  EXPECT_EQ(band_key(bins32, 5), 0x1345d5eb064ba520ULL);
}

TEST(SimilarityKnownValues, SignatureAndDedupBanding) {
  Signature sig;
  std::string lowered;
  ASSERT_TRUE(compute_text_signature("def kernel(x): return x * 2\n", 5, lowered, sig));
  uint64_t folded = 0;
  for (uint64_t v : sig) folded = splitmix64_finalize(folded ^ v);
  EXPECT_EQ(folded, 0x4e9ea89782481492ULL);
  const LshParams lsh = choose_lsh(0.8);
  EXPECT_EQ(lsh.bands, 157);
  EXPECT_EQ(lsh.rows, 13);
  std::vector<uint32_t> keys;
  band_keys(sig, lsh, keys);
  ASSERT_EQ(keys.size(), 157u);
  EXPECT_EQ(keys[0], 0x015970d5U);
  EXPECT_EQ(keys[156], 0xf4def963U);
}

}  // namespace
}  // namespace kbdata::similarity
