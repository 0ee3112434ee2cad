// The synthetic data's only source of randomness: xoshiro256** seeded through splitmix64, with
// distributions built from integer arithmetic and the C math library only, so a seed gives the same
// bytes with any standard library (std::*_distribution differs between libstdc++ and libc++).
#pragma once

#include <cmath>
#include <cstdint>
#include <string_view>

namespace kbdata::synth {

// splitmix64's finaliser: a bijective 64-bit mix, used to derive independent seeds.
[[nodiscard]] constexpr uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A seed derived from `seed` and the parts, for a sub-stream that does not shift when other
// streams draw more or fewer numbers.
[[nodiscard]] constexpr uint64_t derive(uint64_t seed, uint64_t a, uint64_t b = 0) {
  return mix64(mix64(seed ^ mix64(a)) + b);
}

[[nodiscard]] constexpr uint64_t hash_text(std::string_view text) {
  uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a
  for (char c : text) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  return h;
}

class Rng {
 public:
  explicit Rng(uint64_t seed) {
    for (uint64_t& s : s_) {
      seed += 0x9e3779b97f4a7c15ULL;
      s = mix64(seed);
    }
  }

  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform in [0, n); n > 0. Lemire's multiply-shift (the bias of < 2^-32 is irrelevant here).
  uint64_t below(uint64_t n) {
    __extension__ using u128 = unsigned __int128;
    return static_cast<uint64_t>((static_cast<u128>(next()) * n) >> 64);
  }
  // Uniform in [lo, hi].
  int64_t range(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(below(static_cast<uint64_t>(hi - lo) + 1));
  }
  // Uniform in [0, 1), 53 bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  bool chance(double p) { return uniform() < p; }
  // Approximately standard normal: Irwin-Hall sum of 12 uniforms (no transcendental functions).
  double normal() {
    double sum = 0;
    for (int i = 0; i < 12; ++i) sum += uniform();
    return sum - 6.0;
  }
  // Pareto with minimum `xmin` and tail index `alpha`: heavy-tailed counts.
  double pareto(double xmin, double alpha) {
    return xmin * std::pow(1.0 - uniform(), -1.0 / alpha);
  }

  template <typename T, size_t N>
  const T& pick(const T (&items)[N]) {
    return items[below(N)];
  }

 private:
  static constexpr uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

}  // namespace kbdata::synth
