#include "similarity/lsh.h"

#include <xxhash.h>

namespace kbdata::similarity {
namespace {

template <typename T>
uint64_t band_key_of(std::span<const T> bins, uint64_t band) {
  return XXH3_64bits_withSeed(bins.data(), bins.size_bytes(), band);
}

}  // namespace

uint64_t band_key(std::span<const uint64_t> bins, uint64_t band) { return band_key_of(bins, band); }

uint64_t band_key(std::span<const uint32_t> bins, uint64_t band) { return band_key_of(bins, band); }

}  // namespace kbdata::similarity
