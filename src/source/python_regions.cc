#include "source/python_regions.h"

#include <immintrin.h>

#include <cstddef>
#include <cstring>

#include "common/cpu.h"

namespace kbdata::source {
namespace {

// The first of bytes a, b and c in [p, end), or end.
const char* find3_portable(const char* p, const char* end, char a, char b, char c) {
  for (; p < end; ++p) {
    if (*p == a || *p == b || *p == c) return p;
  }
  return end;
}

__attribute__((target("avx2,bmi"))) const char* find3_avx2(const char* p, const char* end, char a,
                                                           char b, char c) {
  const __m256i va = _mm256_set1_epi8(a);
  const __m256i vb = _mm256_set1_epi8(b);
  const __m256i vc = _mm256_set1_epi8(c);
  while (end - p >= 32) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    const __m256i hit =
        _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(v, va), _mm256_cmpeq_epi8(v, vb)),
                        _mm256_cmpeq_epi8(v, vc));
    const auto mask = static_cast<uint32_t>(_mm256_movemask_epi8(hit));
    if (mask != 0) return p + _tzcnt_u32(mask);
    p += 32;
  }
  return find3_portable(p, end, a, b, c);
}

const char* find3(const char* p, const char* end, char a, char b, char c) {
  return use_avx2() ? find3_avx2(p, end, a, b, c) : find3_portable(p, end, a, b, c);
}

// The number of \n in [p, end).
size_t count_newlines_portable(const char* p, const char* end) {
  size_t n = 0;
  for (; p < end; ++p) n += *p == '\n';
  return n;
}

// Each 32-byte step adds its matches to 32 byte counters (a match compares as -1, which is
// subtracted), added up into four 64-bit sums before a byte counter could wrap.
__attribute__((target("avx2"))) size_t count_newlines_avx2(const char* p, const char* end) {
  const __m256i nl = _mm256_set1_epi8('\n');
  __m256i sums = _mm256_setzero_si256();
  while (end - p >= 32) {
    __m256i counters = _mm256_setzero_si256();
    for (int steps = 0; steps < 255 && end - p >= 32; ++steps, p += 32) {
      const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
      counters = _mm256_sub_epi8(counters, _mm256_cmpeq_epi8(v, nl));
    }
    sums = _mm256_add_epi64(sums, _mm256_sad_epu8(counters, _mm256_setzero_si256()));
  }
  const auto n = static_cast<size_t>(_mm256_extract_epi64(sums, 0) + _mm256_extract_epi64(sums, 1) +
                                     _mm256_extract_epi64(sums, 2) + _mm256_extract_epi64(sums, 3));
  return n + count_newlines_portable(p, end);
}

}  // namespace

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
    line_ += static_cast<uint32_t>(use_avx2() ? count_newlines_avx2(t + pos_, t + pos)
                                              : count_newlines_portable(t + pos_, t + pos));
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
