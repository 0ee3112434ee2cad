// The values of literals and the encodings a source may declare: what a Python or C++ string
// literal stands for once its escapes are read, a Python f-string's parts, and the coding cookie
// of a Python file (PEP 263) with the decoders of the encodings kbdata honours.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "source/tokens.h"

namespace kbdata::source {

// Appends the value of Python STRING token `t` of `text` to `out`, as UTF-8 (a bytes literal's
// bytes as they are): escapes read unless the literal is raw (\n, \x41, \101, \u00e9, \N{...}
// kept as written, a backslash-newline dropped). An f-string's replacement fields are not read
// here (python_fstring_parts).
void append_python_string_value(std::string_view text, const Token& t, std::string& out);

// The same for C++ STRING token `t` (a raw string's body as it is; a character literal's too).
void append_cpp_string_value(std::string_view text, const Token& t, std::string& out);

// The parts of an f-string's body: constant text (escapes read, {{ and }} made single) and the
// source of each replacement field (what stands between { and the !, : or } that ends it).
struct FStringPart {
  bool field = false;  // a replacement field: `text` is its expression's source
  std::string text;
};
[[nodiscard]] std::vector<FStringPart> python_fstring_parts(std::string_view text, const Token& t);

// The encoding a Python text declares in a comment of its first two lines (`# -*- coding: X -*-`,
// PEP 263), lower-cased with '_' as '-'; nullopt without one.
[[nodiscard]] std::optional<std::string> python_coding_cookie(std::string_view text);

// Whether an encoding name (as python_coding_cookie gives it) is UTF-8 or ASCII, which read the
// text as kbdata reads it.
[[nodiscard]] bool is_utf8_encoding(std::string_view encoding);

// `text` decoded from `encoding` into UTF-8 when kbdata can (utf-7; latin-1 and the other
// single-byte Western encodings read as latin-1), else nullopt.
[[nodiscard]] std::optional<std::string> decode_to_utf8(std::string_view text,
                                                        std::string_view encoding);

// Appends code point `cp` to `out` as UTF-8 (an invalid one as U+FFFD).
void append_utf8(std::string& out, uint32_t cp);

}  // namespace kbdata::source
