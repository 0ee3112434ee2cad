#include "source/tokens.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "source/byte_search.h"
#include "source/bytes.h"

namespace kbdata::source {
namespace {

// The operator spellings longer than one byte, longest first within each language.
constexpr std::array<std::string_view, 23> kPythonOps = {
    "**=", "//=", ">>=", "<<=", "...", "->", ":=", "==", "!=", "<=", ">=", "**",
    "//",  "<<",  ">>",  "+=",  "-=",  "*=", "/=", "%=", "&=", "|=", "^="};
constexpr std::array<std::string_view, 24> kCppOps = {
    "<<=", ">>=", "...", "->*", "::", "->", "++", "--", "==", "!=", "<=", ">=",
    "&&",  "||",  "<<",  ">>",  "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^="};

// The multi-byte spellings of a language by their first byte, in the order given (longest
// first), built at compile time: an operator token looks at the few spellings that start with its
// byte, most bytes at none.
class OpTable {
 public:
  template <size_t N>
  constexpr explicit OpTable(const std::array<std::string_view, N>& ops) {
    for (std::string_view op : ops) {
      const auto c = static_cast<unsigned char>(op[0]);
      // A spelling of another length, a byte outside ASCII or a fifth spelling of one byte would
      // index out of range: a compile error, as the tables are constexpr.
      if (op.size() != 2 && op.size() != 3) throw "op_length compares two or three bytes";
      spellings_.at(c).at(count_.at(c)++) = op;
    }
  }

  // The length of the operator at the start of `rest` (not empty): the first spelling it starts
  // with, else 1.
  [[nodiscard]] size_t length(std::string_view rest) const {
    const auto c = static_cast<unsigned char>(rest[0]);
    if (c >= count_.size()) return 1;
    for (size_t i = 0; i < count_[c]; ++i) {
      const std::string_view op = spellings_[c][i];
      if (rest.size() >= op.size() && op[1] == rest[1] && (op.size() == 2 || op[2] == rest[2])) {
        return op.size();
      }
    }
    return 1;
  }

 private:
  std::array<std::array<std::string_view, 4>, 128> spellings_{};
  std::array<uint8_t, 128> count_{};
};

constexpr OpTable kPythonOpTable(kPythonOps);
constexpr OpTable kCppOpTable(kCppOps);

// Python string prefixes: any combination of r, b, u, f (one or two letters), any case; `flags`
// gets kTokenRaw, kTokenBytes and kTokenFormat for them.
bool python_prefix(std::string_view p, uint8_t& flags) {
  if (p.empty() || p.size() > 2) return false;
  flags = 0;
  for (char c : p) {
    const char l = static_cast<char>(c | 0x20);
    if (l == 'r') {
      flags |= kTokenRaw;
    } else if (l == 'b') {
      flags |= kTokenBytes;
    } else if (l == 'f') {
      flags |= kTokenFormat;
    } else if (l != 'u') {
      return false;
    }
  }
  return true;
}

class PythonLexer {
 public:
  PythonLexer(std::string_view text, PythonLexStart start, size_t stop, Comments comments)
      : text_(text),
        pos_(start.pos),
        stop_(stop),
        line_(start.line),
        keep_comments_(comments == Comments::KEEP) {}

  // flatten: the token pushes and the helpers are inlined into the one loop that runs per byte.
  [[gnu::flatten]] void run(size_t max_tokens, std::vector<Token>& out) {
    out.clear();
    out.reserve(std::min<size_t>((stop_ - pos_) / 5, max_tokens));
    bool line_start = true;
    while (pos_ < text_.size()) {
      if (out.size() >= max_tokens) return;  // stopped between tokens: no closing NEWLINE
      if (line_start) {
        // A logical line starts here at depth 0: where a range ends (its last line's NEWLINE is
        // out already).
        if (pos_ >= stop_) return;
        size_t p = pos_;
        while (p < text_.size() && (text_[p] == ' ' || text_[p] == '\t' || text_[p] == '\f')) ++p;
        pos_ = p;
        line_start = false;
        if (pos_ == text_.size()) break;  // the text ends in indentation
        // A blank or comment-only line is not a logical line: its indentation does not count.
        if (pos_ < text_.size() && (text_[pos_] == '\n' || text_[pos_] == '\r')) {
          newline();
          line_start = true;
          continue;
        }
      }
      const unsigned char c = static_cast<unsigned char>(text_[pos_]);
      if (c == '\n' || c == '\r') {
        if (depth_ == 0 && !out.empty() && out.back().kind != TokenKind::NEWLINE &&
            !(out.back().kind == TokenKind::COMMENT && logical_empty_) &&
            !(!keep_comments_ && logical_empty_)) {
          out.push_back(make(TokenKind::NEWLINE, pos_, pos_ + 1));
        }
        newline();
        if (depth_ == 0) {
          line_start = true;
          logical_empty_ = true;
        }
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\f') {
        // (A local position in the byte loops: a char read may alias the member, which would be
        // stored before every byte.)
        const char* const base = text_.data();
        size_t p = pos_ + 1;
        while (p < text_.size() && (base[p] == ' ' || base[p] == '\t' || base[p] == '\f')) ++p;
        pos_ = p;
        continue;
      }
      if (c == '\\' && pos_ + 1 < text_.size() &&
          (text_[pos_ + 1] == '\n' || text_[pos_ + 1] == '\r')) {
        ++pos_;
        newline();  // a joined line: no NEWLINE, no indentation
        continue;
      }
      if (c == '#') {
        const size_t start = pos_;
        pos_ = static_cast<size_t>(
            find3(text_.data() + pos_, text_.data() + text_.size(), '\n', '\r', '\n') -
            text_.data());
        if (keep_comments_) out.push_back(make(TokenKind::COMMENT, start, pos_));
        continue;
      }
      logical_empty_ = false;
      if (c == '"' || c == '\'') {
        out.push_back(string(pos_, pos_, 0));
        continue;
      }
      if (is_ident_start(c)) {
        const size_t start = pos_;
        unsigned high = 0;
        const char* const base = text_.data();
        size_t p = pos_;
        while (p < text_.size() && is_ident(static_cast<unsigned char>(base[p]))) {
          high |= static_cast<unsigned char>(base[p]);
          ++p;
        }
        pos_ = p;
        uint8_t prefix = 0;
        if (pos_ < text_.size() && (text_[pos_] == '"' || text_[pos_] == '\'') &&
            python_prefix(text_.substr(start, pos_ - start), prefix)) {
          out.push_back(string(start, pos_, prefix));
          continue;
        }
        Token t = make(TokenKind::NAME, start, pos_);
        if (high >= 0x80) t.flags = kTokenNonAscii;
        out.push_back(t);
        continue;
      }
      if (is_digit(c) || (c == '.' && pos_ + 1 < text_.size() &&
                          is_digit(static_cast<unsigned char>(text_[pos_ + 1])))) {
        const size_t start = pos_;
        size_t p = pos_;
        while (p < text_.size()) {
          const unsigned char d = static_cast<unsigned char>(text_[p]);
          if (is_ident(d) || d == '.') {
            ++p;
          } else if ((d == '+' || d == '-') && (text_[p - 1] == 'e' || text_[p - 1] == 'E') &&
                     !(text_[start] == '0' && p > start + 1 &&
                       (text_[start + 1] == 'x' || text_[start + 1] == 'X'))) {
            ++p;
          } else {
            break;
          }
        }
        pos_ = p;
        out.push_back(make(TokenKind::NUMBER, start, pos_));
        continue;
      }
      const size_t n = kPythonOpTable.length(text_.substr(pos_));
      Token t = make(TokenKind::OP, pos_, pos_ + n);
      if (n == 1 && (c == '(' || c == '[' || c == '{')) {
        ++depth_;
      } else if (n == 1 && (c == ')' || c == ']' || c == '}') && depth_ > 0) {
        --depth_;
        t.depth = depth_;
      }
      out.push_back(t);
      pos_ += n;
    }
    if (!out.empty() && out.back().kind != TokenKind::NEWLINE) {
      out.push_back(make(TokenKind::NEWLINE, text_.size(), text_.size()));
    }
    return;
  }

 private:
  Token make(TokenKind kind, size_t begin, size_t end) {
    Token t;
    t.kind = kind;
    t.begin = static_cast<uint32_t>(begin);
    t.end = static_cast<uint32_t>(end);
    t.line = line_;
    t.depth = depth_;
    return t;
  }

  void newline() {
    if (text_[pos_] == '\r' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '\n') ++pos_;
    ++pos_;
    ++line_;
  }

  // A string literal whose prefix (kToken* flags) starts at `start` and whose quote is at `quote`.
  Token string(size_t start, size_t quote, uint8_t prefix) {
    const char q = text_[quote];
    const bool triple = quote + 2 < text_.size() && text_[quote + 1] == q && text_[quote + 2] == q;
    const size_t open = triple ? 3 : 1;
    const uint32_t first_line = line_;
    size_t p = quote + open;
    size_t end = text_.size();
    bool closed = false;
    const char* const base = text_.data();
    const char* const limit = base + text_.size();
    while (p < text_.size()) {
      // To the next byte that may end the string: its quote, a backslash, and (one-line strings
      // end there) a newline; a triple-quoted string's newlines are counted on the way.
      const char* stop = find3(base + p, limit, q, '\\', triple ? q : '\n');
      if (triple) line_ += static_cast<uint32_t>(count_newlines(base + p, stop));
      p = static_cast<size_t>(stop - base);
      if (p >= text_.size()) break;
      const char c = text_[p];
      if (c == '\\' && p + 1 < text_.size()) {
        if (text_[p + 1] == '\n') ++line_;
        p += 2;
        continue;
      }
      if (c == '\n') {  // an unterminated one-line string ends at the line's end
        end = p;
        break;
      }
      if (c == q && (!triple || (p + 2 < text_.size() && text_[p + 1] == q && text_[p + 2] == q))) {
        end = p + open;
        closed = true;
        break;
      }
      ++p;
    }
    Token t;
    t.kind = TokenKind::STRING;
    t.begin = static_cast<uint32_t>(start);
    t.end = static_cast<uint32_t>(end);
    t.line = first_line;
    t.depth = depth_;
    t.flags =
        static_cast<uint8_t>(prefix | (triple ? kTokenTriple : 0) | (closed ? kTokenClosed : 0));
    pos_ = end;
    return t;
  }

  std::string_view text_;
  size_t pos_ = 0;
  size_t stop_ = 0;
  uint32_t line_ = 1;
  uint16_t depth_ = 0;
  bool logical_empty_ = true;
  bool keep_comments_ = true;
};

}  // namespace

void tokenize_python(std::string_view text, std::vector<Token>& out, Comments comments) {
  PythonLexer(text, {}, text.size(), comments).run(SIZE_MAX, out);
}

std::vector<Token> tokenize_python(std::string_view text, Comments comments) {
  std::vector<Token> out;
  PythonLexer(text, {}, text.size(), comments).run(SIZE_MAX, out);
  return out;
}

std::vector<Token> tokenize_python(std::string_view text, PythonLexStart start, size_t max_tokens,
                                   Comments comments) {
  if (start.pos > text.size()) start.pos = static_cast<uint32_t>(text.size());
  std::vector<Token> out;
  PythonLexer(text, start, text.size(), comments).run(max_tokens, out);
  return out;
}

void tokenize_python_range(std::string_view text, PythonLexStart start, uint32_t stop,
                           std::vector<Token>& out, Comments comments) {
  if (start.pos > text.size()) start.pos = static_cast<uint32_t>(text.size());
  PythonLexer(text, start, std::min<size_t>(stop, text.size()), comments).run(SIZE_MAX, out);
}

size_t cpp_raw_string_close(std::string_view text, size_t from, std::string_view delim) {
  for (size_t at = text.find(')', from); at != std::string_view::npos;
       at = text.find(')', at + 1)) {
    if (text.substr(at + 1, delim.size()) == delim && at + 1 + delim.size() < text.size() &&
        text[at + 1 + delim.size()] == '"') {
      return at;
    }
  }
  return std::string_view::npos;
}

// flatten: the token pushes are inlined into the one loop that runs per byte.
std::vector<Token> tokenize_cpp(std::string_view text, uint32_t first_line, uint32_t offset,
                                Comments comments) {
  std::vector<Token> out;
  tokenize_cpp(text, first_line, offset, out, comments);
  return out;
}

[[gnu::flatten]] void tokenize_cpp(std::string_view text, uint32_t first_line, uint32_t offset,
                                   std::vector<Token>& out, Comments comments) {
  out.clear();
  out.reserve(text.size() / 5);
  const bool keep_comments = comments == Comments::KEEP;
  size_t pos = 0;
  uint32_t line = first_line;
  uint16_t depth = 0;
  const auto add = [&](TokenKind kind, size_t begin, size_t end, uint32_t at_line)
      __attribute__((always_inline)) {
    Token t;
    t.kind = kind;
    t.begin = static_cast<uint32_t>(begin + offset);
    t.end = static_cast<uint32_t>(end + offset);
    t.line = at_line;
    t.depth = depth;
    t.flags = kTokenCpp;
    out.push_back(t);
    return &out.back();
  };
  const auto count_lines = [&](size_t from, size_t to) {
    for (size_t i = from; i < to; ++i) line += text[i] == '\n';
  };
  while (pos < text.size()) {
    const unsigned char c = static_cast<unsigned char>(text[pos]);
    if (c == '\n') {
      ++line;
      ++pos;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      ++pos;
      continue;
    }
    if (c == '\\') {
      // A line continuation; or, in a source embedded in a Python string that is not raw, an
      // escape such as \n standing for the whitespace it spells.
      const bool escape = pos + 1 < text.size() &&
                          (text[pos + 1] == 'n' || text[pos + 1] == 't' || text[pos + 1] == 'r');
      pos += escape ? 2 : 1;
      continue;
    }
    const uint32_t at = line;
    if (c == '/' && pos + 1 < text.size() && text[pos + 1] == '/') {
      const size_t start = pos;
      while (pos < text.size() && text[pos] != '\n') ++pos;
      if (keep_comments) add(TokenKind::COMMENT, start, pos, at);
      continue;
    }
    if (c == '/' && pos + 1 < text.size() && text[pos + 1] == '*') {
      const size_t start = pos;
      const size_t close = text.find("*/", pos + 2);
      pos = close == std::string_view::npos ? text.size() : close + 2;
      count_lines(start, pos);
      if (keep_comments) add(TokenKind::COMMENT, start, pos, at);
      continue;
    }
    if (is_ident_start(c)) {
      const size_t start = pos;
      while (pos < text.size() && is_ident(static_cast<unsigned char>(text[pos]))) ++pos;
      const std::string_view word = text.substr(start, pos - start);
      const bool prefix =
          word == "R" || word == "u8R" || word == "uR" || word == "UR" || word == "LR";
      if (prefix && pos < text.size() && text[pos] == '"') {
        // A raw string: R"delim( ... )delim".
        // The delimiter is at most 16 bytes: the '(' is looked for no further.
        const size_t window = text.substr(pos + 1, 17).find('(');
        const size_t paren = window == std::string_view::npos ? window : pos + 1 + window;
        if (paren != std::string_view::npos && paren - pos <= 17) {
          const size_t found =
              cpp_raw_string_close(text, paren + 1, text.substr(pos + 1, paren - pos - 1));
          const size_t end =
              found == std::string_view::npos ? text.size() : found + (paren - pos) + 1;
          Token* t = add(TokenKind::STRING, start, end, at);
          t->flags |= kTokenRaw | (found == std::string_view::npos ? 0 : kTokenClosed);
          count_lines(start, end);
          pos = end;
          continue;
        }
      }
      const bool string_prefix = word == "L" || word == "u" || word == "U" || word == "u8";
      if (!(string_prefix && pos < text.size() && (text[pos] == '"' || text[pos] == '\''))) {
        add(TokenKind::NAME, start, pos, at);
        continue;
      }
      // an encoding prefix: the literal follows
      const char q = text[pos];
      size_t p = pos + 1;
      while (p < text.size() && text[p] != q && text[p] != '\n') p += text[p] == '\\' ? 2 : 1;
      const size_t end = p < text.size() && text[p] == q ? p + 1 : std::min(p, text.size());
      Token* t = add(TokenKind::STRING, start, end, at);
      if (p < text.size() && text[p] == q) t->flags |= kTokenClosed;
      pos = end;
      continue;
    }
    if (c == '"' || c == '\'') {
      const char q = static_cast<char>(c);
      size_t p = pos + 1;
      while (p < text.size() && text[p] != q && text[p] != '\n') p += text[p] == '\\' ? 2 : 1;
      p = std::min(p, text.size());
      const size_t end = p < text.size() && text[p] == q ? p + 1 : p;
      Token* t = add(TokenKind::STRING, pos, end, at);
      if (p < text.size() && text[p] == q) t->flags |= kTokenClosed;
      pos = end;
      continue;
    }
    if (is_digit(c) || (c == '.' && pos + 1 < text.size() &&
                        is_digit(static_cast<unsigned char>(text[pos + 1])))) {
      const size_t start = pos;
      while (pos < text.size()) {
        const unsigned char d = static_cast<unsigned char>(text[pos]);
        if (is_ident(d) || d == '.' || d == '\'') {
          ++pos;
        } else if ((d == '+' || d == '-') && (text[pos - 1] == 'e' || text[pos - 1] == 'E' ||
                                              text[pos - 1] == 'p' || text[pos - 1] == 'P')) {
          ++pos;
        } else {
          break;
        }
      }
      add(TokenKind::NUMBER, start, pos, at);
      continue;
    }
    const size_t n = kCppOpTable.length(text.substr(pos));
    if (n == 1 && (c == ')' || c == ']' || c == '}') && depth > 0) --depth;
    add(TokenKind::OP, pos, pos + n, at);
    if (n == 1 && (c == '(' || c == '[' || c == '{')) ++depth;
    pos += n;
  }
}

uint32_t token_body_begin(std::string_view text, const Token& t) {
  if (t.kind != TokenKind::STRING) return t.begin;
  uint32_t p = t.begin;
  while (p < t.end && text[p] != '"' && text[p] != '\'') ++p;  // past the prefix
  if (p >= t.end) return t.end;
  if ((t.flags & kTokenCpp) != 0) {
    if (t.raw()) {
      // R"delim( : the delimiter is at most 16 bytes.
      const std::string_view head = text.substr(p, std::min<size_t>(18, t.end - p));
      const size_t paren = head.find('(');
      return paren == std::string_view::npos ? t.end : p + static_cast<uint32_t>(paren) + 1;
    }
    return p + 1;
  }
  return std::min<uint32_t>(p + (t.triple_quoted() ? 3 : 1), t.end);
}

std::string_view token_body(std::string_view text, const Token& t) {
  if (t.kind != TokenKind::STRING) return token_text(text, t);
  const uint32_t begin = token_body_begin(text, t);
  uint32_t end = t.end;
  if (t.closed()) {
    uint32_t close = 1;
    if ((t.flags & kTokenCpp) != 0 && t.raw()) {
      // )delim" is as long as "delim( : from the opening quote to the body.
      uint32_t quote = t.begin;
      while (quote < t.end && text[quote] != '"') ++quote;
      close = begin - quote;
    } else if ((t.flags & kTokenCpp) == 0 && t.triple_quoted()) {
      close = 3;
    }
    end = end >= begin + close ? end - close : begin;
  }
  return text.substr(begin, end - begin);
}

uint32_t python_indent(std::string_view text, const Token& t) {
  size_t b = t.begin;
  while (b > 0 && text[b - 1] != '\n' && text[b - 1] != '\r') --b;
  uint32_t indent = 0;
  for (; b < t.begin; ++b) {
    const char c = text[b];
    if (c == '\t') {
      indent = (indent / 8 + 1) * 8;
    } else if (c == ' ' || c == '\f') {
      ++indent;
    } else {
      break;
    }
  }
  return indent;
}

}  // namespace kbdata::source
