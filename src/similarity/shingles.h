// Byte shingles of code text, as near-duplicate detection compares them (docs/dedup.md).
//
// A shingle is a window of `k` consecutive bytes of the ASCII-lower-cased text (A-Z become a-z;
// other bytes, UTF-8 included, are kept). Text shorter than k bytes but not empty is one shingle;
// empty text has none. A shingle is identified by its 64-bit XXH3 hash (seed kShingleSeed), which
// is also the random hash the MinHash signature is built from (minhash.h). Two distinct shingles
// share a hash with probability 2^-64, so "exact Jaccard" below is exact up to that.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kbdata::similarity {

inline constexpr uint64_t kShingleSeed = 0x6b62646174614444ULL;  // "kbdataDD"
inline constexpr int kMaxShingleBytes = 64;

// Appends the hash of every shingle of `text` (k bytes, 1 <= k <= kMaxShingleBytes) to `out`, in
// text order, repeats included. `lowered` is scratch space, reused between calls.
void shingle_hashes(std::string_view text, int k, std::vector<uint64_t>& out, std::string& lowered);

// Buffers reused between shingle_set calls of one thread.
struct ShingleScratch {
  std::string lowered;
  std::vector<uint64_t> sorted;
  std::vector<uint32_t> bucket_start;
  std::vector<uint32_t> bucket_next;
};

// The set of shingle hashes of `text`: sorted, without repeats, in `out` (replaced).
void shingle_set(std::string_view text, int k, ShingleScratch& scratch, std::vector<uint64_t>& out);
[[nodiscard]] std::vector<uint64_t> shingle_set(std::string_view text, int k);

// |a ∩ b| / |a ∪ b| of two sorted sets without repeats; 0 when both are empty.
[[nodiscard]] double jaccard(std::span<const uint64_t> a, std::span<const uint64_t> b);

}  // namespace kbdata::similarity
