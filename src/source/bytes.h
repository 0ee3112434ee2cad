// The byte classes every reader of source text shares (the lexers of tokens.cc, the scans of
// python_regions, cpp_regions and the audit's screen): an identifier starts with a letter, '_' or
// any byte of a multi-byte UTF-8 character (>= 0x80), and goes on with those and digits.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace kbdata::source {

inline constexpr uint8_t kIdentStartByte = 1;
inline constexpr uint8_t kIdentByte = 2;
inline constexpr uint8_t kDigitByte = 4;
inline constexpr std::array<uint8_t, 256> kByteClass = [] {
  std::array<uint8_t, 256> classes{};
  for (unsigned c = 0; c < 256; ++c) {
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
    const bool digit = c >= '0' && c <= '9';
    classes[c] = static_cast<uint8_t>((letter ? kIdentStartByte | kIdentByte : 0) |
                                      (digit ? kIdentByte | kDigitByte : 0));
  }
  return classes;
}();

[[nodiscard]] inline bool is_ident_start(char c) {
  return (kByteClass[static_cast<unsigned char>(c)] & kIdentStartByte) != 0;
}
[[nodiscard]] inline bool is_ident(char c) {
  return (kByteClass[static_cast<unsigned char>(c)] & kIdentByte) != 0;
}
[[nodiscard]] inline bool is_digit(char c) {
  return (kByteClass[static_cast<unsigned char>(c)] & kDigitByte) != 0;
}
// Whether `c` is one of the bytes of `set`. (std::strchr finds the terminating NUL too: a NUL byte
// in a code would count as one of any set.)
[[nodiscard]] constexpr bool is_one_of(std::string_view set, char c) {
  return set.find(c) != std::string_view::npos;
}

}  // namespace kbdata::source
