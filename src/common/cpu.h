// Which vector instructions the code may use: the scans of source text (source/, audit/) have an
// AVX2 path and a portable one that give the same results.
#pragma once

namespace kbdata {

// Whether the CPU has AVX2 (with BMI1 and POPCNT, which every such CPU has) and $KBDATA_SIMD is not
// "0": that setting takes the portable paths, for diagnosis and for the tests that check the two
// agree. Read once.
[[nodiscard]] bool use_avx2();

}  // namespace kbdata
