#include "source/cpp_regions.h"

#include <immintrin.h>

#include <array>
#include <cstddef>

#include "common/cpu.h"
#include "source/bytes.h"
#include "source/tokens.h"

namespace kbdata::source {
namespace {

bool special(char c) { return c == '\\' || c == '/' || c == '"' || c == '\'' || c == '.'; }
bool ident(char c) { return is_ident(c); }
bool digit(char c) { return is_digit(c); }

// The positions in [p, p + n) (n <= 32) where the scan must look: a special byte, or a digit
// after a non-identifier byte (`ident_before`: the byte before p).
uint32_t events_portable(const char* p, size_t n, bool ident_before) {
  uint32_t s = 0, id = 0, dig = 0;
  for (size_t i = 0; i < n; ++i) {
    if (special(p[i])) s |= 1U << i;
    if (is_ident(p[i])) id |= 1U << i;
    if (is_digit(p[i])) dig |= 1U << i;
  }
  return s | (dig & ~((id << 1) | (ident_before ? 1U : 0U)));
}

__attribute__((target("avx2"))) uint32_t events_avx2(const char* p, bool ident_before) {
  const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
#define KBDATA_EQ(c) _mm256_cmpeq_epi8(v, _mm256_set1_epi8(c))
  const __m256i special =
      _mm256_or_si256(_mm256_or_si256(_mm256_or_si256(KBDATA_EQ('\\'), KBDATA_EQ('/')),
                                      _mm256_or_si256(KBDATA_EQ('"'), KBDATA_EQ('\''))),
                      KBDATA_EQ('.'));
  const __m256i low =
      _mm256_sub_epi8(_mm256_or_si256(v, _mm256_set1_epi8(0x20)), _mm256_set1_epi8('a'));
  const __m256i letter = _mm256_cmpeq_epi8(_mm256_min_epu8(low, _mm256_set1_epi8(25)), low);
  const __m256i d = _mm256_sub_epi8(v, _mm256_set1_epi8('0'));
  const __m256i dig = _mm256_cmpeq_epi8(_mm256_min_epu8(d, _mm256_set1_epi8(9)), d);
  const __m256i high = _mm256_cmpgt_epi8(_mm256_setzero_si256(), v);
  const __m256i id =
      _mm256_or_si256(_mm256_or_si256(letter, dig), _mm256_or_si256(high, KBDATA_EQ('_')));
#undef KBDATA_EQ
  const auto s = static_cast<uint32_t>(_mm256_movemask_epi8(special));
  const auto i = static_cast<uint32_t>(_mm256_movemask_epi8(id));
  const auto g = static_cast<uint32_t>(_mm256_movemask_epi8(dig));
  return s | (g & ~((i << 1) | (ident_before ? 1U : 0U)));
}

}  // namespace

const CppScan& CppScanner::scan_to(size_t target) {
  const size_t n = t_.size();
  while (pos_ < n && pos_ <= target) {
    const size_t chunk = pos_;
    const size_t len = n - chunk < 32 ? n - chunk : 32;
    const bool before = chunk > 0 && ident(t_[chunk - 1]);
    uint32_t m = use_avx2() && chunk + 32 <= n ? events_avx2(t_.data() + chunk, before)
                                               : events_portable(t_.data() + chunk, len, before);
    pos_ = chunk + len;  // past the chunk unless an event takes the scan further
    size_t next = chunk;
    for (; m != 0; m &= m - 1) {
      const size_t q = chunk + static_cast<size_t>(__builtin_ctz(m));
      if (q < next) continue;  // inside what an earlier event took
      next = event(q);
      if (next > chunk + len) break;
    }
    if (next > pos_) pos_ = next;
  }
  return out_;
}

CppScan CppScanner::take() && {
  scan_to(t_.size());
  return std::move(out_);
}

// The event at q; returns where the scan goes on.
size_t CppScanner::event(size_t q) {
  const size_t n = t_.size();
  const char c = t_[q];
  if (c == '\\') {
    const bool escape = q + 1 < n && (t_[q + 1] == 'n' || t_[q + 1] == 't' || t_[q + 1] == 'r');
    if (!escape) return q + 1;
    floor_ = q + 2;  // a token starts after the escape
    if (q + 2 < n && (digit(t_[q + 2]) || (t_[q + 2] == '.' && q + 3 < n && digit(t_[q + 3])))) {
      return number(q + 2);
    }
    return q + 2;
  }
  if (c == '/') {
    if (q + 1 < n && t_[q + 1] == '/') {
      size_t e = t_.find('\n', q);
      if (e == std::string_view::npos) e = n;
      return comment(q, e);
    }
    if (q + 1 < n && t_[q + 1] == '*') {
      const size_t close = t_.find("*/", q + 2);
      return comment(q, close == std::string_view::npos ? n : close + 2);
    }
    return q + 1;
  }
  if (c == '.') {
    if (q + 1 < n && digit(t_[q + 1])) return number(q);
    return q + 1;
  }
  if (c == '"' || c == '\'') return string(q);
  return number(q);  // a digit that starts a token
}

size_t CppScanner::comment(size_t begin, size_t end) {
  CppRegion r;
  r.region.comment = true;
  r.region.begin = r.region.body_begin = static_cast<uint32_t>(begin);
  r.region.end = r.region.body_end = static_cast<uint32_t>(end);
  out_.regions.push_back(r);
  floor_ = end;
  return end;
}

size_t CppScanner::number(size_t start) {
  const size_t n = t_.size();
  size_t p = start;
  while (p < n) {
    const char d = t_[p];
    if (ident(d) || d == '.' || d == '\'') {
      if (p > start && !digit(d) && ident(d)) {
        const char b = t_[p - 1];
        if (b == '.' || b == '\'' || b == '+' || b == '-') {
          out_.swallowed.push_back(static_cast<uint32_t>(p));
        }
      }
      ++p;
    } else if ((d == '+' || d == '-') &&
               (t_[p - 1] == 'e' || t_[p - 1] == 'E' || t_[p - 1] == 'p' || t_[p - 1] == 'P')) {
      ++p;
    } else {
      break;
    }
  }
  floor_ = p;
  return p;
}

// A string or character literal whose quote is at q, with the prefix of the identifier before it
// when that is one (tokenize_cpp: R, u8R, uR, UR, LR raw; L, u, U, u8 encoding).
size_t CppScanner::string(size_t q) {
  const size_t n = t_.size();
  size_t s = q;
  while (s > floor_ && ident(t_[s - 1])) --s;
  const std::string_view word = t_.substr(s, q - s);
  const char quote = t_[q];
  CppRegion r;
  r.region.quote = static_cast<uint32_t>(q);
  const bool raw_prefix =
      word == "R" || word == "u8R" || word == "uR" || word == "UR" || word == "LR";
  if (raw_prefix && quote == '"') {
    // The delimiter is at most 16 bytes: the '(' is looked for no further (tokenize_cpp too).
    const size_t window = t_.substr(q + 1, 17).find('(');
    const size_t paren = window == std::string_view::npos ? window : q + 1 + window;
    if (paren != std::string_view::npos && paren - q <= 17) {
      const size_t found = cpp_raw_string_close(t_, paren + 1, t_.substr(q + 1, paren - q - 1));
      r.region.begin = static_cast<uint32_t>(s);
      r.region.body_begin = static_cast<uint32_t>(paren + 1);
      r.region.body_end = static_cast<uint32_t>(found == std::string_view::npos ? n : found);
      r.region.end =
          static_cast<uint32_t>(found == std::string_view::npos ? n : found + paren - q + 1);
      out_.regions.push_back(r);
      floor_ = r.region.end;
      return r.region.end;
    }
  }
  const bool encoding = word == "L" || word == "u" || word == "U" || word == "u8";
  r.region.begin = static_cast<uint32_t>(encoding ? s : q);
  size_t p = q + 1;
  while (p < n && t_[p] != quote && t_[p] != '\n') {
    if (t_[p] == '\\') {
      if (p + 1 < n && t_[p + 1] == '\n') ++r.uncounted_newlines;
      p += 2;
    } else {
      ++p;
    }
  }
  if (p > n) p = n;
  r.region.body_begin = static_cast<uint32_t>(q + 1);
  r.region.body_end = static_cast<uint32_t>(p);
  r.region.end = static_cast<uint32_t>(p < n && t_[p] == quote ? p + 1 : p);
  out_.regions.push_back(r);
  floor_ = r.region.end;
  return r.region.end;
}

CppScan scan_cpp(std::string_view text) { return CppScanner(text).take(); }

bool cpp_name_starts_at(std::string_view text, uint32_t pos) {
  if (pos >= text.size() || !ident(text[pos]) || digit(text[pos])) return false;
  const auto escape_letter = [&](uint32_t at) {
    const char c = text[at];
    return at >= 1 && text[at - 1] == '\\' && (c == 'n' || c == 't' || c == 'r');
  };
  if (escape_letter(pos)) return false;  // the lexer steps over it with its backslash
  if (pos == 0 || !ident(text[pos - 1])) return true;
  return escape_letter(pos - 1);
}

}  // namespace kbdata::source
