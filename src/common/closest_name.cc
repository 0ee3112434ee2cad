#include "common/closest_name.h"

#include <algorithm>
#include <vector>

namespace kbdata {
namespace {

char fold(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

}  // namespace

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                            [](char x, char y) { return fold(x) == fold(y); });
}

size_t edit_distance(std::string_view a, std::string_view b) {
  const size_t n = a.size(), m = b.size();
  // Three rows of the dynamic programme: i - 2, i - 1 and i.
  std::vector<size_t> before(m + 1), previous(m + 1), current(m + 1);
  for (size_t j = 0; j <= m; ++j) previous[j] = j;
  for (size_t i = 1; i <= n; ++i) {
    current[0] = i;
    for (size_t j = 1; j <= m; ++j) {
      const size_t cost = fold(a[i - 1]) == fold(b[j - 1]) ? 0 : 1;
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost});
      if (i > 1 && j > 1 && fold(a[i - 1]) == fold(b[j - 2]) && fold(a[i - 2]) == fold(b[j - 1])) {
        current[j] = std::min(current[j], before[j - 2] + 1);
      }
    }
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[m];
}

std::optional<std::string> closest_name(std::string_view typed,
                                        std::span<const std::string> candidates) {
  for (const std::string& c : candidates) {
    if (equals_ignoring_case(typed, c)) return c;
  }
  if (typed.size() >= 3) {
    for (const std::string& c : candidates) {
      if (c.size() > typed.size() && equals_ignoring_case(typed, c.substr(0, typed.size()))) {
        return c;
      }
    }
  }
  std::optional<std::string> best;
  size_t best_distance = 0;
  for (const std::string& c : candidates) {
    const size_t d = edit_distance(typed, c);
    // At most one edit per three characters of the longer name: "tpo" is "top", "foo" is not.
    if (d > std::max(typed.size(), c.size()) / 3 || d >= typed.size()) continue;
    if (!best || d < best_distance) {
      best = c;
      best_distance = d;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view typed, std::span<const std::string> candidates) {
  std::optional<std::string> name = closest_name(typed, candidates);
  return name ? "; did you mean '" + *name + "'?" : "";
}

}  // namespace kbdata
