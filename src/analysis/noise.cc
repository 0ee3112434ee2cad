#include "analysis/noise.h"

#include <immintrin.h>

#include <algorithm>
#include <any>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <tuple>

#include "analysis/ranking.h"
#include "common/cpu.h"
#include "dataset/run_result.h"

namespace kbdata::analysis {
namespace {

constexpr double kZ95 = 1.959963984540054;
constexpr double kMadToSigma = 1.482602218505602;  // 1 / Phi^-1(3/4)
constexpr double kMadRelativeError = 1.1664;       // sqrt(n) x relative sd of the MAD, normal data
constexpr size_t kShingleBytes = 5;                // the dedup default

double median_of(std::vector<double>& v) {
  const size_t n = v.size();
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(v.begin(), mid, v.end());
  if (n % 2 == 1) return *mid;
  const double upper = *mid;
  const double lower = *std::max_element(v.begin(), mid);
  return (lower + upper) / 2;
}

// The z with P(Z > z) = p for a standard normal Z, 0 < p < 0.5, by bisection on erfc.
double upper_normal_quantile(double p) {
  double lo = 0, hi = 40;
  for (int i = 0; i < 200; ++i) {
    const double mid = (lo + hi) / 2;
    if (0.5 * std::erfc(mid / std::sqrt(2.0)) > p) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return (lo + hi) / 2;
}

// The log(public) - log(secret) of a legacy submission, when it has both runs.
std::optional<double> public_secret_difference(const dataset::Submission& s) {
  if (!s.score || s.runs.empty()) return std::nullopt;
  const dataset::RankingBy ranking = dataset::ranking_by_of(s.leaderboard_id);
  const dataset::Run* public_run = nullptr;
  for (const dataset::Run& r : s.runs) {
    if (r.mode == "leaderboard" && r.passed == true && r.score == s.score) {
      public_run = &r;
      break;
    }
  }
  if (public_run == nullptr) return std::nullopt;
  for (const dataset::Run& r : s.runs) {
    if (&r == public_run || r.mode != "leaderboard" || r.passed != true) continue;
    std::optional<double> secret = r.score;
    if (!secret) secret = dataset::score_from_benchmarks(r.benchmarks, ranking);
    if (secret && valid_score(*secret)) {  // *s.score qualifies: valid too
      return std::log(*s.score) - std::log(*secret);
    }
  }
  return std::nullopt;
}

std::vector<NoisePoint> windows_of(std::vector<TimedDifference> pairs, size_t window) {
  std::sort(pairs.begin(), pairs.end(), [](const TimedDifference& a, const TimedDifference& b) {
    return a.time_us < b.time_us;
  });
  if (window == 0) window = std::max<size_t>(20, pairs.size() / 20);
  std::vector<NoisePoint> out;
  for (size_t at = 0; at + window <= pairs.size(); at += window) {
    // A short tail joins the last window.
    const size_t end = pairs.size() - (at + window) < window ? pairs.size() : at + window;
    std::vector<double> values;
    for (size_t i = at; i < end; ++i) values.push_back(pairs[i].value);
    if (auto e = pair_estimate(NoiseSource::COMBINED, values)) {
      out.push_back({pairs[at + (end - at) / 2].time_us, e->sigma, end - at});
    }
    if (end == pairs.size()) break;
  }
  return out;
}

}  // namespace

const char* to_string(NoiseSource source) {
  switch (source) {
    case NoiseSource::HARNESS_ERR:
      return "harness_err";
    case NoiseSource::PUBLIC_SECRET:
      return "public_secret";
    case NoiseSource::SAME_CODE:
      return "same_code";
    case NoiseSource::NEAR_IDENTICAL:
      return "near_identical";
    case NoiseSource::COMBINED:
      return "combined";
  }
  return "?";
}

std::optional<double> sigma_at(const SeriesNoise& series, int64_t time_us) {
  if (series.change) {
    return time_us < series.change->time_us ? series.change->before.sigma
                                            : series.change->after.sigma;
  }
  if (series.combined) return series.combined->sigma;
  return std::nullopt;
}

std::optional<NoiseEstimate> pair_estimate(NoiseSource source, std::vector<double> differences) {
  const size_t n = differences.size();
  if (n < 2) return std::nullopt;
  const double m = median_of(differences);
  for (double& d : differences) d = std::abs(d - m);
  const double mad = median_of(differences);
  NoiseEstimate e;
  e.source = source;
  e.pairs = n;
  e.shift = m;
  e.sigma = kMadToSigma * mad / std::sqrt(2.0);
  const double spread = std::exp(kZ95 * kMadRelativeError / std::sqrt(static_cast<double>(n)));
  e.sigma_lo = e.sigma / spread;
  e.sigma_hi = e.sigma * spread;
  return e;
}

std::optional<NoiseEstimate> harness_estimate(const std::vector<double>& variances) {
  const size_t n = variances.size();
  if (n < 2) return std::nullopt;
  const double mean =
      std::accumulate(variances.begin(), variances.end(), 0.0) / static_cast<double>(n);
  double ss = 0;
  for (double v : variances) ss += (v - mean) * (v - mean);
  const double se = std::sqrt(ss / static_cast<double>(n - 1) / static_cast<double>(n));
  NoiseEstimate e;
  e.source = NoiseSource::HARNESS_ERR;
  e.pairs = n;
  e.sigma = std::sqrt(mean);
  e.sigma_lo = std::sqrt(std::max(0.0, mean - kZ95 * se));
  e.sigma_hi = std::sqrt(mean + kZ95 * se);
  return e;
}

std::optional<double> run_log_variance(const std::vector<dataset::BenchmarkResult>& benchmarks,
                                       dataset::RankingBy ranking) {
  if (benchmarks.empty()) return std::nullopt;
  double sum_relative = 0, sum_err = 0, sum_mean = 0;
  double last_relative = 0;
  for (const dataset::BenchmarkResult& b : benchmarks) {
    if (!b.mean || !(*b.mean > 0) || !std::isfinite(*b.mean)) return std::nullopt;
    std::optional<double> err = b.err;
    if (!err && b.std_dev && b.runs && *b.runs > 0) {
      err = *b.std_dev / std::sqrt(static_cast<double>(*b.runs));
    }
    if (!err || !std::isfinite(*err) || *err < 0) return std::nullopt;
    const double r = *err / *b.mean;
    sum_relative += r * r;
    sum_err += *err * *err;
    sum_mean += *b.mean;
    last_relative = r * r;
  }
  const auto n = static_cast<double>(benchmarks.size());
  switch (ranking) {
    case dataset::RankingBy::GEOM:
      return sum_relative / (n * n);
    case dataset::RankingBy::MEAN:
      return sum_err / (sum_mean * sum_mean);
    case dataset::RankingBy::LAST:
      return last_relative;
  }
  return std::nullopt;
}

std::optional<NoiseEstimate> combine(const std::vector<NoiseEstimate>& sources) {
  double weights = 0, weighted = 0;
  uint64_t pairs = 0;
  for (const NoiseEstimate& e : sources) {
    if (!(e.sigma > 0) || !(e.sigma_lo > 0)) continue;
    const double se = (std::log(e.sigma_hi) - std::log(e.sigma_lo)) / (2 * kZ95);
    if (!(se > 0)) continue;
    const double w = 1 / (se * se);
    weights += w;
    weighted += w * std::log(e.sigma);
    pairs += e.pairs;
  }
  if (!(weights > 0)) return std::nullopt;
  NoiseEstimate c;
  c.source = NoiseSource::COMBINED;
  c.pairs = pairs;
  c.sigma = std::exp(weighted / weights);
  const double se = 1 / std::sqrt(weights);
  c.sigma_lo = c.sigma * std::exp(-kZ95 * se);
  c.sigma_hi = c.sigma * std::exp(kZ95 * se);
  return c;
}

std::optional<ChangePoint> find_change_point(std::vector<TimedDifference> pairs,
                                             size_t min_segment) {
  const size_t n = pairs.size();
  min_segment = std::max({min_segment, size_t{2}, n / 20});
  if (n < 2 * min_segment) return std::nullopt;
  std::stable_sort(
      pairs.begin(), pairs.end(),
      [](const TimedDifference& a, const TimedDifference& b) { return a.time_us < b.time_us; });
  // y = log(d^2), with d floored at a millionth of the typical |d| (a pair of equal scores would
  // give -inf).
  std::vector<double> magnitudes;
  for (const TimedDifference& p : pairs) magnitudes.push_back(std::abs(p.value));
  const double floor = std::max(median_of(magnitudes) * 1e-6, 1e-300);
  std::vector<double> y(n), prefix(n + 1, 0), prefix_sq(n + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    const double d = std::max(std::abs(pairs[i].value), floor);
    y[i] = std::log(d * d);
    prefix[i + 1] = prefix[i] + y[i];
    prefix_sq[i + 1] = prefix_sq[i] + y[i] * y[i];
  }
  double best = -1;
  size_t best_k = 0;
  for (size_t k = min_segment; k + min_segment <= n; ++k) {
    // Splits only between distinct times: pairs of one instant stay together.
    if (pairs[k].time_us == pairs[k - 1].time_us) continue;
    const auto n1 = static_cast<double>(k);
    const auto n2 = static_cast<double>(n - k);
    const double s1 = prefix[k], s2 = prefix[n] - prefix[k];
    const double q1 = prefix_sq[k], q2 = prefix_sq[n] - prefix_sq[k];
    const double m1 = s1 / n1, m2 = s2 / n2;
    const double within = (q1 - n1 * m1 * m1) + (q2 - n2 * m2 * m2);
    const double pooled = std::sqrt(std::max(within, 0.0) / (n1 + n2 - 2));
    if (!(pooled > 0)) continue;
    const double t = std::abs(m1 - m2) / (pooled * std::sqrt(1 / n1 + 1 / n2));
    if (t > best) {
      best = t;
      best_k = k;
    }
  }
  if (best_k == 0) return std::nullopt;
  const double critical = upper_normal_quantile(0.01 / (2.0 * static_cast<double>(n - 1)));
  if (!(best > critical)) return std::nullopt;
  std::vector<double> before, after;
  for (size_t i = 0; i < n; ++i) (i < best_k ? before : after).push_back(pairs[i].value);
  ChangePoint c;
  c.time_us = pairs[best_k].time_us;
  c.before = *pair_estimate(NoiseSource::COMBINED, std::move(before));
  c.after = *pair_estimate(NoiseSource::COMBINED, std::move(after));
  c.statistic = best;
  c.critical = critical;
  return c;
}

std::vector<RankUncertainty> rank_uncertainty(const Ranking& ranking, const SeriesNoise* noise,
                                              const std::vector<int64_t>& measurements) {
  std::vector<RankUncertainty> out(ranking.entries.size());
  for (size_t i = 0; i < ranking.entries.size(); ++i) {
    const RankedEntry& e = ranking.entries[i];
    RankUncertainty& u = out[i];
    u.measurements = std::max<int64_t>(1, i < measurements.size() ? measurements[i] : 1);
    if (noise) u.sigma = sigma_at(*noise, e.submission_time);
    const double half =
        u.sigma ? kZ95 * *u.sigma / std::sqrt(static_cast<double>(u.measurements)) : 0;
    u.lo = e.score * std::exp(-half);
    u.hi = e.score * std::exp(half);
  }
  for (size_t i = 0; i < out.size(); ++i) {
    int64_t certainly = 0, possibly = 0;
    for (size_t j = 0; j < out.size(); ++j) {
      if (j == i) continue;
      if (out[j].hi < out[i].lo) ++certainly;
      if (out[j].lo < out[i].hi) ++possibly;
    }
    out[i].rank_best = 1 + certainly;
    out[i].rank_worst = 1 + possibly;
    const bool above = i > 0 && out[i - 1].hi >= out[i].lo;
    const bool below = i + 1 < out.size() && out[i].hi >= out[i + 1].lo;
    out[i].tied = above || below;
  }
  return out;
}

namespace {

// The hash of a shingle: a 64-bit bijection (two multiply-mixes).
constexpr uint64_t kMix1 = 0x9E3779B97F4A7C15ULL;
constexpr uint64_t kMix2 = 0xD6E8FEB86659FD93ULL;
inline uint64_t mix64(uint64_t x) {
  x *= kMix1;
  x ^= x >> 32;
  x *= kMix2;
  x ^= x >> 32;
  return x;
}

// Each hash lowers its bin (its top 8 bits) to it if it is below the bin's value.
inline void lower_bins(const uint64_t* hashes, size_t n, uint64_t* mins) {
  for (size_t i = 0; i < n; ++i) {
    const uint64_t h = hashes[i];
    uint64_t& m = mins[h >> 56];
    m = h < m ? h : m;
  }
}

constexpr size_t kHashBlock = 256;

// An ASCII letter in lower case; every other byte as it is.
inline uint64_t lower(unsigned char c) {
  return static_cast<unsigned char>(c + (static_cast<unsigned>(c - 'A') < 26u ? 32 : 0));
}

// Keeps in each bin of `mins` the least of its hashes and those of the shingles at p + i, for
// i < n (n <= kHashBlock; the text holds p[n + 3]). A hash is mix64 of the 5 lower-cased bytes,
// little-endian; its bin is its top 8 bits.
using AddShingles = void (*)(const unsigned char* p, size_t n, uint64_t* mins);

// For any x86-64: no hash waits for another, and the bytes are read one by one at each of the 5
// offsets, so the hashing loop vectorises; the bins are updated one hash at a time.
__attribute__((optimize("tree-vectorize"))) void add_shingles_portable(
    const unsigned char* __restrict p, size_t n, uint64_t* __restrict mins) {
  static_assert(kShingleBytes == 5);
  std::array<uint64_t, kHashBlock> hashes;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t v = lower(p[i]) | lower(p[i + 1]) << 8 | lower(p[i + 2]) << 16 |
                       lower(p[i + 3]) << 24 | lower(p[i + 4]) << 32;
    hashes[i] = mix64(v);
  }
  lower_bins(hashes.data(), n, mins);
}

// Lane j of 8 takes bytes j..j+4 of a 16-byte window (the other 3 bytes are zeroed).
constexpr std::array<uint8_t, 64> shingle_lanes() {
  std::array<uint8_t, 64> index{};
  for (size_t lane = 0; lane < 8; ++lane) {
    for (size_t k = 0; k < 8; ++k)
      index[8 * lane + k] = static_cast<uint8_t>(lane + (k < 5 ? k : 0));
  }
  return index;
}

// With AVX-512 VBMI, 8 shingles at a time: the 12 bytes they span are loaded (no byte past
// p[n + 3]), lower-cased, spread into 8 lanes by one byte permutation and mixed in the lanes.
// Most hashes of a long text change no bin: a hash whose low 56 bits exceed those of every bin's
// least hash cannot (it is compared within its own bin, whose top 8 bits it shares), so only the
// others are kept (compressed into a buffer) and compared one by one. The bins end the same.
// GCC 12's intrinsics start many results from an "undefined" vector, which it then reports as
// uninitialised (GCC bug 105593, fixed in 13).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi"))) void add_shingles_vbmi(
    const unsigned char* p, size_t n, uint64_t* mins) {
  static_assert(kShingleBytes == 5 && kHashBlock % 8 == 0 && kSketchBins % 8 == 0);
  static constexpr std::array<uint8_t, 64> kLanes = shingle_lanes();
  const __m512i lanes = _mm512_loadu_si512(kLanes.data());
  const __mmask64 shingle_bytes = 0x1F1F1F1F1F1F1F1FULL;  // bytes 0-4 of each lane
  const __m128i a = _mm_set1_epi8('A');
  const __m128i z_minus_a = _mm_set1_epi8('Z' - 'A');
  const __m128i to_lower = _mm_set1_epi8('a' - 'A');
  const __m512i k1 = _mm512_set1_epi64(static_cast<long long>(kMix1));
  const __m512i k2 = _mm512_set1_epi64(static_cast<long long>(kMix2));
  const __m512i low56 = _mm512_set1_epi64(static_cast<long long>((uint64_t{1} << 56) - 1));
  __m512i highest = _mm512_setzero_si512();
  for (size_t b = 0; b < kSketchBins; b += 8) {
    highest = _mm512_max_epu64(highest, _mm512_and_si512(_mm512_loadu_si512(mins + b), low56));
  }
  // The lanes' maximum in every lane (lanes swapped by 4, 2 and 1).
  highest = _mm512_max_epu64(highest, _mm512_shuffle_i64x2(highest, highest, 0x4E));
  highest = _mm512_max_epu64(highest, _mm512_shuffle_i64x2(highest, highest, 0xB1));
  highest = _mm512_max_epu64(highest, _mm512_permutex_epi64(highest, 0x4E));
  highest = _mm512_max_epu64(highest, _mm512_permutex_epi64(highest, 0xB1));

  std::array<uint64_t, kHashBlock + 8> kept;
  size_t count = 0;
  for (size_t i = 0; i < n; i += 8) {
    // A masked load only near the end: Zen 4 takes several times longer over one.
    const size_t readable = n + kShingleBytes - 1 - i;
    __m128i w = readable >= 16
                    ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i))
                    : _mm_maskz_loadu_epi8(static_cast<__mmask16>((1u << readable) - 1), p + i);
    const __mmask16 upper = _mm_cmple_epu8_mask(_mm_sub_epi8(w, a), z_minus_a);
    w = _mm_mask_add_epi8(w, upper, w, to_lower);
    __m512i v = _mm512_maskz_permutexvar_epi8(shingle_bytes, lanes, _mm512_zextsi128_si512(w));
    v = _mm512_mullo_epi64(v, k1);
    v = _mm512_xor_si512(v, _mm512_srli_epi64(v, 32));
    v = _mm512_mullo_epi64(v, k2);
    v = _mm512_xor_si512(v, _mm512_srli_epi64(v, 32));
    const auto text = static_cast<__mmask8>(n - i >= 8 ? 0xFF : (1u << (n - i)) - 1);
    const __mmask8 may_lower =
        _mm512_mask_cmple_epu64_mask(text, _mm512_and_si512(v, low56), highest);
    _mm512_storeu_si512(kept.data() + count, _mm512_maskz_compress_epi64(may_lower, v));
    count += static_cast<size_t>(__builtin_popcount(may_lower));
  }
  lower_bins(kept.data(), count, mins);
}
#pragma GCC diagnostic pop

// 64-bit multiplies lane by lane with AVX2, which has only 32 x 32 -> 64: the low product plus
// the two cross products shifted up (the high x high product falls outside 64 bits).
__attribute__((target("avx2"))) inline __m256i mullo64_avx2(__m256i x, __m256i k_low,
                                                            __m256i k_high) {
  const __m256i low = _mm256_mul_epu32(x, k_low);
  const __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(x, 32), k_low),
                                         _mm256_mul_epu32(x, k_high));
  return _mm256_add_epi64(low, _mm256_slli_epi64(cross, 32));
}

__attribute__((target("avx2"))) inline __m256i mix64_avx2(__m256i x, const __m256i k[4]) {
  x = mullo64_avx2(x, k[0], k[1]);
  x = _mm256_xor_si256(x, _mm256_srli_epi64(x, 32));
  x = mullo64_avx2(x, k[2], k[3]);
  return _mm256_xor_si256(x, _mm256_srli_epi64(x, 32));
}

// Byte shuffles of a 16-byte window repeated in both 128-bit halves: lane j (of 4) takes bytes
// first + j .. first + j + 4, the other three bytes of the lane are zero (top bit set).
constexpr std::array<int8_t, 32> shingle_lanes_avx2(int first) {
  std::array<int8_t, 32> index{};
  for (int lane = 0; lane < 4; ++lane) {
    for (int b = 0; b < 8; ++b) {
      index[static_cast<size_t>(8 * lane + b)] =
          b < 5 ? static_cast<int8_t>(first + lane + b) : static_cast<int8_t>(-128);
    }
  }
  return index;
}

// For each 4-bit mask of 64-bit lanes, the 32-bit element indexes that move the masked lanes to
// the front, in order (AVX2's stand-in for AVX-512's compress).
constexpr std::array<std::array<int32_t, 8>, 16> compress_lanes_avx2() {
  std::array<std::array<int32_t, 8>, 16> table{};
  for (int mask = 0; mask < 16; ++mask) {
    int out = 0;
    for (int lane = 0; lane < 4; ++lane) {
      if ((mask >> lane & 1) == 0) continue;
      table[static_cast<size_t>(mask)][static_cast<size_t>(2 * out)] = 2 * lane;
      table[static_cast<size_t>(mask)][static_cast<size_t>(2 * out + 1)] = 2 * lane + 1;
      ++out;
    }
  }
  return table;
}

// Appends to `kept` the hashes of `h` whose low 56 bits are at most `highest` (the others cannot
// lower their bin), without a branch on which; the low 56 bits are below 2^63, so the signed
// compare is the unsigned one. `kept` has room for 4 more than `count`.
__attribute__((target("avx2"))) inline void keep_avx2(__m256i h, __m256i highest, __m256i low56,
                                                      uint64_t* kept, size_t& count) {
  static constexpr std::array<std::array<int32_t, 8>, 16> kCompress = compress_lanes_avx2();
  const __m256i above = _mm256_cmpgt_epi64(_mm256_and_si256(h, low56), highest);
  const int may_lower = ~_mm256_movemask_pd(_mm256_castsi256_pd(above)) & 0xF;
  const __m256i order =
      _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kCompress[may_lower].data()));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(kept + count),
                      _mm256_permutevar8x32_epi32(h, order));
  count += static_cast<size_t>(__builtin_popcount(static_cast<unsigned>(may_lower)));
}

// With AVX2 (CPUs without AVX-512, such as AMD's Zen 3), 8 shingles at a time as two vectors of
// 4: the 12 bytes they span are loaded as 16 (only where 16 are readable: the last shingles go
// to the portable loop), lower-cased, spread into lanes by a byte shuffle of each 128-bit half
// and mixed with 64-bit multiplies built from 32-bit ones. As with VBMI, a hash whose low 56
// bits exceed those of every bin's least hash cannot lower its bin and is dropped before the bin
// is looked at (a bin's least hash only falls, so the maximum taken once per call stays valid).
__attribute__((target("avx2"))) void add_shingles_avx2(const unsigned char* p, size_t n,
                                                       uint64_t* mins) {
  static_assert(kShingleBytes == 5);
  static constexpr std::array<int8_t, 32> kLanesLow = shingle_lanes_avx2(0);
  static constexpr std::array<int8_t, 32> kLanesHigh = shingle_lanes_avx2(4);
  constexpr uint64_t kLow56 = (uint64_t{1} << 56) - 1;
  uint64_t highest_bin = 0;
  for (size_t b = 0; b < kSketchBins; ++b) highest_bin = std::max(highest_bin, mins[b] & kLow56);
  const __m256i highest = _mm256_set1_epi64x(static_cast<long long>(highest_bin));
  const __m256i low56 = _mm256_set1_epi64x(static_cast<long long>(kLow56));
  const __m256i k[4] = {_mm256_set1_epi64x(static_cast<long long>(kMix1 & 0xFFFFFFFF)),
                        _mm256_set1_epi64x(static_cast<long long>(kMix1 >> 32)),
                        _mm256_set1_epi64x(static_cast<long long>(kMix2 & 0xFFFFFFFF)),
                        _mm256_set1_epi64x(static_cast<long long>(kMix2 >> 32))};
  const __m256i lanes_low = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kLanesLow.data()));
  const __m256i lanes_high =
      _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kLanesHigh.data()));
  const __m128i a = _mm_set1_epi8('A');
  const __m128i span = _mm_set1_epi8('Z' - 'A');
  const __m128i to_lower = _mm_set1_epi8('a' - 'A');
  std::array<uint64_t, kHashBlock + 8> kept;
  size_t count = 0;
  // Shingles i..i+7 need bytes i..i+11; 16 are loaded, and the text holds n + 4 bytes from p.
  size_t i = 0;
  for (; i + 8 <= n && i + 16 <= n + kShingleBytes - 1; i += 8) {
    __m128i w = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    const __m128i offset = _mm_sub_epi8(w, a);
    const __m128i upper = _mm_cmpeq_epi8(_mm_min_epu8(offset, span), offset);
    w = _mm_add_epi8(w, _mm_and_si128(upper, to_lower));
    const __m256i both = _mm256_broadcastsi128_si256(w);
    keep_avx2(mix64_avx2(_mm256_shuffle_epi8(both, lanes_low), k), highest, low56, kept.data(),
              count);
    keep_avx2(mix64_avx2(_mm256_shuffle_epi8(both, lanes_high), k), highest, low56, kept.data(),
              count);
  }
  lower_bins(kept.data(), count, mins);
  if (i < n) add_shingles_portable(p + i, n - i, mins);
}

// The CPU's fastest path, chosen at the call (not by an ifunc resolver, which runs before a
// sanitizer's runtime is ready); the same bins either way.
bool has_vbmi() {
  static const bool yes = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                          __builtin_cpu_supports("avx512vl") &&
                          __builtin_cpu_supports("avx512dq") &&
                          __builtin_cpu_supports("avx512vbmi");
  return yes;
}

CodeSketch sketch_with(std::string_view code, AddShingles add_shingles) {
  CodeSketch out;
  if (code.empty()) return out;
  // Each shingle is its 5 lower-cased bytes as a 40-bit number; mix64 is a bijection, so distinct
  // shingles never share a hash. Bin: the top 8 bits; the bin keeps its least hash.
  static_assert(kSketchBins == 256);
  std::array<uint64_t, kSketchBins> mins;
  mins.fill(UINT64_MAX);
  const auto* p = reinterpret_cast<const unsigned char*>(code.data());
  if (code.size() < kShingleBytes) {  // text shorter than a shingle is one shingle
    uint64_t v = 0;
    for (size_t i = 0; i < code.size(); ++i) v |= lower(p[i]) << (8 * i);
    const uint64_t h = mix64(v | (uint64_t{code.size()} << 48));
    mins[h >> 56] = h;
  }
  const size_t shingles = code.size() >= kShingleBytes ? code.size() - kShingleBytes + 1 : 0;
  for (size_t at = 0; at < shingles; at += kHashBlock) {
    add_shingles(p + at, std::min(kHashBlock, shingles - at), mins.data());
  }
  out.resize(kSketchBins);
  for (size_t b = 0; b < kSketchBins; ++b) {
    out[b] = mins[b] == UINT64_MAX ? kEmptySketchBin : static_cast<uint32_t>(mins[b] >> 24);
  }
  return out;
}

}  // namespace

CodeSketch code_sketch(std::string_view code) {
  return sketch_with(code, has_vbmi()   ? add_shingles_vbmi
                           : use_avx2() ? add_shingles_avx2
                                        : add_shingles_portable);
}

CodeSketch code_sketch_avx2(std::string_view code) { return sketch_with(code, add_shingles_avx2); }

CodeSketch code_sketch_portable(std::string_view code) {
  return sketch_with(code, add_shingles_portable);
}

double sketch_similarity(const uint32_t* a, const uint32_t* b) {
  size_t equal = 0, used = 0;
  for (size_t i = 0; i < kSketchBins; ++i) {
    const bool empty = a[i] == kEmptySketchBin && b[i] == kEmptySketchBin;
    used += empty ? 0 : 1;
    equal += !empty && a[i] == b[i] ? 1 : 0;
  }
  return used == 0 ? 1.0 : static_cast<double>(equal) / static_cast<double>(used);
}

NoiseBuilder::NoiseBuilder(NoiseOptions options) : options_(options) {}

NoiseBuilder::~NoiseBuilder() = default;

namespace {

// Whether a row takes part in the estimates: it qualifies (its score is a positive normal number,
// so its log exists).
bool measured(const dataset::Submission& s) { return qualifies(s); }

}  // namespace

bool NoiseBuilder::wants_code(const dataset::Submission& s) { return measured(s); }

dataset::PrepareStep NoiseBuilder::prepare_step() {
  dataset::PrepareStep step;
  step.key = "noise";
  step.code_wanted = wants_code;
  step.prepare = prepare;
  step.bytes = [](const std::any& v) {
    const auto* sketch = std::any_cast<CodeSketch>(&v);
    return sketch == nullptr ? 0 : sizeof(CodeSketch) + sketch->capacity() * sizeof(uint32_t);
  };
  return step;
}

void NoiseBuilder::prepare(dataset::Submission& s, std::optional<std::string_view> code) {
  if (measured(s) && code && !code->empty()) s.prepared = code_sketch(*code);
}

const uint32_t* NoiseBuilder::sketch_of(int64_t index) const {
  return sketches_[static_cast<size_t>(index)].data();
}

uint32_t NoiseBuilder::series_index(const dataset::Submission& s) {
  SeriesKey key{s.leaderboard_id, s.runner};
  auto [it, inserted] = series_by_key_.try_emplace(key, static_cast<uint32_t>(series_.size()));
  if (inserted) series_.push_back({std::move(key), s.problem_name, {}, {}});
  return it->second;
}

const uint32_t* NoiseBuilder::add(dataset::Submission&& s) {
  Row row;
  row.series = series_index(s);
  const std::string user_key = std::to_string(s.leaderboard_id) + "/" + s.user_id;
  row.user = users_.try_emplace(user_key, static_cast<uint32_t>(users_.size())).first->second;
  row.time_us = s.submission_time;
  row.submission_id = s.submission_id;
  row.code_id = s.code_id;
  row.qualifies = measured(s);
  if (row.qualifies) {
    row.log_score = std::log(*s.score);
    // The sketch is moved, not copied: made on a worker, its memory was touched there.
    CodeSketch* prepared = std::any_cast<CodeSketch>(&s.prepared);
    if (prepared != nullptr && !prepared->empty()) {
      row.sketch = static_cast<int64_t>(sketches_.size());
      sketches_.push_back(std::move(*prepared));
    } else if (prepared == nullptr && s.code && !s.code->empty()) {
      row.sketch = static_cast<int64_t>(sketches_.size());
      sketches_.push_back(code_sketch(*s.code));
    }
    SeriesData& data = series_[row.series];
    if (s.benchmarks) {
      const dataset::RankingBy ranking = dataset::ranking_by_of(s.leaderboard_id);
      if (auto v = run_log_variance(*s.benchmarks, ranking)) data.harness.push_back(*v);
    }
    if (auto d = public_secret_difference(s)) data.secret.push_back({s.submission_time, *d});
  }
  rows_.push_back(row);
  // A sketch's values stay where they are while sketches_ grows (a vector moves its buffer).
  return row.sketch < 0 ? nullptr : sketch_of(row.sketch);
}

std::vector<SeriesNoise> NoiseBuilder::finish() {
  const size_t count = series_.size();
  std::vector<std::vector<TimedDifference>> same_code(count), near(count);

  // same_code: the qualifying rows of one code on one series, consecutive in time.
  {
    std::vector<uint32_t> order;
    for (uint32_t i = 0; i < rows_.size(); ++i) {
      if (rows_[i].qualifies && rows_[i].code_id.has_value()) order.push_back(i);
    }
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      const Row& x = rows_[a];
      const Row& y = rows_[b];
      return std::tie(x.series, x.code_id, x.time_us, x.submission_id) <
             std::tie(y.series, y.code_id, y.time_us, y.submission_id);
    });
    for (size_t i = 1; i < order.size(); ++i) {
      const Row& a = rows_[order[i - 1]];
      const Row& b = rows_[order[i]];
      if (a.series != b.series || a.code_id != b.code_id) continue;
      same_code[b.series].push_back({b.time_us, b.log_score - a.log_score});
    }
  }

  // near_identical: a user's consecutive submissions to a leaderboard (whatever their outcome),
  // on the same runner, both qualifying, different but near-identical code.
  {
    std::vector<uint32_t> order(rows_.size());
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      const Row& x = rows_[a];
      const Row& y = rows_[b];
      return std::tie(x.user, x.time_us, x.submission_id, x.series) <
             std::tie(y.user, y.time_us, y.submission_id, y.series);
    });
    // [begin, end) of the previous submission's rows.
    size_t prev_begin = 0, prev_end = 0;
    size_t at = 0;
    while (at < order.size()) {
      size_t end = at + 1;
      while (end < order.size() && rows_[order[end]].user == rows_[order[at]].user &&
             rows_[order[end]].submission_id == rows_[order[at]].submission_id) {
        ++end;
      }
      const bool same_user =
          prev_end > prev_begin && rows_[order[prev_begin]].user == rows_[order[at]].user;
      if (same_user) {
        for (size_t j = at; j < end; ++j) {
          const Row& b = rows_[order[j]];
          if (!b.qualifies || b.sketch < 0) continue;
          for (size_t i = prev_begin; i < prev_end; ++i) {
            const Row& a = rows_[order[i]];
            if (a.series != b.series || !a.qualifies || a.sketch < 0 || a.code_id == b.code_id) {
              continue;
            }
            const uint32_t* sa = sketch_of(a.sketch);
            const uint32_t* sb = sketch_of(b.sketch);
            if (sketch_similarity(sa, sb) >= options_.similarity) {
              near[b.series].push_back({b.time_us, b.log_score - a.log_score});
            }
          }
        }
      }
      prev_begin = at;
      prev_end = end;
      at = end;
    }
  }

  std::vector<SeriesNoise> out;
  for (uint32_t i = 0; i < count; ++i) {
    const SeriesData& data = series_[i];
    SeriesNoise noise;
    noise.leaderboard_id = data.key.leaderboard_id;
    noise.problem_name = data.problem_name;
    noise.runner = data.key.runner;
    std::vector<TimedDifference> centred;
    if (auto e = harness_estimate(data.harness)) noise.sources.push_back(*e);
    auto add_pairs = [&](NoiseSource source, const std::vector<TimedDifference>& pairs) {
      std::vector<double> values;
      for (const TimedDifference& p : pairs) values.push_back(p.value);
      const std::optional<NoiseEstimate> e = pair_estimate(source, values);
      if (!e) return;
      noise.sources.push_back(*e);
      for (const TimedDifference& p : pairs) centred.push_back({p.time_us, p.value - e->shift});
    };
    add_pairs(NoiseSource::PUBLIC_SECRET, data.secret);
    add_pairs(NoiseSource::SAME_CODE, same_code[i]);
    add_pairs(NoiseSource::NEAR_IDENTICAL, near[i]);
    if (noise.sources.empty()) continue;
    // The harness's errors measure the spread within one run, a lower bound of the spread between
    // runs: they are combined only when no repeat measurement gives an estimate.
    std::vector<NoiseEstimate> repeats;
    for (const NoiseEstimate& e : noise.sources) {
      if (e.source != NoiseSource::HARNESS_ERR) repeats.push_back(e);
    }
    noise.combined = combine(repeats.empty() ? noise.sources : repeats);
    noise.change = find_change_point(centred, options_.min_segment);
    noise.over_time = windows_of(std::move(centred), options_.window);
    out.push_back(std::move(noise));
  }
  std::sort(out.begin(), out.end(), [](const SeriesNoise& a, const SeriesNoise& b) {
    return SeriesKey{a.leaderboard_id, a.runner} < SeriesKey{b.leaderboard_id, b.runner};
  });
  return out;
}

}  // namespace kbdata::analysis
