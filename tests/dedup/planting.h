// Test-only: texts with controlled 5-byte-shingle Jaccard similarity to a base text.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "similarity/shingles.h"

namespace kbdata::testing {

// splitmix64: a small deterministic generator for test data.
inline uint64_t next_random(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// `lines` lines of random lower-case words: text sharing almost no 5-byte shingles with others.
inline std::string random_text(size_t lines, uint64_t seed) {
  std::string out;
  for (size_t l = 0; l < lines; ++l) {
    const size_t words = 4 + next_random(seed) % 8;
    for (size_t w = 0; w < words; ++w) {
      const size_t len = 3 + next_random(seed) % 8;
      for (size_t c = 0; c < len; ++c) out += static_cast<char>('a' + next_random(seed) % 26);
      out += w + 1 < words ? ' ' : '\n';
    }
  }
  return out;
}

// An edited copy of `base`: its lines in a seeded order, the first c of them replaced by fresh
// random lines, with c the smallest count (found by bisection; similarity falls as c grows) whose
// exact Jaccard (k-byte shingles) with `base` is at most `target`. Returns the copy;
// `jaccard_out` receives its exact Jaccard with `base`.
inline std::string edited_copy(const std::string& base, double target, uint64_t seed,
                               double& jaccard_out, int k = 5) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < base.size()) {
    size_t end = base.find('\n', start);
    if (end == std::string::npos) end = base.size() - 1;
    lines.push_back(base.substr(start, end - start + 1));
    start = end + 1;
  }
  std::vector<size_t> order(lines.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[next_random(seed) % i]);
  std::vector<std::string> fresh;
  for (size_t i = 0; i < lines.size(); ++i) fresh.push_back(random_text(1, next_random(seed)));
  const std::vector<uint64_t> base_set = similarity::shingle_set(base, k);
  auto edit = [&](size_t count, double& j) {
    std::vector<std::string> edited = lines;
    for (size_t i = 0; i < count; ++i) edited[order[i]] = fresh[i];
    std::string copy;
    for (const auto& line : edited) copy += line;
    j = similarity::jaccard(base_set, similarity::shingle_set(copy, k));
    return copy;
  };
  size_t lo = 0;
  size_t hi = lines.size();  // edit(hi) is at most target (nothing of base left)
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    double j = 0;
    edit(mid, j);
    if (j <= target) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return edit(lo, jaccard_out);
}

}  // namespace kbdata::testing
