#include "similarity/minhash.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <utility>
#include <vector>

#include "similarity/lsh.h"
#include "similarity/mix.h"
#include "similarity/shingles_internal.h"

namespace kbdata::similarity {
namespace {

constexpr uint64_t kDensifySeed = 0x64656e7369667921ULL;

// rank(i, j): the place of bin j in empty bin i's probe order, a 64-bit mix of (i, j) with a fixed
// seed (splitmix64_finalize, mix.h). Bin i's probe order is every bin by increasing rank, ties by
// j: a random permutation of the bins, fixed for i and independent of the set.
inline uint64_t rank(uint32_t i, uint32_t j) {
  return splitmix64_finalize(((static_cast<uint64_t>(i) << 32) | j) ^ kDensifySeed);
}

// The first kProbes bins of every bin's probe order, computed once (kBins^2 ranks, about 20 ms).
constexpr uint32_t kProbes = 32;
using ProbeTable = std::array<uint16_t, kBins * kProbes>;

const ProbeTable& probe_table() {
  static const std::unique_ptr<ProbeTable> table = [] {
    auto t = std::make_unique<ProbeTable>();
    std::vector<std::pair<uint64_t, uint16_t>> order(kBins);
    for (uint32_t i = 0; i < kBins; ++i) {
      for (uint32_t j = 0; j < kBins; ++j) order[j] = {rank(i, j), static_cast<uint16_t>(j)};
      std::partial_sort(order.begin(), order.begin() + kProbes, order.end());
      for (uint32_t p = 0; p < kProbes; ++p) (*t)[i * kProbes + p] = order[p].second;
    }
    return t;
  }();
  return *table;
}

inline void add_to_bins(uint64_t h, Signature& out) {
  const size_t bin = static_cast<size_t>(h >> (64 - kBinBits));
  const uint64_t value = h << kBinBits;
  if (value < out[bin]) out[bin] = value;
}

// Optimal densification (Shrivastava, ICML 2017): each empty bin i copies the value of the first
// bin of its probe order that was non-empty before densification, i.e. the filled bin of least
// rank(i, j). Because the order is a random permutation fixed for i, two sets agree in bin i with
// probability J. The cost is bounded whatever the set: with more than kProbes filled bins, bin i
// looks at the first kProbes bins of its order (a filled one is there with probability
// 1 - (1 - f/kBins)^kProbes), and only otherwise takes the least rank over the f filled bins; with
// kProbes or fewer it takes the least rank at once. Either way the result is the same function of
// the set. REQUIRES: a filled bin.
void densify(Signature& out) {
  std::vector<uint16_t> filled_bins;
  std::array<bool, kBins> filled;
  for (uint32_t i = 0; i < kBins; ++i) {
    filled[i] = out[i] != kEmptyBin;
    if (filled[i]) filled_bins.push_back(static_cast<uint16_t>(i));
  }
  if (filled_bins.size() == kBins) return;
  const auto least_rank = [&](uint32_t i) {
    uint16_t best = filled_bins[0];
    uint64_t best_rank = rank(i, best);
    for (size_t k = 1; k < filled_bins.size(); ++k) {
      const uint64_t r = rank(i, filled_bins[k]);
      if (r < best_rank || (r == best_rank && filled_bins[k] < best)) {
        best = filled_bins[k];
        best_rank = r;
      }
    }
    return best;
  };
  const bool use_table = filled_bins.size() > kProbes;
  const ProbeTable* probes = use_table ? &probe_table() : nullptr;
  for (uint32_t i = 0; i < kBins; ++i) {
    if (filled[i]) continue;
    uint32_t source = kBins;
    if (use_table) {
      const uint16_t* order = &(*probes)[i * kProbes];
      for (uint32_t p = 0; p < kProbes; ++p) {
        if (filled[order[p]]) {
          source = order[p];
          break;
        }
      }
    }
    if (source == kBins) source = least_rank(i);
    out[i] = out[source];
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
        band_key(std::span<const uint64_t>(first, static_cast<size_t>(p.rows)),
                 static_cast<uint64_t>(band))));
  }
}

}  // namespace kbdata::similarity
