#include "source/tokens.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "source/embedded.h"
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
    if (t.kind == TokenKind::STRING && t.triple_quoted) {
      EXPECT_EQ(token_body(code, t), "a\nb");
    }
    if (t.kind == TokenKind::STRING && t.raw) {
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
      EXPECT_EQ(t.indent, 4U);
    }
    if (s == "x") {
      EXPECT_EQ(t.indent, 0U);
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
      const char q = text[t.body_begin - 1];
      size_t p = t.body_begin;
      while (p < text.size()) {
        if (text[p] == '\\' && p + 1 < text.size()) {
          p += 2;
          continue;
        }
        if (!t.triple_quoted && text[p] == '\n') break;
        if (text[p] == q && (!t.triple_quoted || text.compare(p, 3, std::string(3, q)) == 0)) break;
        ++p;
      }
      ASSERT_EQ(t.body_end, std::min(p, text.size())) << "string at " << t.begin << " of:\n"
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

TEST(Embedded, SourcesPassedToLoadInlineDirectlyOrThroughNames) {
  const std::string code =
      "cuda_src = '''\n__global__ void k() {}\n'''\n"
      "cpp = 'void run();'\n"
      "doc = 'not code'\n"
      "m = load_inline(name='x', cpp_sources=[cpp], cuda_sources=cuda_src, functions=['run'])\n"
      "k = torch.cuda._compile_kernel('extern \"C\" __global__ void f() {}', 'f')\n";
  const auto tokens = tokenize_python(code);
  const auto found = embedded_cpp_sources(code, tokens);
  std::vector<std::string> bodies;
  for (const EmbeddedSource& e : found) bodies.emplace_back(token_body(code, tokens[e.token]));
  ASSERT_EQ(bodies.size(), 3U);
  EXPECT_EQ(bodies[0], "\n__global__ void k() {}\n");
  EXPECT_EQ(bodies[1], "void run();");
  EXPECT_EQ(bodies[2], "extern \"C\" __global__ void f() {}");
  EXPECT_TRUE(found[1].passed_to_compiler);
  // The embedded tokens carry the Python file's lines and offsets.
  const auto cpp = tokenize_embedded(code, tokens[found[0].token]);
  ASSERT_FALSE(cpp.empty());
  EXPECT_EQ(token_text(code, cpp[0]), "__global__");
  EXPECT_EQ(cpp[0].line, 2U);
}

TEST(Embedded, EscapedNewlinesInAPlainStringAreWhitespace) {
  const std::string code = "src = \"#include <x>\\n__global__ void k() {}\"\n";
  const auto tokens = tokenize_python(code);
  const auto found = embedded_cpp_sources(code, tokens);
  ASSERT_EQ(found.size(), 1U);
  const auto cpp = tokenize_embedded(code, tokens[found[0].token]);
  std::vector<std::string> names;
  for (const Token& t : cpp) {
    if (t.kind == TokenKind::NAME) names.emplace_back(token_text(code, t));
  }
  EXPECT_EQ(names, (std::vector<std::string>{"include", "x", "__global__", "void", "k"}));
}

}  // namespace
}  // namespace kbdata::source
