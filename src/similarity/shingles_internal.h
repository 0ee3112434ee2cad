// Private to src/similarity: the shingle loop, inlined into its two users (shingle_hashes and
// compute_text_signature), with XXH3 inlined too: most shingles are 5 bytes, and a call per shingle
// would cost as much as the hash. shingles.h states the rule.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "similarity/shingles.h"

namespace kbdata::similarity {

// Calls fn(hash) for every shingle of `text` (k bytes, 1 <= k <= kMaxShingleBytes), in text order,
// repeats included. `lowered` is scratch space, reused between calls.
template <typename Fn>
inline void for_each_shingle_hash(std::string_view text, int k, std::string& lowered, Fn&& fn) {
  if (text.empty()) return;
  lowered.assign(text);
  for (char& c : lowered) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  const size_t width = static_cast<size_t>(k);
  if (lowered.size() <= width) {
    fn(XXH3_64bits_withSeed(lowered.data(), lowered.size(), kShingleSeed));
    return;
  }
  const size_t count = lowered.size() - width + 1;
  const char* p = lowered.data();
  for (size_t i = 0; i < count; ++i) fn(XXH3_64bits_withSeed(p + i, width, kShingleSeed));
}

}  // namespace kbdata::similarity
