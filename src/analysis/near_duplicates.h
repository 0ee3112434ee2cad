// Near-duplicates of one submission's code on its leaderboard (kbdata show --near-duplicates, the
// submission page of kbdata serve): the submissions, of any user, whose code's Jaccard similarity
// with it, over the 5-byte lower-cased shingles kbdata dedup clusters by, is estimated at or above
// a threshold (0.8, dedup's default). They are the members of the near-duplicate cluster around
// the submission, one step out: unlike dedup's clusters they are not joined transitively.
//
// The estimate is noise's one-permutation MinHash (noise.h, code_sketch: kSketchBins bins), each
// bin cut to one byte so that a folder kept in memory holds it at 256 bytes a row:
//
//   byte   0xFF for an empty bin, else the bin's least hash modulo 255
//   r      the fraction of equal bytes among the bins not empty in both
//   J      (r - 1/255) / (1 - 1/255), clamped to [0, 1]: two different least hashes share a byte
//          with probability 1/255, which the correction removes from r on average
//
// The standard error is about sqrt(J (1 - J) / 256) plus the byte collisions' own spread: 0.025
// at J = 0.8.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "dataset/loader.h"

namespace kbdata::analysis {

using ByteSketch = std::vector<uint8_t>;  // kSketchBins bytes; empty for empty code

[[nodiscard]] ByteSketch byte_sketch(std::string_view code);

// J as above; nullopt when both sketches are empty or all their bins are.
[[nodiscard]] std::optional<double> byte_sketch_similarity(const ByteSketch& a,
                                                           const ByteSketch& b);

// byte_sketch of each row's code (nothing for a row without code or with empty code) as a named
// step (dataset/resident.h), key "near-duplicates"; the row's prepared value is the ByteSketch.
[[nodiscard]] dataset::PrepareStep near_duplicate_step();

}  // namespace kbdata::analysis
