// The HTML of kbdata serve (src/serve/html.h): escaping, highlighted code that keeps every byte,
// and diffs as tables.
#include "serve/html.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "pairs/diff.h"

namespace kbdata::serve {
namespace {

// The text of HTML made by these functions: tags dropped, the entities they write decoded.
std::string text_of(const std::string& html) {
  std::string out;
  for (size_t i = 0; i < html.size(); ++i) {
    if (html[i] == '<') {
      i = html.find('>', i);
      continue;
    }
    if (html[i] == '&') {
      const size_t end = html.find(';', i);
      const std::string entity = html.substr(i, end - i + 1);
      out += entity == "&amp;"    ? "&"
             : entity == "&lt;"   ? "<"
             : entity == "&gt;"   ? ">"
             : entity == "&quot;" ? "\""
             : entity == "&apos;" ? "'"
                                  : "?";
      i = end;
      continue;
    }
    out += html[i];
  }
  return out;
}

TEST(Escape, EveryMarkupByte) {
  EXPECT_EQ(escape("<script>alert('x') & \"y\"</script>"),
            "&lt;script&gt;alert(&apos;x&apos;) &amp; &quot;y&quot;&lt;/script&gt;");
  EXPECT_EQ(escape("a\tb\nc"), "a\tb\nc");
  EXPECT_EQ(escape(std::string("a\x01"
                               "b\x0b",
                               4)),
            "a\xEF\xBF\xBD"
            "b\xEF\xBF\xBD");
  EXPECT_EQ(escape("\xff<"), "\xEF\xBF\xBD&lt;");  // ill-formed UTF-8 repaired
}

// A page's cell is the writer's text of it (report::cell_text), escaped; a null an empty cell.
TEST(HtmlCell, TheWritersTextEscaped) {
  using result::ColumnType;
  EXPECT_EQ(html_cell(result::Cell{5.23e-5}, {"score", ColumnType::SCORE}), "52.30 µs");
  EXPECT_EQ(html_cell(result::Cell{int64_t{1'766'018'624'000'000}},
                      {"submission_time", ColumnType::TIMESTAMP}),
            "2025-12-18 00:43:44");
  EXPECT_EQ(html_cell(result::Cell{1.83}, {"speedup", ColumnType::FACTOR}), "×1.83");
  EXPECT_EQ(html_cell(result::Cell{std::string("<b>&\"x\"")}, {"user", ColumnType::STRING}),
            "&lt;b&gt;&amp;&quot;x&quot;");
  EXPECT_EQ(html_cell(result::Cell{result::List{std::string("tma"), std::string("<w>")}},
                      {"tags", ColumnType::STRING, false, true}),
            "tma,&lt;w&gt;");
  EXPECT_EQ(html_cell(result::Cell{}, {"score", ColumnType::SCORE}), "");
}

TEST(HighlightedCode, KeepsEveryByteAndMarksTokens) {
  const std::string python =
      "import torch  # fast\n\ndef f(x):\n    return x * 2 + len('<b>&')\n\"\"\"doc\n\"\"\"\n";
  const std::string html = highlighted_code(python, "submission.py");
  EXPECT_EQ(text_of(html), python);
  EXPECT_NE(html.find("<span class=\"tok-keyword\">def</span>"), std::string::npos) << html;
  EXPECT_NE(html.find("<span class=\"tok-comment\"># fast</span>"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"tok-string\">&apos;&lt;b&gt;&amp;&apos;</span>"),
            std::string::npos);
  EXPECT_NE(html.find("<span class=\"tok-number\">2</span>"), std::string::npos);
  const std::string cpp = "#include <x>\n__global__ void k(int* a) { a[0] = 1; } // c\n";
  const std::string cpp_html = highlighted_code(cpp, "k.cu");
  EXPECT_EQ(text_of(cpp_html), cpp);
  EXPECT_NE(cpp_html.find("<span class=\"tok-keyword\">__global__</span>"), std::string::npos);
  // A planted script stays text.
  const std::string planted = "x = 1\n</pre><script>window.__xss=1</script>\n";
  const std::string planted_html = highlighted_code(planted, "submission.py");
  EXPECT_EQ(planted_html.find("<script"), std::string::npos);
  EXPECT_EQ(text_of(planted_html), planted);
}

TEST(HighlightedCode, RandomTextsKeepEveryByte) {
  std::mt19937 rng(11);
  const std::string alphabet = "ab1_ \n\t#'\"\\<>&(){}[]=+-*/.:;,\r";
  for (int round = 0; round < 300; ++round) {
    std::string code(rng() % 200, ' ');
    for (char& c : code) c = alphabet[rng() % alphabet.size()];
    EXPECT_EQ(text_of(highlighted_code(code, round % 2 ? "k.cu" : "s.py")), code) << code;
  }
}

TEST(DiffTable, RowsAndLineNumbers) {
  const std::string diff = pairs::unified_diff("a\nb\nc\n", "a\nB\nc\nd\n", "s.py");
  const std::string html = diff_table(diff);
  EXPECT_NE(html.find("<tr class=\"del\"><td class=\"ln\">2</td><td class=\"ln\"></td><td>-b"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<tr class=\"add\"><td class=\"ln\"></td><td class=\"ln\">2</td><td>+B"),
            std::string::npos);
  EXPECT_NE(html.find("<tr class=\"add\"><td class=\"ln\"></td><td class=\"ln\">4</td><td>+d"),
            std::string::npos);
  EXPECT_NE(html.find("<tr class=\"ctx\"><td class=\"ln\">3</td><td class=\"ln\">3</td>"),
            std::string::npos);
  EXPECT_NE(diff_table(pairs::unified_diff("x\n", "<script>\n", "s.py")).find("+&lt;script&gt;"),
            std::string::npos);
}

TEST(DiffTable, SideBySidePairsARunOfDeletionsWithTheAdditionsAfterIt) {
  const std::string diff = pairs::unified_diff("a\nb\nc\nd\n", "a\nB\nC2\nC3\nd\n<x>\n", "s.py");
  const std::string html = diff_table_split(diff);
  EXPECT_NE(html.find("<table class=\"diff split\">"), std::string::npos);
  // b, c replaced by B, C2, C3: two rows of both, one of an addition beside an empty cell.
  EXPECT_NE(html.find("<td class=\"ln\">2</td><td class=\"del\">b</td><td class=\"ln\">2</td>"
                      "<td class=\"add\">B</td>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<td class=\"ln\">3</td><td class=\"del\">c</td><td class=\"ln\">3</td>"
                      "<td class=\"add\">C2</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<td class=\"ln\"></td><td class=\"empty\"></td><td class=\"ln\">4</td>"
                      "<td class=\"add\">C3</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<td class=\"ln\">4</td><td class=\"ctx\">d</td><td class=\"ln\">5</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<td class=\"add\">&lt;x&gt;</td>"), std::string::npos);
  // Every line of both texts is in a cell.
  size_t cells = 0;
  for (size_t at = html.find("<td class=\"del\">"); at != std::string::npos;
       at = html.find("<td class=\"del\">", at + 1)) {
    ++cells;
  }
  EXPECT_EQ(cells, 2u);
}

TEST(Page, FrameAndEscapedTitle) {
  const std::string p = page("a <b>", "home", "<p>body</p>");
  EXPECT_EQ(p.rfind("<!doctype html>", 0), 0u);
  EXPECT_NE(p.find("<title>a &lt;b&gt; · kbdata</title>"), std::string::npos);
  EXPECT_NE(p.find("<main id=\"page\" data-page=\"home\">"), std::string::npos);
  EXPECT_NE(p.find("<script src=\"/static/app.js\" defer></script>"), std::string::npos);
  EXPECT_EQ(p.find("<script>"), std::string::npos);  // no inline script
}

}  // namespace
}  // namespace kbdata::serve
