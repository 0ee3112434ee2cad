// python_regions finds the STRING and COMMENT tokens of tokenize_python, and PythonLines their
// lines; tokenize_python from a logical line's start, or with a limit, makes the same tokens as
// from the start.
#include "source/python_regions.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "source/tokens.h"
#include "support/random_text.h"

namespace kbdata::source {
namespace {

void expect_regions_are_the_tokens(const std::string& text) {
  const std::vector<Token> tokens = tokenize_python(text);
  const std::vector<Region> regions = python_regions(text);
  std::vector<const Token*> expected;
  for (const Token& t : tokens) {
    if (t.kind == TokenKind::STRING || t.kind == TokenKind::COMMENT) expected.push_back(&t);
  }
  ASSERT_EQ(regions.size(), expected.size()) << text;
  PythonLines lines(text, regions);
  for (size_t i = 0; i < regions.size(); ++i) {
    const Region& r = regions[i];
    const Token& t = *expected[i];
    EXPECT_EQ(r.comment, t.kind == TokenKind::COMMENT) << text;
    if (r.comment) {
      EXPECT_EQ(r.begin, t.begin) << text;
    } else {
      EXPECT_LE(t.begin, r.quote) << text;  // a prefix comes before the quote
      EXPECT_LE(r.quote - t.begin, 2U) << text;
      EXPECT_EQ(r.triple, t.triple_quoted()) << text;
    }
    EXPECT_EQ(r.end, t.end) << text;
    EXPECT_EQ(r.body_begin, token_body_begin(text, t)) << text;
    EXPECT_EQ(r.body_end, token_body_begin(text, t) + token_body(text, t).size()) << text;
    EXPECT_EQ(lines.at(r.begin), t.line) << "region " << i << " of:\n" << text;
  }
  // Lines at every token's start, asked in order.
  PythonLines again(text, regions);
  for (const Token& t : tokens) {
    if (t.kind == TokenKind::NEWLINE) continue;
    EXPECT_EQ(again.at(t.begin), t.line) << "token at " << t.begin << " of:\n" << text;
  }
  for (size_t limit : {size_t{1}, size_t{5}, tokens.size()}) {
    const std::vector<Token> first = tokenize_python(text, {}, limit);
    ASSERT_LE(first.size(), tokens.size());
    for (size_t i = 0; i < first.size(); ++i) {
      EXPECT_EQ(first[i].begin, tokens[i].begin) << text;
      EXPECT_EQ(first[i].end, tokens[i].end) << text;
    }
  }
  // From the line after each NEWLINE.
  for (size_t i = 1; i < tokens.size(); ++i) {
    if (tokens[i - 1].kind != TokenKind::NEWLINE || tokens[i].kind == TokenKind::NEWLINE) continue;
    uint32_t start = tokens[i - 1].end;
    if (text[start - 1] == '\r' && start < text.size() && text[start] == '\n') ++start;
    const std::vector<Token> rest = tokenize_python(text, {start, tokens[i - 1].line + 1});
    ASSERT_EQ(rest.size(), tokens.size() - i) << text;
    for (size_t j = 0; j < rest.size(); ++j) {
      EXPECT_EQ(rest[j].begin, tokens[i + j].begin) << text;
      EXPECT_EQ(rest[j].end, tokens[i + j].end) << text;
      EXPECT_EQ(rest[j].line, tokens[i + j].line) << text;
      EXPECT_EQ(rest[j].depth, tokens[i + j].depth) << text;
    }
  }
}

TEST(PythonRegions, AreTheLexersStringsAndComments) {
  for (const char* text : {
           R"(x = 'a' + "b"  # c
)",
           R"(s = '''one
two''' ; t = """x"y"""
)",
           R"(r'\'' + rb"\"" + f'{x}'
)",
           "u = 'open\nv = \"also\rstill\" # c\r\n",
           "a = '\\\n continued' \\\n + 'x'\n",
           "'''never closed\n\n",
           "'\\",
           "#",
           "\"\"",
           "x = 1 # a 'quote' in a comment\n\"# not a comment\"\n",
           "\r\n\r# c\r\"s\"\n\rq = '\r'\n",
       }) {
    expect_regions_are_the_tokens(text);
  }
}

TEST(PythonRegions, AreTheLexersStringsAndCommentsOnRandomTexts) {
  const std::vector<std::string> pieces = {"\"",   "'", "\"\"\"", "'''", "#", "\\", "\n", "\r",
                                           "\r\n", " ", "\t",     "(",   ")", "[",  "]",  "x",
                                           "rb",   "f", "1e+",    "0x",  ".", "=",  ";",  "def "};
  std::mt19937_64 rng(5);
  for (int round = 0; round < 5000; ++round) {
    const std::string text = kbdata::testing::random_text(rng, pieces, 40);
    expect_regions_are_the_tokens(text);
    if (HasFailure()) return;
  }
}

// Lines far into long texts: the vector count of newlines adds its byte counters up every 255
// steps of 32 bytes (8 KiB), so texts of several such runs, and their ends, are checked.
TEST(PythonRegions, LinesFarIntoLongTexts) {
  std::mt19937_64 rng(7);
  for (const size_t size : {size_t{8159}, size_t{8160}, size_t{8161}, size_t{70'000}}) {
    for (const unsigned one_in : {5U, 1U}) {  // a newline one byte in 5, or every byte
      std::string text;
      while (text.size() < size) text += (rng() % one_in == 0) ? '\n' : 'x';
      text.resize(size);
      const std::vector<Region> regions = python_regions(text);
      // In one step to the end, then a few thousand bytes at a time.
      const auto newlines = static_cast<uint32_t>(std::count(text.begin(), text.end(), '\n'));
      EXPECT_EQ(PythonLines(text, regions).at(static_cast<uint32_t>(size)), 1 + newlines) << size;
      PythonLines lines(text, regions);
      uint32_t expected = 1;
      size_t counted = 0;
      for (size_t pos = 0; pos <= size; pos += 1 + rng() % 3000) {
        for (; counted < pos; ++counted) expected += text[counted] == '\n' ? 1 : 0;
        ASSERT_EQ(lines.at(static_cast<uint32_t>(pos)), expected) << "at " << pos << " of " << size;
      }
      for (; counted < size; ++counted) expected += text[counted] == '\n' ? 1 : 0;
      EXPECT_EQ(lines.at(static_cast<uint32_t>(size)), expected) << size;
    }
  }
}

}  // namespace
}  // namespace kbdata::source
