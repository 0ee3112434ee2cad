#include "similarity/sketch.h"

#include <immintrin.h>

#include <algorithm>
#include <array>

#include "common/cpu.h"
#include "similarity/mix.h"

namespace kbdata::similarity {
namespace {

constexpr size_t kShingleBytes = kSketchShingleBytes;
constexpr uint64_t kMix1 = kMultiplyMix1;  // the vector paths repeat multiply_mix64 lane by lane
constexpr uint64_t kMix2 = kMultiplyMix2;

// Each hash lowers its bin (its top 8 bits) to it if it is below the bin's value.
inline void lower_bins(const uint64_t* hashes, size_t n, uint64_t* mins) {
  for (size_t i = 0; i < n; ++i) {
    const uint64_t h = hashes[i];
    uint64_t& m = mins[h >> 56];
    m = h < m ? h : m;
  }
}

constexpr size_t kHashBlock = 256;

// An ASCII letter in lower case; every other byte as it is.
inline uint64_t lower(unsigned char c) {
  return static_cast<unsigned char>(c + (static_cast<unsigned>(c - 'A') < 26u ? 32 : 0));
}

// Keeps in each bin of `mins` the least of its hashes and those of the shingles at p + i, for
// i < n (n <= kHashBlock; the text holds p[n + 3]). A hash is multiply_mix64 of the 5 lower-cased
// bytes, little-endian; its bin is its top 8 bits.
using AddShingles = void (*)(const unsigned char* p, size_t n, uint64_t* mins);

// For any x86-64: no hash waits for another, and the bytes are read one by one at each of the 5
// offsets, so the hashing loop vectorises; the bins are updated one hash at a time.
__attribute__((optimize("tree-vectorize"))) void add_shingles_portable(
    const unsigned char* __restrict p, size_t n, uint64_t* __restrict mins) {
  static_assert(kShingleBytes == 5);
  std::array<uint64_t, kHashBlock> hashes;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t v = lower(p[i]) | lower(p[i + 1]) << 8 | lower(p[i + 2]) << 16 |
                       lower(p[i + 3]) << 24 | lower(p[i + 4]) << 32;
    hashes[i] = multiply_mix64(v);
  }
  lower_bins(hashes.data(), n, mins);
}

// Lane j of 8 takes bytes j..j+4 of a 16-byte window (the other 3 bytes are zeroed).
constexpr std::array<uint8_t, 64> shingle_lanes() {
  std::array<uint8_t, 64> index{};
  for (size_t lane = 0; lane < 8; ++lane) {
    for (size_t k = 0; k < 8; ++k)
      index[8 * lane + k] = static_cast<uint8_t>(lane + (k < 5 ? k : 0));
  }
  return index;
}

// With AVX-512 VBMI, 8 shingles at a time: the 12 bytes they span are loaded (no byte past
// p[n + 3]), lower-cased, spread into 8 lanes by one byte permutation and mixed in the lanes.
// Most hashes of a long text change no bin: a hash whose low 56 bits exceed those of every bin's
// least hash cannot (it is compared within its own bin, whose top 8 bits it shares), so only the
// others are kept (compressed into a buffer) and compared one by one. The bins end the same.
// GCC 12's intrinsics start many results from an "undefined" vector, which it then reports as
// uninitialised (GCC bug 105593, fixed in 13).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi"))) void add_shingles_vbmi(
    const unsigned char* p, size_t n, uint64_t* mins) {
  static_assert(kShingleBytes == 5 && kHashBlock % 8 == 0 && kSketchBins % 8 == 0);
  static constexpr std::array<uint8_t, 64> kLanes = shingle_lanes();
  const __m512i lanes = _mm512_loadu_si512(kLanes.data());
  const __mmask64 shingle_bytes = 0x1F1F1F1F1F1F1F1FULL;  // bytes 0-4 of each lane
  const __m128i a = _mm_set1_epi8('A');
  const __m128i z_minus_a = _mm_set1_epi8('Z' - 'A');
  const __m128i to_lower = _mm_set1_epi8('a' - 'A');
  const __m512i k1 = _mm512_set1_epi64(static_cast<long long>(kMix1));
  const __m512i k2 = _mm512_set1_epi64(static_cast<long long>(kMix2));
  const __m512i low56 = _mm512_set1_epi64(static_cast<long long>((uint64_t{1} << 56) - 1));
  __m512i highest = _mm512_setzero_si512();
  for (size_t b = 0; b < kSketchBins; b += 8) {
    highest = _mm512_max_epu64(highest, _mm512_and_si512(_mm512_loadu_si512(mins + b), low56));
  }
  // The lanes' maximum in every lane (lanes swapped by 4, 2 and 1).
  highest = _mm512_max_epu64(highest, _mm512_shuffle_i64x2(highest, highest, 0x4E));
  highest = _mm512_max_epu64(highest, _mm512_shuffle_i64x2(highest, highest, 0xB1));
  highest = _mm512_max_epu64(highest, _mm512_permutex_epi64(highest, 0x4E));
  highest = _mm512_max_epu64(highest, _mm512_permutex_epi64(highest, 0xB1));

  std::array<uint64_t, kHashBlock + 8> kept;
  size_t count = 0;
  for (size_t i = 0; i < n; i += 8) {
    // A masked load only near the end: Zen 4 takes several times longer over one.
    const size_t readable = n + kShingleBytes - 1 - i;
    __m128i w = readable >= 16
                    ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i))
                    : _mm_maskz_loadu_epi8(static_cast<__mmask16>((1u << readable) - 1), p + i);
    const __mmask16 upper = _mm_cmple_epu8_mask(_mm_sub_epi8(w, a), z_minus_a);
    w = _mm_mask_add_epi8(w, upper, w, to_lower);
    __m512i v = _mm512_maskz_permutexvar_epi8(shingle_bytes, lanes, _mm512_zextsi128_si512(w));
    v = _mm512_mullo_epi64(v, k1);
    v = _mm512_xor_si512(v, _mm512_srli_epi64(v, 32));
    v = _mm512_mullo_epi64(v, k2);
    v = _mm512_xor_si512(v, _mm512_srli_epi64(v, 32));
    const auto text = static_cast<__mmask8>(n - i >= 8 ? 0xFF : (1u << (n - i)) - 1);
    const __mmask8 may_lower =
        _mm512_mask_cmple_epu64_mask(text, _mm512_and_si512(v, low56), highest);
    _mm512_storeu_si512(kept.data() + count, _mm512_maskz_compress_epi64(may_lower, v));
    count += static_cast<size_t>(__builtin_popcount(may_lower));
  }
  lower_bins(kept.data(), count, mins);
}
#pragma GCC diagnostic pop

// 64-bit multiplies lane by lane with AVX2, which has only 32 x 32 -> 64: the low product plus
// the two cross products shifted up (the high x high product falls outside 64 bits).
__attribute__((target("avx2"))) inline __m256i mullo64_avx2(__m256i x, __m256i k_low,
                                                            __m256i k_high) {
  const __m256i low = _mm256_mul_epu32(x, k_low);
  const __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(x, 32), k_low),
                                         _mm256_mul_epu32(x, k_high));
  return _mm256_add_epi64(low, _mm256_slli_epi64(cross, 32));
}

__attribute__((target("avx2"))) inline __m256i mix64_avx2(__m256i x, const __m256i k[4]) {
  x = mullo64_avx2(x, k[0], k[1]);
  x = _mm256_xor_si256(x, _mm256_srli_epi64(x, 32));
  x = mullo64_avx2(x, k[2], k[3]);
  return _mm256_xor_si256(x, _mm256_srli_epi64(x, 32));
}

// Byte shuffles of a 16-byte window repeated in both 128-bit halves: lane j (of 4) takes bytes
// first + j .. first + j + 4, the other three bytes of the lane are zero (top bit set).
constexpr std::array<int8_t, 32> shingle_lanes_avx2(int first) {
  std::array<int8_t, 32> index{};
  for (int lane = 0; lane < 4; ++lane) {
    for (int b = 0; b < 8; ++b) {
      index[static_cast<size_t>(8 * lane + b)] =
          b < 5 ? static_cast<int8_t>(first + lane + b) : static_cast<int8_t>(-128);
    }
  }
  return index;
}

// For each 4-bit mask of 64-bit lanes, the 32-bit element indexes that move the masked lanes to
// the front, in order (AVX2's stand-in for AVX-512's compress).
constexpr std::array<std::array<int32_t, 8>, 16> compress_lanes_avx2() {
  std::array<std::array<int32_t, 8>, 16> table{};
  for (int mask = 0; mask < 16; ++mask) {
    int out = 0;
    for (int lane = 0; lane < 4; ++lane) {
      if ((mask >> lane & 1) == 0) continue;
      table[static_cast<size_t>(mask)][static_cast<size_t>(2 * out)] = 2 * lane;
      table[static_cast<size_t>(mask)][static_cast<size_t>(2 * out + 1)] = 2 * lane + 1;
      ++out;
    }
  }
  return table;
}

// Appends to `kept` the hashes of `h` whose low 56 bits are at most `highest` (the others cannot
// lower their bin), without a branch on which; the low 56 bits are below 2^63, so the signed
// compare is the unsigned one. `kept` has room for 4 more than `count`.
__attribute__((target("avx2"))) inline void keep_avx2(__m256i h, __m256i highest, __m256i low56,
                                                      uint64_t* kept, size_t& count) {
  static constexpr std::array<std::array<int32_t, 8>, 16> kCompress = compress_lanes_avx2();
  const __m256i above = _mm256_cmpgt_epi64(_mm256_and_si256(h, low56), highest);
  const int may_lower = ~_mm256_movemask_pd(_mm256_castsi256_pd(above)) & 0xF;
  const __m256i order =
      _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kCompress[may_lower].data()));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(kept + count),
                      _mm256_permutevar8x32_epi32(h, order));
  count += static_cast<size_t>(__builtin_popcount(static_cast<unsigned>(may_lower)));
}

// With AVX2 (CPUs without AVX-512, such as AMD's Zen 3), 8 shingles at a time as two vectors of
// 4: the 12 bytes they span are loaded as 16 (only where 16 are readable: the last shingles go
// to the portable loop), lower-cased, spread into lanes by a byte shuffle of each 128-bit half
// and mixed with 64-bit multiplies built from 32-bit ones. As with VBMI, a hash whose low 56
// bits exceed those of every bin's least hash cannot lower its bin and is dropped before the bin
// is looked at (a bin's least hash only falls, so the maximum taken once per call stays valid).
__attribute__((target("avx2"))) void add_shingles_avx2(const unsigned char* p, size_t n,
                                                       uint64_t* mins) {
  static_assert(kShingleBytes == 5);
  static constexpr std::array<int8_t, 32> kLanesLow = shingle_lanes_avx2(0);
  static constexpr std::array<int8_t, 32> kLanesHigh = shingle_lanes_avx2(4);
  constexpr uint64_t kLow56 = (uint64_t{1} << 56) - 1;
  uint64_t highest_bin = 0;
  for (size_t b = 0; b < kSketchBins; ++b) highest_bin = std::max(highest_bin, mins[b] & kLow56);
  const __m256i highest = _mm256_set1_epi64x(static_cast<long long>(highest_bin));
  const __m256i low56 = _mm256_set1_epi64x(static_cast<long long>(kLow56));
  const __m256i k[4] = {_mm256_set1_epi64x(static_cast<long long>(kMix1 & 0xFFFFFFFF)),
                        _mm256_set1_epi64x(static_cast<long long>(kMix1 >> 32)),
                        _mm256_set1_epi64x(static_cast<long long>(kMix2 & 0xFFFFFFFF)),
                        _mm256_set1_epi64x(static_cast<long long>(kMix2 >> 32))};
  const __m256i lanes_low = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kLanesLow.data()));
  const __m256i lanes_high =
      _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kLanesHigh.data()));
  const __m128i a = _mm_set1_epi8('A');
  const __m128i span = _mm_set1_epi8('Z' - 'A');
  const __m128i to_lower = _mm_set1_epi8('a' - 'A');
  std::array<uint64_t, kHashBlock + 8> kept;
  size_t count = 0;
  // Shingles i..i+7 need bytes i..i+11; 16 are loaded, and the text holds n + 4 bytes from p.
  size_t i = 0;
  for (; i + 8 <= n && i + 16 <= n + kShingleBytes - 1; i += 8) {
    __m128i w = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    const __m128i offset = _mm_sub_epi8(w, a);
    const __m128i upper = _mm_cmpeq_epi8(_mm_min_epu8(offset, span), offset);
    w = _mm_add_epi8(w, _mm_and_si128(upper, to_lower));
    const __m256i both = _mm256_broadcastsi128_si256(w);
    keep_avx2(mix64_avx2(_mm256_shuffle_epi8(both, lanes_low), k), highest, low56, kept.data(),
              count);
    keep_avx2(mix64_avx2(_mm256_shuffle_epi8(both, lanes_high), k), highest, low56, kept.data(),
              count);
  }
  lower_bins(kept.data(), count, mins);
  if (i < n) add_shingles_portable(p + i, n - i, mins);
}

// The CPU's fastest path, chosen at the call (not by an ifunc resolver, which runs before a
// sanitizer's runtime is ready); the same bins either way.
bool has_vbmi() {
  static const bool yes = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                          __builtin_cpu_supports("avx512vl") &&
                          __builtin_cpu_supports("avx512dq") &&
                          __builtin_cpu_supports("avx512vbmi");
  return yes;
}

CodeSketch sketch_with(std::string_view code, AddShingles add_shingles) {
  CodeSketch out;
  if (code.empty()) return out;
  // Each shingle is its 5 lower-cased bytes as a 40-bit number; multiply_mix64 is a bijection, so
  // distinct shingles never share a hash. Bin: the top 8 bits; the bin keeps its least hash.
  static_assert(kSketchBins == 256);
  std::array<uint64_t, kSketchBins> mins;
  mins.fill(UINT64_MAX);
  const auto* p = reinterpret_cast<const unsigned char*>(code.data());
  if (code.size() < kShingleBytes) {  // text shorter than a shingle is one shingle
    uint64_t v = 0;
    for (size_t i = 0; i < code.size(); ++i) v |= lower(p[i]) << (8 * i);
    const uint64_t h = multiply_mix64(v | (uint64_t{code.size()} << 48));
    mins[h >> 56] = h;
  }
  const size_t shingles = code.size() >= kShingleBytes ? code.size() - kShingleBytes + 1 : 0;
  for (size_t at = 0; at < shingles; at += kHashBlock) {
    add_shingles(p + at, std::min(kHashBlock, shingles - at), mins.data());
  }
  out.resize(kSketchBins);
  for (size_t b = 0; b < kSketchBins; ++b) {
    out[b] = mins[b] == UINT64_MAX ? kEmptySketchBin : static_cast<uint32_t>(mins[b] >> 24);
  }
  return out;
}

}  // namespace

CodeSketch code_sketch(std::string_view code) {
  return sketch_with(code, has_vbmi()   ? add_shingles_vbmi
                           : use_avx2() ? add_shingles_avx2
                                        : add_shingles_portable);
}

CodeSketch code_sketch_avx2(std::string_view code) { return sketch_with(code, add_shingles_avx2); }

CodeSketch code_sketch_portable(std::string_view code) {
  return sketch_with(code, add_shingles_portable);
}

double sketch_similarity(const uint32_t* a, const uint32_t* b) {
  size_t equal = 0, used = 0;
  for (size_t i = 0; i < kSketchBins; ++i) {
    const bool empty = a[i] == kEmptySketchBin && b[i] == kEmptySketchBin;
    used += empty ? 0 : 1;
    equal += !empty && a[i] == b[i] ? 1 : 0;
  }
  return used == 0 ? 1.0 : static_cast<double>(equal) / static_cast<double>(used);
}

bool sketch_bins_empty(const uint32_t* sketch, size_t first, size_t count) {
  const uint32_t* bins = sketch + first;
  return std::all_of(bins, bins + count, [](uint32_t v) { return v == kEmptySketchBin; });
}

namespace {
constexpr uint8_t kEmptyByte = 0xFF;
}  // namespace

ByteSketch byte_sketch(std::string_view code) {
  const CodeSketch full = code_sketch(code);
  ByteSketch out;
  out.reserve(full.size());
  for (uint32_t v : full) {
    out.push_back(v == kEmptySketchBin ? kEmptyByte : static_cast<uint8_t>(v % 255));
  }
  return out;
}

std::optional<double> byte_sketch_similarity(const ByteSketch& a, const ByteSketch& b) {
  if (a.size() != kSketchBins || b.size() != kSketchBins) return std::nullopt;
  size_t used = 0;
  size_t equal = 0;
  for (size_t i = 0; i < kSketchBins; ++i) {
    const bool both_empty = a[i] == kEmptyByte && b[i] == kEmptyByte;
    used += both_empty ? 0 : 1;
    equal += !both_empty && a[i] == b[i] ? 1 : 0;
  }
  if (used == 0) return std::nullopt;
  constexpr double kChance = 1.0 / 255;
  const double r = static_cast<double>(equal) / static_cast<double>(used);
  return std::clamp((r - kChance) / (1 - kChance), 0.0, 1.0);
}

}  // namespace kbdata::similarity
