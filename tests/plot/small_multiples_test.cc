// Small multiples of shares (plot/small_multiples.h): the structure callers rely on, lines broken
// where a value is missing, text escaped, the same bytes for the same input, and one error per
// kind of bad input naming the panel and the series.
#include "plot/small_multiples.h"

#include <gtest/gtest.h>

#include <string>

#include "common/error.h"

namespace kbdata::plot {
namespace {

size_t count(const std::string& s, const std::string& part) {
  size_t n = 0;
  for (size_t at = s.find(part); at != std::string::npos; at = s.find(part, at + 1)) ++n;
  return n;
}

SmallMultiples chart(size_t panels) {
  SmallMultiples c;
  c.title = "Techniques on nvfp4_gemm";
  c.periods = 4;
  for (size_t p = 0; p < panels; ++p) {
    SharePanel panel;
    panel.name = "tag " + std::to_string(p);
    panel.series = {{"submissions", {0.1, 0.2, 0.3, 0.4}},
                    {"top 10", {0.0, std::nullopt, 1.0, 0.5}}};
    c.panels.push_back(panel);
  }
  return c;
}

TEST(SmallMultiples, PanelsSeriesAndLegend) {
  const std::string svg = render_small_multiples(chart(6));
  EXPECT_EQ(svg.rfind("<?xml", 0), 0U);
  EXPECT_NE(svg.find("class=\"kbdata-small-multiples\""), std::string::npos);
  EXPECT_EQ(count(svg, "<g class=\"panel\""), 6U);
  EXPECT_EQ(count(svg, "<g class=\"series\" data-name=\"submissions\" data-points=\"4\""), 6U);
  // The missing value breaks the top's line in two paths; the second run is two points.
  EXPECT_EQ(count(svg, "<g class=\"series\" data-name=\"top 10\" data-points=\"3\""), 6U);
  EXPECT_EQ(count(svg, "<path "), 6U * 3U);
  EXPECT_EQ(count(svg, "class=\"legend-item\""), 2U);
  // Two rows of four: the height grows with the rows.
  EXPECT_NE(render_small_multiples(chart(6)).find("height=\""), std::string::npos);
  EXPECT_NE(render_small_multiples(chart(9)).size(), svg.size());
  EXPECT_EQ(render_small_multiples(chart(6)), svg);  // deterministic
}

TEST(SmallMultiples, ASinglePointIsDrawn) {
  SmallMultiples c = chart(1);
  c.panels[0].series[1].values = {std::nullopt, 0.5, std::nullopt, std::nullopt};
  const std::string svg = render_small_multiples(c);
  EXPECT_NE(svg.find(" h 0.1\""), std::string::npos);
}

TEST(SmallMultiples, TextIsEscaped) {
  SmallMultiples c = chart(1);
  c.title = "<a & \"b\">";
  c.panels[0].name = "x<y";
  const std::string svg = render_small_multiples(c);
  EXPECT_NE(svg.find("&lt;a &amp; &quot;b&quot;&gt;"), std::string::npos);
  EXPECT_NE(svg.find("data-name=\"x&lt;y\""), std::string::npos);
  EXPECT_EQ(svg.find("x<y"), std::string::npos);
}

TEST(SmallMultiples, BadInputIsAnError) {
  const auto message = [](const SmallMultiples& c) {
    try {
      (void)render_small_multiples(c);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(SmallMultiples{}).find("no panel"), std::string::npos);
  SmallMultiples c = chart(2);
  c.panels[1].series[1].values[2] = 1.5;
  EXPECT_NE(message(c).find("panel 'tag 1' series 'top 10' period 3"), std::string::npos);
  c = chart(2);
  c.panels[1].series[0].values.pop_back();
  EXPECT_NE(message(c).find("3 values for 4 periods"), std::string::npos);
  c = chart(2);
  c.panels[1].series[0].name = "users";
  EXPECT_NE(message(c).find("is 'users', not 'submissions'"), std::string::npos);
  c = chart(2);
  c.periods = 0;
  EXPECT_NE(message(c).find("no period"), std::string::npos);
}

}  // namespace
}  // namespace kbdata::plot
