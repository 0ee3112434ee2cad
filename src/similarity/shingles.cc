#include "similarity/shingles.h"

#include <algorithm>
#include <string>

#include "similarity/shingles_internal.h"

namespace kbdata::similarity {

void shingle_hashes(std::string_view text, int k, std::vector<uint64_t>& out,
                    std::string& lowered) {
  if (text.size() >= static_cast<size_t>(k))
    out.reserve(out.size() + text.size() - static_cast<size_t>(k) + 1);
  for_each_shingle_hash(text, k, lowered, [&](uint64_t h) { out.push_back(h); });
}

namespace {

// Sorts hashes (uniformly distributed: XXH3 outputs) by a counting sort on their top bits, with
// about one value per bucket, then orders the few buckets holding more than one: about two passes
// instead of n log n comparisons.
void sort_hashes(std::vector<uint64_t>& values, ShingleScratch& s) {
  if (values.size() < 256) {
    std::sort(values.begin(), values.end());
    return;
  }
  int bits = 8;
  while (bits < 20 && (size_t{1} << bits) < values.size()) ++bits;
  const int shift = 64 - bits;
  const size_t buckets = size_t{1} << bits;
  s.bucket_start.assign(buckets + 1, 0);
  for (uint64_t v : values) ++s.bucket_start[(v >> shift) + 1];
  for (size_t b = 1; b <= buckets; ++b) s.bucket_start[b] += s.bucket_start[b - 1];
  s.sorted.resize(values.size());
  s.bucket_next.assign(s.bucket_start.begin(), s.bucket_start.end() - 1);
  for (uint64_t v : values) s.sorted[s.bucket_next[v >> shift]++] = v;
  uint64_t* data = s.sorted.data();
  for (size_t b = 0; b < buckets; ++b) {
    const uint32_t begin = s.bucket_start[b];
    const uint32_t end = s.bucket_start[b + 1];
    if (end - begin == 2) {
      if (data[begin + 1] < data[begin]) std::swap(data[begin], data[begin + 1]);
    } else if (end - begin > 2) {
      std::sort(data + begin, data + end);
    }
  }
  values.swap(s.sorted);
}

}  // namespace

void shingle_set(std::string_view text, int k, ShingleScratch& scratch,
                 std::vector<uint64_t>& out) {
  out.clear();
  shingle_hashes(text, k, out, scratch.lowered);
  sort_hashes(out, scratch);
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

std::vector<uint64_t> shingle_set(std::string_view text, int k) {
  ShingleScratch scratch;
  std::vector<uint64_t> out;
  shingle_set(text, k, scratch, out);
  return out;
}

double jaccard(std::span<const uint64_t> a, std::span<const uint64_t> b) {
  if (a.empty() && b.empty()) return 0.0;
  // A branchless merge: hash order is random, so a branch per step would mispredict half the time.
  size_t i = 0;
  size_t j = 0;
  size_t common = 0;
  while (i < a.size() && j < b.size()) {
    const uint64_t x = a[i];
    const uint64_t y = b[j];
    common += x == y ? 1 : 0;
    i += x <= y ? 1 : 0;
    j += y <= x ? 1 : 0;
  }
  return static_cast<double>(common) / static_cast<double>(a.size() + b.size() - common);
}

}  // namespace kbdata::similarity
