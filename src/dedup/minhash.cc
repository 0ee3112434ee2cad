#include "dedup/minhash.h"

#include <cmath>

#include "dedup/shingles_internal.h"

namespace kbdata::dedup {
namespace {

constexpr uint64_t kDensifySeed = 0x64656e7369667921ULL;

// g(i, attempt): the bin an empty bin i probes at `attempt`.
uint32_t probe(uint32_t bin, uint32_t attempt) {
  const uint32_t key[2] = {bin, attempt};
  return static_cast<uint32_t>(XXH3_64bits_withSeed(key, sizeof key, kDensifySeed) &
                               (kBins - 1));
}

inline void add_to_bins(uint64_t h, Signature& out) {
  const size_t bin = static_cast<size_t>(h >> (64 - kBinBits));
  const uint64_t value = h << kBinBits;
  if (value < out[bin]) out[bin] = value;
}

// Optimal densification: each empty bin copies from the first non-empty bin of its own probe
// sequence, looking at the bins as they were before densification. REQUIRES: a filled bin.
void densify(Signature& out) {
  std::array<bool, kBins> filled;
  bool any_empty = false;
  for (size_t i = 0; i < kBins; ++i) {
    filled[i] = out[i] != kEmptyBin;
    any_empty = any_empty || !filled[i];
  }
  if (!any_empty) return;
  for (uint32_t i = 0; i < kBins; ++i) {
    if (filled[i]) continue;
    for (uint32_t attempt = 1;; ++attempt) {
      const uint32_t j = probe(i, attempt);
      if (filled[j]) {
        out[i] = out[j];
        break;
      }
    }
  }
}

}  // namespace

bool compute_signature(std::span<const uint64_t> hashes, Signature& out) {
  out.fill(kEmptyBin);
  if (hashes.empty()) return false;
  for (uint64_t h : hashes) add_to_bins(h, out);
  densify(out);
  return true;
}

bool compute_text_signature(std::string_view text, int k, std::string& lowered, Signature& out) {
  out.fill(kEmptyBin);
  if (text.empty()) return false;
  for_each_shingle_hash(text, k, lowered, [&](uint64_t h) { add_to_bins(h, out); });
  densify(out);
  return true;
}

double estimate_jaccard(const Signature& a, const Signature& b) {
  int equal = 0;
  for (size_t i = 0; i < kBins; ++i) equal += a[i] == b[i] ? 1 : 0;
  return static_cast<double>(equal) / kBins;
}

double lsh_candidate_probability(const LshParams& p, double s) {
  return 1.0 - std::pow(1.0 - std::pow(s, p.rows), p.bands);
}

LshParams choose_lsh(double threshold) {
  LshParams best{kBins, 1};
  for (int r = 1; r <= kBins; ++r) {
    LshParams p{kBins / r, r};
    if (lsh_candidate_probability(p, threshold) >= kLshRecallAtThreshold) best = p;
  }
  return best;
}

void band_keys(const Signature& sig, const LshParams& p, std::vector<uint32_t>& out) {
  for (int band = 0; band < p.bands; ++band) {
    const uint64_t* first = sig.data() + static_cast<size_t>(band) * static_cast<size_t>(p.rows);
    out.push_back(static_cast<uint32_t>(
        XXH3_64bits_withSeed(first, sizeof(uint64_t) * static_cast<size_t>(p.rows),
                             static_cast<uint64_t>(band))));
  }
}

}  // namespace kbdata::dedup
