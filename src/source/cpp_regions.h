// The comments and string literals of C++ source (an embedded source's body, or a file) as
// tokenize_cpp cuts them, found without tokenising the rest: a scan that stops only where a
// comment, a string, a character literal or a number may start (a number swallows what follows
// it: the quote of a digit separator, 1'000, and letters after a dot, 1.f). A rule that needs only
// the names of the code reads these instead of the tokens (audit/code_rules.cc, the types of a
// source the screen passed).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "source/python_regions.h"

namespace kbdata::source {

struct CppRegion {
  Region region;  // a comment or a string (begin: where its prefix or quote starts)
  // A string's backslash-newline pairs, which the lexer steps over without counting a line.
  uint32_t uncounted_newlines = 0;
};

struct CppScan {
  std::vector<CppRegion> regions;  // in order; offsets in the text
  // The positions where a number goes on into an identifier byte after a '.', a quote, '+' or '-'
  // (1.half, 0x1p+f): such a byte starts no name, in order.
  std::vector<uint32_t> swallowed;
};

[[nodiscard]] CppScan scan_cpp(std::string_view text);

// The same scan a piece at a time, for a reader that may stop early (the types of an embedded
// source, read until their rule has its findings).
class CppScanner {
 public:
  explicit CppScanner(std::string_view text) : t_(text) {}

  // Reads on until every region that opens before `pos` (a comment at its start, a string at its
  // quote: a prefix such as u8R may start before `pos`) and every swallowed position before it
  // are known, each region whole, and returns what is known: the start of what scan_cpp finds.
  const CppScan& scan_to(size_t pos);
  // Everything scan_cpp finds.
  [[nodiscard]] CppScan take() &&;

 private:
  size_t event(size_t q);
  size_t comment(size_t begin, size_t end);
  size_t number(size_t start);
  size_t string(size_t q);

  std::string_view t_;
  size_t pos_ = 0;    // where the scan goes on
  size_t floor_ = 0;  // where the last region, number or escape ended: no prefix reaches before
  CppScan out_;
};

// Whether the identifier byte at `pos` of C++ `text`, in code, starts a name token (given that no
// number swallowed it): it is not a digit nor the letter of an escape the lexer steps over (\n,
// \t, \r), and the byte before it is not an identifier byte or is such a letter.
[[nodiscard]] bool cpp_name_starts_at(std::string_view text, uint32_t pos);

}  // namespace kbdata::source
