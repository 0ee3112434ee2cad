// Whether a text holds any of a few fixed byte strings, in one pass: each position is tested at
// once against every string's first three bytes (by their nibbles, in eight buckets), and only the
// positions that pass are compared in full. The screen of the audit looks for the texts its rules
// read in every string a code holds (audit/code_screen.h).
#pragma once

#include <immintrin.h>

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

namespace kbdata::source {

// The first look at three bytes: a position passes for a bucket (0-7) when its byte and the two
// after it have the nibbles of one of the bucket's strings there (a string shorter than three bytes
// takes any byte after it). Substrings' filter, and the audit screen's first look at names.
struct NibbleFilter {
  std::array<std::array<uint8_t, 16>, 3> low{};
  std::array<std::array<uint8_t, 16>, 3> high{};

  constexpr void add(std::string_view s, size_t bucket) {
    const auto bit = static_cast<uint8_t>(1U << (bucket % 8));
    for (size_t k = 0; k < 3; ++k) {
      for (unsigned v = 0; v < 16; ++v) {
        const unsigned c = k < s.size() ? static_cast<unsigned char>(s[k]) : 0;
        if (k >= s.size() || (c & 15) == v) low[k][v] |= bit;
        if (k >= s.size() || (c >> 4) == v) high[k][v] |= bit;
      }
    }
  }

  // How many three-byte starts `bucket` lets through: the product, over the three positions, of
  // the low and the high nibbles it takes (0 while it is empty).
  [[nodiscard]] constexpr uint64_t width(size_t bucket) const {
    uint64_t w = 1;
    for (size_t k = 0; k < 3; ++k) {
      uint64_t l = 0;
      uint64_t h = 0;
      for (size_t v = 0; v < 16; ++v) {
        l += (low[k][v] >> bucket) & 1;
        h += (high[k][v] >> bucket) & 1;
      }
      w *= l * h;
    }
    return w;
  }

  // The bucket `s` widens least: added there, words alike in their first bytes share a bucket and
  // the filter lets fewer starts through than with words dealt round the buckets.
  [[nodiscard]] constexpr size_t narrowest_bucket_for(std::string_view s) const {
    size_t best = 0;
    uint64_t best_growth = UINT64_MAX;
    for (size_t b = 0; b < 8; ++b) {
      NibbleFilter with = *this;
      with.add(s, b);
      const uint64_t growth = with.width(b) - width(b);
      if (growth < best_growth) {
        best = b;
        best_growth = growth;
      }
    }
    return best;
  }

  // The buckets position p passes for (p[0..2] readable).
  [[nodiscard]] uint8_t buckets_at(const char* p) const {
    uint8_t b = 0xFF;
    for (size_t k = 0; k < 3 && b != 0; ++k) {
      const auto c = static_cast<unsigned char>(p[k]);
      b &= static_cast<uint8_t>(low[k][c & 15] & high[k][c >> 4]);
    }
    return b;
  }
};

// The filter's tables in vector registers, and the buckets of the 32 positions at p (p[0..33]
// readable), one byte each.
struct NibbleFilterAvx2 {
  __m256i low[3];
  __m256i high[3];
};
__attribute__((target("avx2"))) inline NibbleFilterAvx2 load_avx2(const NibbleFilter& f) {
  NibbleFilterAvx2 v;
  for (size_t k = 0; k < 3; ++k) {
    v.low[k] = _mm256_broadcastsi128_si256(
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(f.low[k].data())));
    v.high[k] = _mm256_broadcastsi128_si256(
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(f.high[k].data())));
  }
  return v;
}
__attribute__((target("avx2"))) inline __m256i buckets_avx2(const NibbleFilterAvx2& f,
                                                            const char* p) {
  const __m256i nibble = _mm256_set1_epi8(15);
  __m256i b = _mm256_set1_epi8(static_cast<char>(0xFF));
  for (size_t k = 0; k < 3; ++k) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + k));
    const __m256i lo = _mm256_shuffle_epi8(f.low[k], _mm256_and_si256(v, nibble));
    const __m256i hi =
        _mm256_shuffle_epi8(f.high[k], _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble));
    b = _mm256_and_si256(b, _mm256_and_si256(lo, hi));
  }
  return b;
}

class Substrings {
 public:
  // `needles`: at least three bytes each, kept by view (they must outlive this object).
  explicit Substrings(const std::vector<std::string_view>& needles);

  // Whether `text` holds one of the needles. `readable_end`, when given, is how far past the text
  // its buffer may be read (the text of a string inside a code): a short text is then tested in
  // one vector step.
  [[nodiscard]] bool any_in(std::string_view text, const char* readable_end = nullptr) const;

  // Where in `text` a needle starts, in order, each position once.
  [[nodiscard]] std::vector<uint32_t> positions(std::string_view text) const;

  // Where the first needle at or after `from` starts in `text`, or npos: positions() one at a
  // time, for a reader that may stop early.
  [[nodiscard]] size_t find(std::string_view text, size_t from) const;

 private:
  // The first match from `from` on (all of them when `all`), into `out` when given; whether there
  // was one.
  bool scan_portable(std::string_view text, size_t from, bool all,
                     std::vector<uint32_t>* out) const;
  bool scan_avx2(std::string_view text, size_t from, const char* readable_end, bool all,
                 std::vector<uint32_t>* out) const;
  [[nodiscard]] bool matches_at(std::string_view text, size_t at, uint8_t buckets) const;

  std::vector<std::string_view> needles_;
  std::array<std::vector<uint16_t>, 8> bucket_;  // needles_ indices by bucket
  NibbleFilter filter_;
};

}  // namespace kbdata::source
