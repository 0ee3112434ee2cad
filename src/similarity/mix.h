// The 64-bit mixers of kbdata's similarity hashes. Each is a bijection of 64-bit values, so
// distinct inputs never share an output. There are two, and they differ on purpose: each is part of
// the bytes of some output (dedup's signatures, pairs' decontamination, noise's and
// near-duplicates' sketches), so neither may change or replace the other.
//
//   splitmix64_finalize  splitmix64's finaliser (xorshift 30, multiply, xorshift 27, multiply,
//                        xorshift 31); every output bit depends on every input bit. MinHash's
//                        densification ranks (minhash.cc) and decontamination's n-gram windows.
//   multiply_mix64       two rounds of multiply then xorshift 32 (kMultiplyMix1, kMultiplyMix2):
//                        the 256-bin sketch's shingle hash (sketch.h), two multiplies per shingle,
//                        cheap enough to run 8 lanes at a time (the sketch's AVX2 and AVX-512
//                        paths repeat it lane by lane with these constants).
#pragma once

#include <cstdint>

namespace kbdata::similarity {

inline constexpr uint64_t kSplitmixMul1 = 0xbf58476d1ce4e5b9ULL;
inline constexpr uint64_t kSplitmixMul2 = 0x94d049bb133111ebULL;

[[nodiscard]] constexpr uint64_t splitmix64_finalize(uint64_t z) {
  z = (z ^ (z >> 30)) * kSplitmixMul1;
  z = (z ^ (z >> 27)) * kSplitmixMul2;
  return z ^ (z >> 31);
}

inline constexpr uint64_t kMultiplyMix1 = 0x9E3779B97F4A7C15ULL;
inline constexpr uint64_t kMultiplyMix2 = 0xD6E8FEB86659FD93ULL;

[[nodiscard]] constexpr uint64_t multiply_mix64(uint64_t x) {
  x *= kMultiplyMix1;
  x ^= x >> 32;
  x *= kMultiplyMix2;
  x ^= x >> 32;
  return x;
}

}  // namespace kbdata::similarity
