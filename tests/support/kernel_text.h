// A kernel-like text for the tests of code similarity (the sketch's and noise's): lines of loads
// whose names and offsets come from a seed, so that two seeds share almost no shingles.
#pragma once

#include <cstdint>
#include <string>

namespace kbdata::testing {

// A kernel-like text of about 6 KB from `seed`; `edit` changes one constant.
inline std::string kernel_text(int seed, int edit = 0) {
  std::string s = "# kernel " + std::to_string(seed) + "\n";
  uint64_t x = static_cast<uint64_t>(seed) * 0x9E3779B97F4A7C15ULL + 1;
  for (int line = 0; line < 200; ++line) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    s += "    tile_" + std::to_string(x % 100000) + " = load(ptr + " + std::to_string(x % 977) +
         ")\n";
  }
  s += "BLOCK = " + std::to_string(64 + edit) + "\n";
  return s;
}

}  // namespace kbdata::testing
