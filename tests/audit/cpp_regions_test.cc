// scan_cpp finds the STRING and COMMENT tokens of tokenize_cpp; a name token starts exactly where
// cpp_name_starts_at says, outside the regions and what numbers swallow; a name's line is the
// first line plus the newlines before it, less those strings step over; and CppScanner, read a
// piece at a time, knows at every position what the whole scan found before it.
#include "source/cpp_regions.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "source/tokens.h"
#include "support/random_text.h"

namespace kbdata::source {
namespace {

void expect_scan_is_the_tokens(const std::string& text) {
  const std::vector<Token> tokens = tokenize_cpp(text, 1, 0);
  const CppScan scan = scan_cpp(text);
  std::vector<const Token*> expected;
  std::vector<uint32_t> names;
  for (const Token& t : tokens) {
    if (t.kind == TokenKind::STRING || t.kind == TokenKind::COMMENT) expected.push_back(&t);
    if (t.kind == TokenKind::NAME) names.push_back(t.begin);
  }
  ASSERT_EQ(scan.regions.size(), expected.size()) << text;
  for (size_t i = 0; i < expected.size(); ++i) {
    const Region& r = scan.regions[i].region;
    const Token& t = *expected[i];
    EXPECT_EQ(r.comment, t.kind == TokenKind::COMMENT) << text;
    EXPECT_EQ(r.begin, t.begin) << text;
    EXPECT_EQ(r.end, t.end) << text;
    EXPECT_EQ(r.body_begin, token_body_begin(text, t)) << text;
    EXPECT_EQ(r.body_end, token_body_begin(text, t) + token_body(text, t).size()) << text;
  }
  // Name starts: every identifier position in code that the predicate takes, and no other.
  std::vector<uint32_t> found;
  size_t region = 0;
  uint32_t newlines = 0, uncounted = 0;
  size_t name = 0;
  for (uint32_t p = 0; p < text.size(); ++p) {
    while (region < scan.regions.size() && scan.regions[region].region.end <= p) {
      uncounted += scan.regions[region].uncounted_newlines;
      ++region;
    }
    const bool inside = region < scan.regions.size() && scan.regions[region].region.begin <= p;
    if (!inside && cpp_name_starts_at(text, p) &&
        !std::binary_search(scan.swallowed.begin(), scan.swallowed.end(), p)) {
      found.push_back(p);
      // Its line, as the lexer counts it.
      while (name < tokens.size() &&
             !(tokens[name].kind == TokenKind::NAME && tokens[name].begin == p)) {
        ++name;
      }
      if (name < tokens.size()) {
        EXPECT_EQ(1 + newlines - uncounted, tokens[name].line) << text;
      }
    }
    newlines += text[p] == '\n';
  }
  EXPECT_EQ(found, names) << text;
  // A piece at a time: at every position, what is known is the start of the whole scan, with
  // every region that opens before it and every swallowed position before it.
  CppScanner scanner(text);
  for (size_t pos = 0; pos <= text.size() + 1; ++pos) {
    const CppScan& part = scanner.scan_to(pos);
    ASSERT_LE(part.regions.size(), scan.regions.size()) << text;
    for (size_t i = 0; i < part.regions.size(); ++i) {
      EXPECT_EQ(part.regions[i].region.begin, scan.regions[i].region.begin) << text;
      EXPECT_EQ(part.regions[i].region.end, scan.regions[i].region.end) << text;
      EXPECT_EQ(part.regions[i].uncounted_newlines, scan.regions[i].uncounted_newlines) << text;
    }
    // A string counts from its quote (a prefix such as u8R starts before it).
    const size_t regions_before = static_cast<size_t>(
        std::count_if(scan.regions.begin(), scan.regions.end(), [&](const CppRegion& r) {
          return (r.region.comment ? r.region.begin : r.region.quote) < pos;
        }));
    EXPECT_GE(part.regions.size(), regions_before) << "at " << pos << " of " << text;
    const std::vector<uint32_t> swallowed_before(
        scan.swallowed.begin(),
        std::lower_bound(scan.swallowed.begin(), scan.swallowed.end(), pos));
    ASSERT_GE(part.swallowed.size(), swallowed_before.size()) << text;
    EXPECT_TRUE(
        std::equal(swallowed_before.begin(), swallowed_before.end(), part.swallowed.begin()))
        << "at " << pos << " of " << text;
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_EQ(std::move(scanner).take().regions.size(), scan.regions.size()) << text;
}

TEST(CppRegions, AreTheLexersCommentsAndStrings) {
  for (const char* text : {
           "int a = 1; // c\n/* b\n */ x",
           R"T(auto s = R"x(a)"b)x"; char c = 'q'; auto u = u8"v"; L'w';)T",
           "int n = 1'000'000; float f = 1.f + 0x1p+3 + .5e-2;",
           "\\n__half h; \\tfloat\\rx; a\\nb",
           "\"unterminated\nnext\" 'a\\\nb' c",
           "x.half y 1.half 2'half 0x1p+half",
           "R\"(never closed",
           "/* never closed",
           "u8R\"d(x)d\" uR\"(y)\" LR\"(z)\" UR\"(w)\" R \"(v)\"",
       }) {
    expect_scan_is_the_tokens(text);
  }
}

TEST(CppRegions, AreTheLexersCommentsAndStringsOnRandomTexts) {
  const std::vector<std::string> pieces = {
      "//",    "/*",   "*/",  "/",     "*",    "\"", "'",  "\\", "\\n",  "\\t",
      "\\\\",  "R\"(", ")\"", "R\"x(", ")x\"", "u8", "L",  "u",  "R",    "1'0",
      "0x1p+", "1e-",  "1.",  ".",     "5",    "x",  "\n", " ",  "half", "__half2",
      "(",     ")",    "->",  "...",   "+",    "-",  "e",  "_"};
  std::mt19937_64 rng(9);
  for (int round = 0; round < 6000; ++round) {
    const std::string text = kbdata::testing::random_text(rng, pieces, 50);
    expect_scan_is_the_tokens(text);
    if (HasFailure()) return;
  }
}

}  // namespace
}  // namespace kbdata::source
