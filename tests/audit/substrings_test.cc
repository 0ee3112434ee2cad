// Substrings finds what std::string_view::find finds, whatever the needles share and wherever in
// the text (the first positions, the last bytes the vector loop leaves to the byte loop), all at
// once or one at a time from any position.
#include "source/substrings.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace kbdata::source {
namespace {

TEST(Substrings, FindsWhatFindFinds) {
  std::mt19937_64 rng(3);
  const std::string alphabet = "abc_ .\n\"#\x80\xff";
  for (int round = 0; round < 3000; ++round) {
    std::vector<std::string> owned;
    const size_t count = 1 + rng() % 12;
    for (size_t i = 0; i < count; ++i) {
      std::string n;
      const size_t len = 3 + rng() % 6;
      for (size_t k = 0; k < len; ++k) n += alphabet[rng() % alphabet.size()];
      owned.push_back(n);
    }
    std::vector<std::string_view> needles(owned.begin(), owned.end());
    const Substrings set(needles);
    std::string text;
    const size_t len = rng() % 200;
    for (size_t k = 0; k < len; ++k) text += alphabet[rng() % alphabet.size()];
    if (rng() % 2 == 0) text.insert(rng() % (text.size() + 1), owned[rng() % owned.size()]);
    bool expected = false;
    for (std::string_view n : needles) expected |= text.find(n) != std::string::npos;
    ASSERT_EQ(set.any_in(text), expected) << text;
    std::vector<uint32_t> starts;
    for (uint32_t at = 0; at < text.size(); ++at) {
      bool here = false;
      for (std::string_view n : needles) here |= text.compare(at, n.size(), n) == 0;
      if (here) starts.push_back(at);
    }
    ASSERT_EQ(set.positions(text), starts) << text;
    // One at a time, from every position.
    for (size_t from = 0; from <= text.size(); ++from) {
      const auto next = std::lower_bound(starts.begin(), starts.end(), from);
      ASSERT_EQ(set.find(text, from), next == starts.end() ? std::string::npos : size_t{*next})
          << "from " << from << " in " << text;
    }
    // The same text inside a longer buffer that may be read past it.
    const std::string buffer = text + std::string(rng() % 80, 'a') + owned[0];
    ASSERT_EQ(
        set.any_in(std::string_view(buffer).substr(0, text.size()), buffer.data() + buffer.size()),
        expected)
        << text;
  }
}

TEST(Substrings, RefusesNeedlesShorterThanThreeBytes) {
  EXPECT_THROW(Substrings({"ab"}), std::invalid_argument);
}

}  // namespace
}  // namespace kbdata::source
