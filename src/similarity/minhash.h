// MinHash signatures by one-permutation hashing (OPH) with optimal densification, and the LSH
// banding that turns them into candidate pairs (docs/dedup.md, "Signatures" and "Banding").
//
//   signature   kBins = 2048 bins. A shingle hash h (shingles.h) falls into bin h >> 53 (its top
//               11 bits) and the bin keeps the least h << 11 it sees. Empty bins are filled by
//               optimal densification (Shrivastava, ICML 2017): empty bin i copies the value of
//               the first non-empty bin of its own probe order, a random permutation of the bins
//               fixed for i (bins by a seeded 64-bit mix of (i, j)), found with bounded work
//               whatever the set. One pass over the shingles, one hash each,
//               instead of 2048 hashes per shingle for 2048 independent permutations.
//   estimate    the fraction of bins equal in two signatures estimates their Jaccard similarity;
//               its variance is at most about J(1-J)/kBins, that of 2048 permutations (tested in
//               tests/similarity/minhash_test.cc).
//   banding     b bands of r bins (b * r <= kBins); two signatures are candidates when some band is
//               equal in both, with probability 1 - (1 - J^r)^b (the S-curve). choose_lsh() picks
//               the largest r whose S-curve still passes a pair at the threshold with probability
//               >= kLshRecallAtThreshold; candidates are then verified by exact Jaccard.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kbdata::similarity {

inline constexpr int kBinBits = 11;
inline constexpr int kBins = 1 << kBinBits;
inline constexpr double kLshRecallAtThreshold = 0.999;

// kBins values; all kEmptyBin for an empty set.
using Signature = std::array<uint64_t, kBins>;
inline constexpr uint64_t kEmptyBin = UINT64_MAX;  // never a bin value: those end in 11 zero bits

// The densified OPH signature of a set given by its shingle hashes (repeats allowed: a minimum
// does not change when a value is seen twice). Returns false, leaving `out` all kEmptyBin, when
// `hashes` is empty.
bool compute_signature(std::span<const uint64_t> hashes, Signature& out);

// The signature of the shingles of `text` (shingles.h; k bytes), hashed straight into the bins
// without a list of hashes. `lowered` is scratch. Returns false, all kEmptyBin, for empty text.
bool compute_text_signature(std::string_view text, int k, std::string& lowered, Signature& out);

// Fraction of bins equal in `a` and `b`: the Jaccard estimate.
[[nodiscard]] double estimate_jaccard(const Signature& a, const Signature& b);

struct LshParams {
  int bands = 0;  // b
  int rows = 0;   // r, bins per band
};

// Probability that a pair of Jaccard similarity `s` shares at least one band: 1 - (1 - s^r)^b.
[[nodiscard]] double lsh_candidate_probability(const LshParams& p, double s);

// The banding for `threshold` (0 < threshold <= 1): the largest r such that, with b = kBins / r,
// lsh_candidate_probability(threshold) >= kLshRecallAtThreshold. For 0.8: b = 157, r = 13.
[[nodiscard]] LshParams choose_lsh(double threshold);

// One 32-bit key per band: the low 32 bits of band_key (lsh.h) of the band's r bin values.
// Appends p.bands keys to `out`.
void band_keys(const Signature& sig, const LshParams& p, std::vector<uint32_t>& out);

}  // namespace kbdata::similarity
