#include "source/tokens.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "support/random_text.h"

namespace kbdata::source {
namespace {

std::vector<std::string> texts(std::string_view text, const std::vector<Token>& tokens,
                               TokenKind kind) {
  std::vector<std::string> out;
  for (const Token& t : tokens) {
    if (t.kind == kind) out.emplace_back(token_text(text, t));
  }
  return out;
}

TEST(PythonTokens, StringsCommentsAndNamesAreToldApart) {
  const std::string code =
      "x = softmax(y)  # time.perf_counter = f\n"
      "s = 'tma' + \"\"\"a\nb\"\"\" + rb'\\x00'\n";
  const auto tokens = tokenize_python(code);
  EXPECT_EQ(texts(code, tokens, TokenKind::NAME),
            (std::vector<std::string>{"x", "softmax", "y", "s"}));
  EXPECT_EQ(texts(code, tokens, TokenKind::COMMENT),
            (std::vector<std::string>{"# time.perf_counter = f"}));
  const auto strings = texts(code, tokens, TokenKind::STRING);
  ASSERT_EQ(strings.size(), 3U);
  EXPECT_EQ(strings[1], "\"\"\"a\nb\"\"\"");
  EXPECT_EQ(strings[2], "rb'\\x00'");
  for (const Token& t : tokens) {
    if (t.kind == TokenKind::STRING && t.triple_quoted()) {
      EXPECT_EQ(token_body(code, t), "a\nb");
    }
    if (t.kind == TokenKind::STRING && t.raw()) {
      EXPECT_EQ(token_body(code, t), "\\x00");
    }
  }
}

TEST(PythonTokens, LinesIndentationAndLogicalLines) {
  const std::string code = "def f(a,\n      b):\n    return a\n\n# c\nx = 1\n";
  const auto tokens = tokenize_python(code);
  int newlines = 0;
  for (const Token& t : tokens) {
    newlines += t.kind == TokenKind::NEWLINE;
    const std::string_view s = token_text(code, t);
    if (s == "b") {
      EXPECT_EQ(t.line, 2U);
    }
    if (s == "return") {
      EXPECT_EQ(t.line, 3U);
      EXPECT_EQ(python_indent(code, t), 4U);
    }
    if (s == "x") {
      EXPECT_EQ(python_indent(code, t), 0U);
    }
  }
  EXPECT_EQ(
      newlines,
      3);  // def ...:, return a, x = 1 (brackets join lines; blank and comment lines are none)
}

TEST(PythonTokens, UnterminatedStringRunsToTheLineEnd) {
  const std::string code = "x = 'open\ny = 2\n";
  const auto names = texts(code, tokenize_python(code), TokenKind::NAME);
  EXPECT_EQ(names, (std::vector<std::string>{"x", "y"}));
}

// A text that ends in a line's indentation: the tokens of the same text with that last line
// ended (a blank line adds none), none past its end (fuzz_audit found the lexer reading the byte
// after such a text; from a std::string, the terminating NUL became an operator).
TEST(PythonTokens, ATextEndingInIndentationHasNoTokenPastItsEnd) {
  for (const std::string text : {"x\n   ", "x\n\t", "def f():\n    return 1\n        ", " "}) {
    const std::vector<Token> tokens = tokenize_python(text);
    const std::vector<Token> ended = tokenize_python(text + "\n");
    ASSERT_EQ(tokens.size(), ended.size()) << text;
    for (size_t i = 0; i < tokens.size(); ++i) {
      EXPECT_EQ(tokens[i].kind, ended[i].kind) << text;
      EXPECT_EQ(tokens[i].begin, ended[i].begin) << text;
      EXPECT_LE(tokens[i].end, text.size()) << text;
    }
  }
}

// A string's body is skipped to its next quote or backslash, its newlines counted on the way:
// every token's line is one more than the newlines before it (texts without \r, which ends a line
// in code but not in a string), and a string ends where a byte-by-byte reading ends it, in strings
// long enough to cross the 32-byte steps of the search.
TEST(PythonTokens, LinesAndStringEndsAcrossLongStrings) {
  std::mt19937_64 rng(20261205);
  const std::vector<std::string> pieces = {
      "\"",   "'",  "\"\"\"", "'''", "\\",
      "\\\n", "\n", "x",      " = ", "abcdefghijklmnopqrstuvwxyz0123456789",
      "#",    "(",  ")"};
  for (int round = 0; round < 3000; ++round) {
    const std::string text = testing::random_text(rng, pieces, 1 + rng() % 60);
    const std::vector<Token> tokens = tokenize_python(text);
    uint32_t line = 1;
    size_t at = 0;
    for (const Token& t : tokens) {
      for (; at < t.begin; ++at) line += text[at] == '\n' ? 1 : 0;
      ASSERT_EQ(t.line, line) << "token at " << t.begin << " of:\n" << text;
      if (t.kind != TokenKind::STRING) continue;
      // The body ends at the first closing quote(s) not taken by a backslash, at the line's end
      // (one-line strings), or at the text's end.
      const uint32_t body_begin = token_body_begin(text, t);
      const char q = text[body_begin - 1];
      size_t p = body_begin;
      while (p < text.size()) {
        if (text[p] == '\\' && p + 1 < text.size()) {
          p += 2;
          continue;
        }
        if (!t.triple_quoted() && text[p] == '\n') break;
        if (text[p] == q && (!t.triple_quoted() || text.compare(p, 3, std::string(3, q)) == 0)) {
          break;
        }
        ++p;
      }
      const std::string_view body = token_body(text, t);
      ASSERT_EQ(body_begin + body.size(), std::min(p, text.size()))
          << "string at " << t.begin << " of:\n"
          << text;
    }
  }
}

TEST(CppTokens, CommentsStringsRawStringsAndOperators) {
  const std::string code =
      "// cudaStreamCreate\n/* getenv(\"X\") */ auto s = R\"x(a\"b)x\"; a->b::c; printf(\"%d\\n\", "
      "1);";
  const auto tokens = tokenize_cpp(code);
  EXPECT_EQ(texts(code, tokens, TokenKind::COMMENT).size(), 2U);
  EXPECT_EQ(texts(code, tokens, TokenKind::NAME),
            (std::vector<std::string>{"auto", "s", "a", "b", "c", "printf"}));
  const auto strings = texts(code, tokens, TokenKind::STRING);
  ASSERT_EQ(strings.size(), 2U);
  EXPECT_EQ(strings[0], "R\"x(a\"b)x\"");
  const auto ops = texts(code, tokens, TokenKind::OP);
  EXPECT_NE(std::find(ops.begin(), ops.end(), "->"), ops.end());
  EXPECT_NE(std::find(ops.begin(), ops.end(), "::"), ops.end());
  for (const Token& t : tokens) {
    if (token_text(code, t) == "auto") {
      EXPECT_EQ(t.line, 2U);
    }
  }
}

// Comments dropped: the same tokens but the comments, NEWLINEs where they were.
TEST(PythonTokens, DroppedCommentsLeaveTheSameOtherTokens) {
  const std::string code = "# head\nx = 1  # one\n\n# alone\n  # indented\ny = (2,  # in\n 3)\n";
  std::vector<Token> kept;
  for (const Token& t : tokenize_python(code)) {
    if (t.kind != TokenKind::COMMENT) kept.push_back(t);
  }
  const std::vector<Token> dropped = tokenize_python(code, Comments::DROP);
  ASSERT_EQ(kept.size(), dropped.size());
  for (size_t i = 0; i < kept.size(); ++i) {
    EXPECT_EQ(kept[i].begin, dropped[i].begin);
    EXPECT_EQ(kept[i].kind, dropped[i].kind);
    EXPECT_EQ(kept[i].line, dropped[i].line);
  }
}

TEST(Tokens, ATokenIsSixteenBytes) { EXPECT_EQ(sizeof(Token), 16U); }

TEST(CppTokens, BodiesOfRawAndPrefixedStrings) {
  const std::string code = "a = R\"delim(x)\")delim\"; b = u8\"y\"; c = 'z'; d = \"open";
  std::vector<std::string> bodies;
  for (const Token& t : tokenize_cpp(code)) {
    if (t.kind == TokenKind::STRING) bodies.emplace_back(token_body(code, t));
  }
  EXPECT_EQ(bodies, (std::vector<std::string>{"x)\"", "y", "z", "open"}));
}

}  // namespace
}  // namespace kbdata::source
