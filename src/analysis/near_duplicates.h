// Near-duplicates of one submission's code on its leaderboard (kbdata show --near-duplicates, the
// submission page of kbdata serve): the submissions, of any user, whose code's Jaccard similarity
// with it, over the 5-byte lower-cased shingles kbdata dedup clusters by, is estimated at or above
// a threshold (0.8, dedup's default). They are the members of the near-duplicate cluster around
// the submission, one step out: unlike dedup's clusters they are not joined transitively.
//
// The estimate is the byte sketch of similarity/sketch.h (byte_sketch, byte_sketch_similarity:
// the 256-bin sketch cut to one byte a bin, 256 bytes a row in a folder kept in memory), standard
// error 0.025 at J = 0.8.
#pragma once

#include "dataset/loader.h"

namespace kbdata::analysis {

// similarity::byte_sketch of each row's code (nothing for a row without code or with empty code) as
// a named step (dataset/resident.h), key "near-duplicates"; the row's prepared value is the
// similarity::ByteSketch.
[[nodiscard]] dataset::PrepareStep near_duplicate_step();

}  // namespace kbdata::analysis
