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

namespace {

// Sorts hashes (uniformly distributed: XXH3 outputs) by a counting sort on their top bits, then
// sorts each bucket, a few values, in place: about two passes instead of n log n comparisons.
void sort_hashes(std::vector<uint64_t>& values, std::vector<uint64_t>& scratch) {
  if (values.size() < 512) {
    std::sort(values.begin(), values.end());
    return;
  }
  int bits = 8;
  while (bits < 16 && (size_t{1} << bits) < values.size() / 4) ++bits;
  const int shift = 64 - bits;
  std::vector<uint32_t> start((size_t{1} << bits) + 1, 0);
  for (uint64_t v : values) ++start[(v >> shift) + 1];
  for (size_t b = 1; b < start.size(); ++b) start[b] += start[b - 1];
  scratch.resize(values.size());
  std::vector<uint32_t> next(start.begin(), start.end() - 1);
  for (uint64_t v : values) scratch[next[v >> shift]++] = v;
  for (size_t b = 0; b + 1 < start.size(); ++b) {
    std::sort(scratch.begin() + start[b], scratch.begin() + start[b + 1]);
  }
  values.swap(scratch);
}

}  // namespace

std::vector<uint64_t> shingle_set(std::string_view text, int k) {
  std::vector<uint64_t> out;
  std::vector<uint64_t> scratch;
  std::string lowered;
  shingle_hashes(text, k, out, lowered);
  sort_hashes(out, scratch);
  out.erase(std::unique(out.begin(), out.end()), out.end());
  out.shrink_to_fit();
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
