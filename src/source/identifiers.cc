#include "source/identifiers.h"

#include <algorithm>
#include <cstdint>
#include <iterator>

namespace kbdata::source {
namespace {

struct Fold {
  uint32_t code_point;
  const char* nfkc;  // UTF-8
};

constexpr Fold kFolds[] = {
#include "source/nfkc_table.inc"
};

static_assert(std::is_sorted(std::begin(kFolds), std::end(kFolds),
                             [](const Fold& a, const Fold& b) {
                               return a.code_point < b.code_point;
                             }),
              "the NFKC table is sorted by code point");

// The code point of the UTF-8 sequence at `p` and its length; length 0 for invalid bytes.
uint32_t decode(std::string_view s, size_t p, size_t& length) {
  const auto b = [&](size_t i) { return static_cast<unsigned char>(s[p + i]); };
  const unsigned char c = b(0);
  size_t n = 0;
  uint32_t cp = 0;
  if (c < 0x80) {
    length = 1;
    return c;
  }
  if ((c & 0xE0) == 0xC0) {
    n = 2;
    cp = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    n = 3;
    cp = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    n = 4;
    cp = c & 0x07;
  } else {
    length = 0;
    return 0;
  }
  if (p + n > s.size()) {
    length = 0;
    return 0;
  }
  for (size_t i = 1; i < n; ++i) {
    if ((b(i) & 0xC0) != 0x80) {
      length = 0;
      return 0;
    }
    cp = (cp << 6) | (b(i) & 0x3F);
  }
  length = n;
  return cp;
}

}  // namespace

void append_nfkc_identifier(std::string& out, std::string_view name) {
  size_t p = 0;
  while (p < name.size()) {
    if (static_cast<unsigned char>(name[p]) < 0x80) {
      out += name[p++];
      continue;
    }
    size_t length = 0;
    const uint32_t cp = decode(name, p, length);
    if (length == 0) {
      out += name[p++];
      continue;
    }
    const auto it = std::lower_bound(std::begin(kFolds), std::end(kFolds), cp,
                                     [](const Fold& f, uint32_t c) { return f.code_point < c; });
    if (it != std::end(kFolds) && it->code_point == cp) {
      out += it->nfkc;
    } else {
      out.append(name.substr(p, length));
    }
    p += length;
  }
}

}  // namespace kbdata::source
