// The strings and comments of Python source found without tokenising it: the same STRING and
// COMMENT tokens tokenize_python makes (where they start, end and hold their body), from a scan
// that stops only at quotes, '#' and what ends a string or a comment. Everything between two
// regions is code. A rule that needs only to know whether a word occurs in code, or a string holds
// some text, reads these instead of the tokens (audit/code_screen.h).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace kbdata::source {

struct Region {
  bool comment = false;     // a COMMENT (# to the line's end), else a STRING
  bool triple = false;      // STRING with ''' or """
  uint32_t quote = 0;       // STRING: its first quote (a prefix such as r or f comes before it)
  uint32_t begin = 0;       // COMMENT: the '#'; STRING: the same as quote
  uint32_t end = 0;         // one past the region (the closing quotes included)
  uint32_t body_begin = 0;  // STRING: the bytes between the quotes; COMMENT: begin and end
  uint32_t body_end = 0;
};

// The regions of `text`, in order.
[[nodiscard]] std::vector<Region> python_regions(std::string_view text);

// The 1-based line numbers tokenize_python gives to positions of `text`, asked in increasing
// order: a newline in code is \n, \r\n or a lone \r; inside a string only \n counts.
class PythonLines {
 public:
  PythonLines(std::string_view text, const std::vector<Region>& regions);

  // The line of position `pos` (at least the position asked before).
  [[nodiscard]] uint32_t at(uint32_t pos);

 private:
  void count_code(uint32_t from, uint32_t to);

  std::string_view text_;
  const std::vector<Region>& regions_;
  // Without a \r every \n is a line, in code and in strings alike (a comment holds none).
  bool carriage_returns_ = false;
  size_t next_region_ = 0;  // the first region not wholly before pos_
  uint32_t pos_ = 0;
  uint32_t line_ = 1;
};

}  // namespace kbdata::source
