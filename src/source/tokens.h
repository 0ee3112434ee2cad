// Kernel source text as tokens: Python (the submissions) and C++ (CUDA and HIP files, and the
// sources embedded in Python strings). Rules that read code match tokens, never raw text, so a
// word inside a comment, a string or a longer identifier is told apart from code: "tma" is not in
// the identifier "softmax", and `# time.perf_counter = f` is a comment.
//
// A token borrows nothing: it holds byte offsets into the text it was cut from (the caller keeps
// that text alive while it uses the offsets) and the 1-based line it starts on. It is 16 bytes,
// so that the tokens of a code take a few bytes per byte of it (a token stands for about 4.5
// bytes of real code): what a string's body is and how far a Python line is indented are worked
// out from the text when asked (token_body, python_indent), not stored.
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
  STRING,   // string literal (C++: also a character literal)
  COMMENT,  // Python `# ...`; C++ `// ...` and `/* ... */` (only when comments are kept)
  OP,       // operator or delimiter (the longest of the known spellings)
  NEWLINE,  // Python only: the end of a logical line (never inside brackets or after a `\`)
};

// Token::flags.
inline constexpr uint8_t kTokenTriple = 1;     // Python STRING with ''' or """
inline constexpr uint8_t kTokenRaw = 2;        // STRING with an r prefix (Python) or R"(...)" (C++)
inline constexpr uint8_t kTokenClosed = 4;     // STRING whose closing quote(s) are in the text
inline constexpr uint8_t kTokenCpp = 8;        // cut by the C++ lexer
inline constexpr uint8_t kTokenNonAscii = 16;  // NAME holding a byte >= 0x80 (NFKC may change it)
inline constexpr uint8_t kTokenFormat = 32;    // Python STRING with an f prefix
inline constexpr uint8_t kTokenBytes = 64;     // Python STRING with a b prefix

struct Token {
  uint32_t begin = 0;  // byte offsets of the whole token in the text
  uint32_t end = 0;
  uint32_t line = 1;   // 1-based line of the token's first byte
  uint16_t depth = 0;  // Python: the bracket depth ((, [ and {) before it; C++: braces included
  TokenKind kind = TokenKind::OP;
  uint8_t flags = 0;  // kToken*

  [[nodiscard]] bool triple_quoted() const { return (flags & kTokenTriple) != 0; }
  [[nodiscard]] bool raw() const { return (flags & kTokenRaw) != 0; }
  [[nodiscard]] bool closed() const { return (flags & kTokenClosed) != 0; }
};
static_assert(sizeof(Token) == 16, "a token is 16 bytes: the model's memory is counted in them");

// Whether comments become COMMENT tokens (a highlighter wants them) or are dropped (every rule
// skips them; the code model does not store them).
enum class Comments : uint8_t { KEEP, DROP };

// The tokens of Python source `text`, in order. Never throws: bytes that start no token (stray
// characters, a string left open at the end) become one-byte OP tokens or a STRING running to the
// end, so rules see everything that is there.
[[nodiscard]] std::vector<Token> tokenize_python(std::string_view text,
                                                 Comments comments = Comments::KEEP);
// The same into `out` (cleared first), whose storage a caller reading many texts reuses.
void tokenize_python(std::string_view text, std::vector<Token>& out,
                     Comments comments = Comments::KEEP);

// Where a lexer starts in the text: the first byte of a physical line that starts a logical line
// at bracket depth 0 (or 0), and that line's number. From such a start the tokens are the ones
// tokenize_python(text) makes from there on, offsets and lines included.
struct PythonLexStart {
  uint32_t pos = 0;
  uint32_t line = 1;
};

// The tokens of `text` from `start` up to `stop` (a position where a logical line starts at depth
// 0, or the text's end), at most `max_tokens` of them: when it stops there, the tokens are the
// first of the whole (no NEWLINE is added at the end).
[[nodiscard]] std::vector<Token> tokenize_python(std::string_view text, PythonLexStart start,
                                                 size_t max_tokens = SIZE_MAX,
                                                 Comments comments = Comments::KEEP);
void tokenize_python_range(std::string_view text, PythonLexStart start, uint32_t stop,
                           std::vector<Token>& out, Comments comments);

// The tokens of C++ source `text` (CUDA and HIP included). `first_line` numbers the first line (a
// source embedded in a Python string starts on the string's line); `offset` is added to every
// offset (the body's position in the enclosing text), so the tokens index that text.
[[nodiscard]] std::vector<Token> tokenize_cpp(std::string_view text, uint32_t first_line = 1,
                                              uint32_t offset = 0,
                                              Comments comments = Comments::KEEP);
void tokenize_cpp(std::string_view text, uint32_t first_line, uint32_t offset,
                  std::vector<Token>& out, Comments comments);

// Where a C++ raw string's end, `)delim"`, is in `text` from `from`, or npos.
[[nodiscard]] size_t cpp_raw_string_close(std::string_view text, size_t from,
                                          std::string_view delim);

// The text of `t` (whole token) in `text` (the text it was cut from).
[[nodiscard]] inline std::string_view token_text(std::string_view text, const Token& t) {
  return text.substr(t.begin, t.end - t.begin);
}
// A STRING's body: its bytes between the quotes (prefix, quotes and a raw string's delimiter
// excluded; a string left open runs to the token's end). Another token's whole text.
[[nodiscard]] std::string_view token_body(std::string_view text, const Token& t);
// The offset in `text` where token_body starts.
[[nodiscard]] uint32_t token_body_begin(std::string_view text, const Token& t);

// The indentation (in columns, a tab to the next multiple of 8, as Python counts it) of the
// physical line `t` starts on, counted from that line's start to its first non-blank byte.
[[nodiscard]] uint32_t python_indent(std::string_view text, const Token& t);

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
