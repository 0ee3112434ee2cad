// What changed between two versions of a kernel: a unified diff of their lines, and the text a
// "no real change" test compares (docs/pairs.md, "Diffs" and "No real change").
#pragma once

#include <string>
#include <string_view>

namespace kbdata::pairs {

// The unified diff that turns `before` into `after`, as GNU `diff -u` writes it and `patch -p1`
// applies it: the header lines "--- a/NAME" and "+++ b/NAME" (`name` with any '/', '\\' or control
// byte replaced by '_', "submission" when empty), then hunks of 3 lines of context ("@@ -l,s +l,s
// @@", a count of 1 left out, a start of l - 1 for an empty side), deleted lines before added ones;
// a last line without a newline is followed by "\ No newline at end of file". Lines end at '\n'
// (a '\r' before it is part of the line). Empty when the texts are equal.
//
// The edit script is a shortest one (Wu, Manber and Myers' O(NP) algorithm, libdtl) over the lines
// between the common first and last lines of the two texts; when that middle holds more than
// kMaxDiffCells line pairs (N x M), the middle is written as deleted and added whole: a diff that
// still applies, not a shortest one (it bounds the time of one diff on hostile input).
[[nodiscard]] std::string unified_diff(std::string_view before, std::string_view after,
                                       std::string_view name);
inline constexpr double kMaxDiffCells = 25e6;

// The text two versions are compared by for "no real change": the code without its comments
// (Python `#` comments; C++ `//` and `/* */` comments of a C++ file, `is_cpp_source`, and of the
// C++ sources a Python file holds in strings that read as C++), each line's trailing spaces, tabs
// and carriage returns removed, and lines left empty dropped. Strings, docstrings included, and
// indentation are kept: they may change what runs.
[[nodiscard]] std::string normalised_code(std::string_view code, std::string_view file_name);

}  // namespace kbdata::pairs
