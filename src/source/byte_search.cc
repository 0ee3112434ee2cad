#include "source/byte_search.h"

#include <immintrin.h>

#include <cstdint>

#include "common/cpu.h"

namespace kbdata::source {
namespace {

// The first of bytes a, b and c in [p, end), or end.
const char* find3_portable(const char* p, const char* end, char a, char b, char c) {
  for (; p < end; ++p) {
    if (*p == a || *p == b || *p == c) return p;
  }
  return end;
}

__attribute__((target("avx2,bmi"))) const char* find3_avx2(const char* p, const char* end, char a,
                                                           char b, char c) {
  const __m256i va = _mm256_set1_epi8(a);
  const __m256i vb = _mm256_set1_epi8(b);
  const __m256i vc = _mm256_set1_epi8(c);
  while (end - p >= 32) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    const __m256i hit =
        _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(v, va), _mm256_cmpeq_epi8(v, vb)),
                        _mm256_cmpeq_epi8(v, vc));
    const auto mask = static_cast<uint32_t>(_mm256_movemask_epi8(hit));
    if (mask != 0) return p + _tzcnt_u32(mask);
    p += 32;
  }
  return find3_portable(p, end, a, b, c);
}

// The number of \n in [p, end).
size_t count_newlines_portable(const char* p, const char* end) {
  size_t n = 0;
  for (; p < end; ++p) n += *p == '\n';
  return n;
}

// Each 32-byte step adds its matches to 32 byte counters (a match compares as -1, which is
// subtracted), added up into four 64-bit sums before a byte counter could wrap.
__attribute__((target("avx2"))) size_t count_newlines_avx2(const char* p, const char* end) {
  const __m256i nl = _mm256_set1_epi8('\n');
  __m256i sums = _mm256_setzero_si256();
  while (end - p >= 32) {
    __m256i counters = _mm256_setzero_si256();
    for (int steps = 0; steps < 255 && end - p >= 32; ++steps, p += 32) {
      const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
      counters = _mm256_sub_epi8(counters, _mm256_cmpeq_epi8(v, nl));
    }
    sums = _mm256_add_epi64(sums, _mm256_sad_epu8(counters, _mm256_setzero_si256()));
  }
  const auto n = static_cast<size_t>(_mm256_extract_epi64(sums, 0) + _mm256_extract_epi64(sums, 1) +
                                     _mm256_extract_epi64(sums, 2) + _mm256_extract_epi64(sums, 3));
  return n + count_newlines_portable(p, end);
}

}  // namespace

const char* find3(const char* p, const char* end, char a, char b, char c) {
  return use_avx2() ? find3_avx2(p, end, a, b, c) : find3_portable(p, end, a, b, c);
}

size_t count_newlines(const char* p, const char* end) {
  return use_avx2() ? count_newlines_avx2(p, end) : count_newlines_portable(p, end);
}

}  // namespace kbdata::source
