#include "dedup/shingles.h"

#include <xxhash.h>

#include <algorithm>
#include <string>

namespace kbdata::dedup {

void shingle_hashes(std::string_view text, int k, std::vector<uint64_t>& out, std::string& lowered) {
  if (text.empty()) return;
  lowered.assign(text);
  for (char& c : lowered) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  const size_t width = static_cast<size_t>(k);
  if (lowered.size() <= width) {
    out.push_back(XXH3_64bits_withSeed(lowered.data(), lowered.size(), kShingleSeed));
    return;
  }
  const size_t count = lowered.size() - width + 1;
  out.reserve(out.size() + count);
  const char* p = lowered.data();
  for (size_t i = 0; i < count; ++i) out.push_back(XXH3_64bits_withSeed(p + i, width, kShingleSeed));
}

std::vector<uint64_t> shingle_set(std::string_view text, int k) {
  std::vector<uint64_t> out;
  std::string lowered;
  shingle_hashes(text, k, out, lowered);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

double jaccard(std::span<const uint64_t> a, std::span<const uint64_t> b) {
  if (a.empty() && b.empty()) return 0.0;
  size_t i = 0;
  size_t j = 0;
  size_t common = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i] < b[j]) {
      ++i;
    } else if (b[j] < a[i]) {
      ++j;
    } else {
      ++common;
      ++i;
      ++j;
    }
  }
  return static_cast<double>(common) / static_cast<double>(a.size() + b.size() - common);
}

}  // namespace kbdata::dedup
