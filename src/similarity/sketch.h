// The 256-bin sketch of code: one-permutation MinHash of the byte shingles (the 5-byte lower-cased
// windows of shingles.h, the same sets dedup compares), cheap enough for commands that sketch every
// row of a folder: noise's near-identical pairs, pairs' lineages and decontamination,
// near-duplicates (docs/noise.md, docs/pairs.md).
//
//   hash     each shingle's 5 lower-cased bytes, little-endian, as a 40-bit number, mixed by
//            multiply_mix64 (mix.h); text shorter than 5 bytes but not empty is one shingle, its
//            bytes with its length at bit 48. multiply_mix64 is a bijection, so distinct shingles
//            never share a hash
//   bin      a hash's top 8 bits choose one of kSketchBins bins, which keeps its least hash; the
//            sketch stores 32 bits of it (bits 24..55), kEmptySketchBin for a bin no hash reached
//   similar  the fraction of equal bins among those not empty in both estimates the Jaccard
//            similarity J with a standard error of about sqrt(J (1 - J) / kSketchBins), 0.009 at
//            J = 0.98. One multiply-mix per byte, instead of dedup's XXH3 per shingle and 2048 bins
//            (minhash.h), is what keeps `noise` near `stats`
//
// The byte sketch (near-duplicates, kept in memory by kbdata serve at 256 bytes a row) cuts each
// bin to one byte:
//
//   byte   0xFF for an empty bin, else the bin's value modulo 255
//   r      the fraction of equal bytes among the bins not empty in both
//   J      (r - 1/255) / (1 - 1/255), clamped to [0, 1]: two different least hashes share a byte
//          with probability 1/255, which the correction removes from r on average
//
// Its standard error is about sqrt(J (1 - J) / 256) plus the byte collisions' own spread: 0.025 at
// J = 0.8.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace kbdata::similarity {

inline constexpr size_t kSketchShingleBytes = 5;
inline constexpr size_t kSketchBins = 256;
inline constexpr uint32_t kEmptySketchBin = UINT32_MAX;
using CodeSketch = std::vector<uint32_t>;  // kSketchBins values; empty for empty code

[[nodiscard]] CodeSketch code_sketch(std::string_view code);
// The same sketch without the CPU's vector extensions (code_sketch uses AVX-512 VBMI where the CPU
// has it, else AVX2 where it has that and $KBDATA_SIMD is not 0), and with AVX2 alone (REQUIRES:
// the CPU has AVX2); tests compare them.
[[nodiscard]] CodeSketch code_sketch_portable(std::string_view code);
[[nodiscard]] CodeSketch code_sketch_avx2(std::string_view code);

// The estimate of J of two sketches (kSketchBins values each); 1 when every bin is empty in both.
[[nodiscard]] double sketch_similarity(const uint32_t* a, const uint32_t* b);

// Whether bins [first, first + count) of a sketch are all empty: LSH banding never keys such a
// band.
[[nodiscard]] bool sketch_bins_empty(const uint32_t* sketch, size_t first, size_t count);

using ByteSketch = std::vector<uint8_t>;  // kSketchBins bytes; empty for empty code

[[nodiscard]] ByteSketch byte_sketch(std::string_view code);

// J as above; nullopt when both sketches are empty or all their bins are.
[[nodiscard]] std::optional<double> byte_sketch_similarity(const ByteSketch& a,
                                                           const ByteSketch& b);

}  // namespace kbdata::similarity
