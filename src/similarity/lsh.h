// LSH banding's one key rule, shared by dedup (2048-bin signatures, minhash.h band_keys) and
// decontamination (256-bin sketches, sketch.h): a band's key is XXH3-64 of its bins' values as they
// lie in memory (little-endian), seeded with the band's number, so that equal values in two
// different bands are different keys. Dedup keeps the low 32 bits of each key.
#pragma once

#include <cstdint>
#include <span>

namespace kbdata::similarity {

[[nodiscard]] uint64_t band_key(std::span<const uint64_t> bins, uint64_t band);
[[nodiscard]] uint64_t band_key(std::span<const uint32_t> bins, uint64_t band);

}  // namespace kbdata::similarity
