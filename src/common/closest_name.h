// "Did you mean ...?": the one place kbdata picks the known name closest to a misspelled one, for
// commands, options, problems, columns, configs and runners alike.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace kbdata {

// The optimal-string-alignment distance (Damerau-Levenshtein where a transposed pair of adjacent
// characters costs 1 and no substring is edited twice) between `a` and `b`, comparing bytes with
// ASCII letters folded to lower case.
[[nodiscard]] size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `typed`, or nullopt when none is close enough. Close enough: equal
// ignoring ASCII case; else `typed` (3 or more bytes) is a prefix of the candidate; else an
// edit_distance of at most one per three bytes of the longer of the two (max(typed.size(),
// candidate.size()) / 3, rounded down) and below typed.size(): "tpo" is close to "top", "foo"
// (two edits in three) is not, and a two-byte name only by case or as a prefix. Ties go to the
// earliest candidate.
[[nodiscard]] std::optional<std::string> closest_name(std::string_view typed,
                                                      std::span<const std::string> candidates);

// "; did you mean 'NAME'?" for closest_name(typed, candidates), or "" when there is none.
[[nodiscard]] std::string did_you_mean(std::string_view typed,
                                       std::span<const std::string> candidates);

// True when `a` and `b` are equal ignoring ASCII case.
[[nodiscard]] bool equals_ignoring_case(std::string_view a, std::string_view b);

}  // namespace kbdata
