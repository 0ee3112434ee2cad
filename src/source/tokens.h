// Kernel source text as tokens: Python (the submissions) and C++ (CUDA and HIP files, and the
// sources embedded in Python strings). Rules that read code match tokens, never raw text, so a
// word inside a comment, a string or a longer identifier is told apart from code: "tma" is not in
// the identifier "softmax", and `# time.perf_counter = f` is a comment.
//
// A token borrows nothing: it holds byte offsets into the text it was cut from (the caller keeps
// that text alive while it uses the offsets) and the 1-based line it starts on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace kbdata::source {

enum class TokenKind : uint8_t {
  NAME,     // identifier or keyword
  NUMBER,   // numeric literal
  STRING,   // string literal (C++: also a character literal); body is its text between the quotes
  COMMENT,  // Python `# ...`; C++ `// ...` and `/* ... */`
  OP,       // operator or delimiter (the longest of the known spellings)
  NEWLINE,  // Python only: the end of a logical line (never inside brackets or after a `\`)
};

struct Token {
  TokenKind kind = TokenKind::OP;
  uint32_t begin = 0;  // byte offsets of the whole token in the text
  uint32_t end = 0;
  uint32_t body_begin = 0;  // STRING: the bytes between the quotes (prefix and quotes excluded);
  uint32_t body_end = 0;    // other kinds: the same as begin and end
  uint32_t line = 1;        // 1-based line of the token's first byte
  // Python: the indentation (in columns, a tab to the next multiple of 8) of the logical line the
  // token belongs to; 0 for C++.
  uint32_t indent = 0;
  // Python: the bracket depth ((, [ and {) before the token; C++: the same, braces included.
  uint16_t depth = 0;
  bool triple_quoted = false;  // Python STRING with ''' or """
  bool raw = false;            // STRING with an r prefix (Python) or R"(...)" (C++)
};

// The tokens of Python source `text`, in order. Never throws: bytes that start no token (stray
// characters, a string left open at the end) become one-byte OP tokens or a STRING running to the
// end, so rules see everything that is there.
[[nodiscard]] std::vector<Token> tokenize_python(std::string_view text);
// The same into `out` (cleared first), whose storage a caller reading many texts reuses.
void tokenize_python(std::string_view text, std::vector<Token>& out);

// Where a lexer starts in the text: the first byte of a physical line that starts a logical line
// at bracket depth 0 (or 0), and that line's number. From such a start the tokens are the ones
// tokenize_python(text) makes from there on, offsets and lines included.
struct PythonLexStart {
  uint32_t pos = 0;
  uint32_t line = 1;
};

// The tokens of `text` from `start`, at most `max_tokens` of them: when it stops there, the
// tokens are the first of the whole (no NEWLINE is added at the end).
[[nodiscard]] std::vector<Token> tokenize_python(std::string_view text, PythonLexStart start,
                                                 size_t max_tokens = SIZE_MAX);

// The tokens of C++ source `text` (CUDA and HIP included). `first_line` numbers the first line (a
// source embedded in a Python string starts on the string's line); `offset` is added to every
// offset (the body's position in the enclosing text), so the tokens index that text.
[[nodiscard]] std::vector<Token> tokenize_cpp(std::string_view text, uint32_t first_line = 1,
                                              uint32_t offset = 0);

// Where a C++ raw string's end, `)delim"`, is in `text` from `from`, or npos.
[[nodiscard]] size_t cpp_raw_string_close(std::string_view text, size_t from,
                                          std::string_view delim);

// The text of `t` (whole token) and of its body, in `text` (the text it was cut from).
[[nodiscard]] inline std::string_view token_text(std::string_view text, const Token& t) {
  return text.substr(t.begin, t.end - t.begin);
}
[[nodiscard]] inline std::string_view token_body(std::string_view text, const Token& t) {
  return text.substr(t.body_begin, t.body_end - t.body_begin);
}

// Whether `t` is a token of `kind` spelled `s` (not empty) in `text`. The length and the first
// byte are compared first: most tests of a rule fail there, before any call to compare the rest.
// Inlined wherever a rule asks (several times per token): a token holds its bytes in `text`.
[[nodiscard, gnu::always_inline]] inline bool token_is(std::string_view text, const Token& t,
                                                       TokenKind kind, std::string_view s) {
  if (t.kind != kind || s.empty() || t.end - t.begin != s.size() || text[t.begin] != s[0]) {
    return false;
  }
  return s.size() == 1 || std::memcmp(text.data() + t.begin + 1, s.data() + 1, s.size() - 1) == 0;
}

}  // namespace kbdata::source
