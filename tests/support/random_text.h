// Random texts made of given pieces, for the tests that hold two passes over a text (a screen and
// the full pass, a scan and the tokens) to the same answer.
#pragma once

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace kbdata::testing {

// 1 to max_pieces pieces drawn from `pieces`, concatenated.
inline std::string random_text(std::mt19937_64& rng, const std::vector<std::string>& pieces,
                               size_t max_pieces) {
  std::string text;
  const size_t n = 1 + rng() % max_pieces;
  for (size_t i = 0; i < n; ++i) text += pieces[rng() % pieces.size()];
  return text;
}

// A kernel-like text of 60 lines of its own (names and constants drawn from `kernel`), a note line
// and the tuning constant `tile`: versions of one kernel (another tile or note) differ in one or
// two lines, two kernels in nearly every 5-byte window (estimated Jaccard about 0).
inline std::string kernel_text(const std::string& kernel, int tile, const std::string& note = "v") {
  std::string text = "# note: " + note + "\nimport torch\n";
  uint64_t h = std::hash<std::string>{}(kernel);
  auto next = [&h] {
    h = h * 6364136223846793005ULL + 1442695040888963407ULL;
    return std::to_string(h >> 20);
  };
  for (int i = 0; i < 60; ++i) text += "w" + next() + " = x * " + next() + " + w" + next() + "\n";
  return text + "TILE = " + std::to_string(tile) + "\n";
}

}  // namespace kbdata::testing
