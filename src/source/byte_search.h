// Fast searches over source text that the scans and the lexer share: the next of three bytes, and
// the newlines in a span (AVX2 where the CPU has it, common/cpu.h).
#pragma once

#include <cstddef>

namespace kbdata::source {

// The first of bytes a, b and c in [p, end), or end.
[[nodiscard]] const char* find3(const char* p, const char* end, char a, char b, char c);

// The number of \n in [p, end).
[[nodiscard]] size_t count_newlines(const char* p, const char* end);

}  // namespace kbdata::source
