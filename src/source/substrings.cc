#include "source/substrings.h"

#include <immintrin.h>

#include <cstring>
#include <stdexcept>

#include "common/cpu.h"

namespace kbdata::source {

Substrings::Substrings(const std::vector<std::string_view>& needles) : needles_(needles) {
  for (size_t i = 0; i < needles_.size(); ++i) {
    const std::string_view n = needles_[i];
    if (n.size() < 3) throw std::invalid_argument("Substrings: a needle shorter than 3 bytes");
    const size_t b = filter_.narrowest_bucket_for(n);
    bucket_[b].push_back(static_cast<uint16_t>(i));
    filter_.add(n, b);
  }
}

bool Substrings::matches_at(std::string_view text, size_t at, uint8_t buckets) const {
  for (; buckets != 0; buckets &= static_cast<uint8_t>(buckets - 1)) {
    for (uint16_t i : bucket_[static_cast<size_t>(__builtin_ctz(buckets))]) {
      const std::string_view n = needles_[i];
      if (text.size() - at >= n.size() && std::memcmp(text.data() + at, n.data(), n.size()) == 0) {
        return true;
      }
    }
  }
  return false;
}

bool Substrings::scan_portable(std::string_view text, size_t from, bool all,
                               std::vector<uint32_t>* out) const {
  bool found = false;
  for (size_t at = from; at + 3 <= text.size(); ++at) {
    const uint8_t b = filter_.buckets_at(text.data() + at);
    if (b != 0 && matches_at(text, at, b)) {
      if (out != nullptr) out->push_back(static_cast<uint32_t>(at));
      if (!all) return true;
      found = true;
    }
  }
  return found;
}

__attribute__((target("avx2,bmi"))) bool Substrings::scan_avx2(std::string_view text, size_t from,
                                                               const char* readable_end, bool all,
                                                               std::vector<uint32_t>* out) const {
  const char* p = text.data();
  const size_t n = text.size();
  const size_t readable =
      readable_end != nullptr && readable_end > p + n ? static_cast<size_t>(readable_end - p) : n;
  const NibbleFilterAvx2 filter = load_avx2(filter_);
  bool found = false;
  size_t at = from;
  // Positions at..at+31, each with the two bytes after it loaded (at + 34 bytes readable); the
  // positions past the text are masked.
  for (; at < n && at + 34 <= readable; at += 32) {
    const __m256i b = buckets_avx2(filter, p + at);
    auto hits =
        ~static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(b, _mm256_setzero_si256())));
    if (n - at < 32) hits &= (1U << (n - at)) - 1;
    if (hits == 0) continue;
    alignas(32) std::array<uint8_t, 32> buckets;
    _mm256_store_si256(reinterpret_cast<__m256i*>(buckets.data()), b);
    for (; hits != 0; hits &= hits - 1) {
      const unsigned i = _tzcnt_u32(hits);
      if (matches_at(text, at + i, buckets[i])) {
        if (out != nullptr) out->push_back(static_cast<uint32_t>(at + i));
        if (!all) return true;
        found = true;
      }
    }
  }
  return (at < n && scan_portable(text, at, all, out)) || found;
}

bool Substrings::any_in(std::string_view text, const char* readable_end) const {
  return use_avx2() ? scan_avx2(text, 0, readable_end, false, nullptr)
                    : scan_portable(text, 0, false, nullptr);
}

std::vector<uint32_t> Substrings::positions(std::string_view text) const {
  std::vector<uint32_t> out;
  if (use_avx2()) {
    scan_avx2(text, 0, nullptr, true, &out);
  } else {
    scan_portable(text, 0, true, &out);
  }
  return out;
}

size_t Substrings::find(std::string_view text, size_t from) const {
  std::vector<uint32_t> at;
  const bool found = use_avx2() ? scan_avx2(text, from, nullptr, false, &at)
                                : scan_portable(text, from, false, &at);
  return found ? at.front() : std::string_view::npos;
}

}  // namespace kbdata::source
