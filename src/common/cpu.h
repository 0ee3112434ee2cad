// Which vector instructions the code may use: the scans of source text (source/, audit/) have an
// AVX2 path and a portable one that give the same results.
#pragma once

namespace kbdata {

namespace detail {
bool detect_avx2();
}  // namespace detail

// Whether the CPU has AVX2 (with BMI1 and POPCNT, which every such CPU has) and $KBDATA_SIMD is not
// "0": that setting takes the portable paths, for diagnosis and for the tests that check the two
// agree. Read once; inline, as the scans ask it for every chunk.
[[nodiscard]] inline bool use_avx2() {
  static const bool yes = detail::detect_avx2();
  return yes;
}

}  // namespace kbdata
