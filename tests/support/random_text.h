// Random texts made of given pieces, for the tests that hold two passes over a text (a screen and
// the full pass, a scan and the tokens) to the same answer.
#pragma once

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

}  // namespace kbdata::testing
