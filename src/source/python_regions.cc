#include "source/python_regions.h"

#include <cstddef>
#include <cstring>

#include "source/byte_search.h"

namespace kbdata::source {

// The same decisions as the lexer of tokens.cc: in code, every quote starts a string and every
// '#' a comment (neither byte is part of a name, a number or an operator); a string ends at its
// closing quote(s), a backslash takes the byte after it whatever it is, a one-line string left open
// ends before the line's \n, and one left open at the end of the text runs to the end; a comment
// ends before \n or \r.
std::vector<Region> python_regions(std::string_view text) {
  std::vector<Region> out;
  const char* const base = text.data();
  const char* const end = base + text.size();
  const char* p = base;
  while (p < end) {
    p = find3(p, end, '"', '\'', '#');
    if (p == end) break;
    Region r;
    r.begin = static_cast<uint32_t>(p - base);
    if (*p == '#') {
      r.comment = true;
      const char* e = find3(p, end, '\n', '\r', '\n');
      r.end = static_cast<uint32_t>(e - base);
      r.body_begin = r.begin;
      r.body_end = r.end;
      out.push_back(r);
      p = e;
      continue;
    }
    const char q = *p;
    r.quote = r.begin;
    r.triple = end - p >= 3 && p[1] == q && p[2] == q;
    const size_t open = r.triple ? 3 : 1;
    const char* s = p + open;
    r.body_begin = static_cast<uint32_t>(s - base);
    r.body_end = r.end = static_cast<uint32_t>(text.size());
    // A triple-quoted string does not end at a line's end: its \n is not looked for.
    const char stop = r.triple ? q : '\n';
    while (s < end) {
      s = find3(s, end, q, '\\', stop);
      if (s == end) break;
      if (*s == '\\') {
        if (end - s >= 2) {
          s += 2;
        } else {
          ++s;
        }
        continue;
      }
      if (*s == '\n') {
        r.body_end = r.end = static_cast<uint32_t>(s - base);
        break;
      }
      if (!r.triple) {
        r.body_end = static_cast<uint32_t>(s - base);
        r.end = r.body_end + 1;
        break;
      }
      if (end - s >= 3 && s[1] == q && s[2] == q) {
        r.body_end = static_cast<uint32_t>(s - base);
        r.end = r.body_end + 3;
        break;
      }
      ++s;
    }
    out.push_back(r);
    p = base + r.end;
  }
  return out;
}

PythonLines::PythonLines(std::string_view text, const std::vector<Region>& regions)
    : text_(text),
      regions_(regions),
      carriage_returns_(std::memchr(text.data(), '\r', text.size()) != nullptr) {}

void PythonLines::count_code(uint32_t from, uint32_t to) {
  const char* t = text_.data();
  for (const char* p = t + from; p < t + to;) {
    p = find3(p, t + to, '\n', '\r', '\n');
    if (p == t + to) break;
    // \r\n is one newline, counted at its \n; a lone \r is one too.
    if (!(*p == '\r' && p + 1 < t + text_.size() && p[1] == '\n')) ++line_;
    ++p;
  }
}

uint32_t PythonLines::at(uint32_t pos) {
  if (pos <= pos_) return line_;
  const char* t = text_.data();
  if (!carriage_returns_) {
    line_ += static_cast<uint32_t>(count_newlines(t + pos_, t + pos));
    pos_ = pos;
    return line_;
  }
  while (pos_ < pos) {
    if (next_region_ < regions_.size() && regions_[next_region_].begin < pos) {
      const Region& r = regions_[next_region_];
      if (pos_ < r.begin) count_code(pos_, r.begin);
      // Inside a string only \n counts (a comment holds none).
      const uint32_t stop = pos < r.end ? pos : r.end;
      const uint32_t from = pos_ > r.begin ? pos_ : r.begin;
      if (!r.comment) {
        for (const char* p = t + from; p < t + stop;) {
          p = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(t + stop - p)));
          if (p == nullptr) break;
          ++line_;
          ++p;
        }
      }
      pos_ = stop;
      if (stop == r.end) ++next_region_;
      continue;
    }
    count_code(pos_, pos);
    pos_ = pos;
  }
  return line_;
}

}  // namespace kbdata::source
