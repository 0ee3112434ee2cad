#include "plot/svg_chart.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/error.h"
#include "common/text.h"

namespace kbdata::plot {
namespace {

// ---- a small XML reader: enough of XML 1.0 to check what render_svg writes -----------------
//
// Elements, attributes (single or double quotes, no duplicates), character data, comments, the
// five predefined entities and character references. Anything else (unknown entities, a raw '&'
// or '<', mismatched or unclosed tags, text after the root, invalid UTF-8, control characters)
// throws std::runtime_error.

struct Element {
  std::string name;
  std::vector<std::pair<std::string, std::string>> attributes;
  std::vector<Element> children;
  std::string text;  // direct character data, concatenated

  [[nodiscard]] std::optional<std::string> attr(std::string_view key) const {
    for (const auto& [k, v] : attributes) {
      if (k == key) {
        return v;
      }
    }
    return std::nullopt;
  }
  [[nodiscard]] std::string attr_or_fail(std::string_view key) const {
    auto value = attr(key);
    if (!value) {
      throw std::runtime_error("<" + name + "> has no attribute " + std::string(key));
    }
    return *value;
  }
  [[nodiscard]] double number(std::string_view key) const { return std::stod(attr_or_fail(key)); }
  [[nodiscard]] bool has_class(std::string_view cls) const { return attr("class") == cls; }
  // All character data below this element, in document order.
  [[nodiscard]] std::string all_text() const {
    std::string out = text;
    for (const Element& child : children) {
      out += child.all_text();
    }
    return out;
  }
  // Descendants (not this element) for which `match` holds, in document order.
  [[nodiscard]] std::vector<const Element*> find_all(
      const std::function<bool(const Element&)>& match) const {
    std::vector<const Element*> found;
    for (const Element& child : children) {
      if (match(child)) {
        found.push_back(&child);
      }
      auto below = child.find_all(match);
      found.insert(found.end(), below.begin(), below.end());
    }
    return found;
  }
  [[nodiscard]] std::vector<const Element*> by_class(std::string_view cls) const {
    return find_all([&](const Element& e) { return e.has_class(cls); });
  }
  [[nodiscard]] std::vector<const Element*> by_name(std::string_view tag) const {
    return find_all([&](const Element& e) { return e.name == tag; });
  }
  [[nodiscard]] const Element& one_by_class(std::string_view cls) const {
    auto found = by_class(cls);
    if (found.size() != 1) {
      throw std::runtime_error(std::to_string(found.size()) + " elements of class " +
                               std::string(cls));
    }
    return *found[0];
  }
};

class XmlReader {
 public:
  explicit XmlReader(std::string_view doc) : doc_(doc) {}

  Element parse_document() {
    if (!is_valid_utf8(doc_)) {
      fail("not UTF-8");
    }
    for (char c : doc_) {
      const auto byte = static_cast<unsigned char>(c);
      if (byte < 0x20 && c != '\t' && c != '\n' && c != '\r') {
        fail("control character");
      }
    }
    if (doc_.starts_with("<?xml")) {
      const size_t end = doc_.find("?>");
      if (end == std::string_view::npos) {
        fail("unterminated XML declaration");
      }
      pos_ = end + 2;
    }
    skip_misc();
    Element root = parse_element();
    skip_misc();
    if (pos_ != doc_.size()) {
      fail("content after the root element");
    }
    return root;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("XML error at byte " + std::to_string(pos_) + ": " + what);
  }
  bool at(std::string_view s) const { return doc_.substr(pos_).starts_with(s); }
  void expect(char c) {
    if (pos_ >= doc_.size() || doc_[pos_] != c) {
      fail(std::string("expected '") + c + "'");
    }
    ++pos_;
  }
  void skip_space() {
    while (pos_ < doc_.size() &&
           std::string_view(" \t\r\n").find(doc_[pos_]) != std::string::npos) {
      ++pos_;
    }
  }
  void skip_misc() {
    for (;;) {
      skip_space();
      if (!at("<!--")) {
        return;
      }
      skip_comment();
    }
  }
  void skip_comment() {
    const size_t end = doc_.find("-->", pos_ + 4);
    if (end == std::string_view::npos) {
      fail("unterminated comment");
    }
    pos_ = end + 3;
  }
  std::string parse_name() {
    const size_t start = pos_;
    while (pos_ < doc_.size() && (std::isalnum(static_cast<unsigned char>(doc_[pos_])) ||
                                  std::string_view("_:-.").find(doc_[pos_]) != std::string::npos)) {
      ++pos_;
    }
    if (pos_ == start) {
      fail("expected a name");
    }
    return std::string(doc_.substr(start, pos_ - start));
  }
  // Character data up to (not including) one of `stops`, entities decoded.
  std::string parse_chars(std::string_view stops) {
    std::string out;
    while (pos_ < doc_.size() && stops.find(doc_[pos_]) == std::string_view::npos) {
      if (doc_[pos_] != '&') {
        out += doc_[pos_++];
        continue;
      }
      const size_t semi = doc_.find(';', pos_);
      if (semi == std::string_view::npos) {
        fail("unterminated entity");
      }
      const std::string_view entity = doc_.substr(pos_ + 1, semi - pos_ - 1);
      if (entity == "amp") {
        out += '&';
      } else if (entity == "lt") {
        out += '<';
      } else if (entity == "gt") {
        out += '>';
      } else if (entity == "quot") {
        out += '"';
      } else if (entity == "apos") {
        out += '\'';
      } else if (entity.starts_with("#")) {
        const bool hex = entity.starts_with("#x");
        uint32_t code = 0;
        const std::string_view digits = entity.substr(hex ? 2 : 1);
        auto [end, ec] =
            std::from_chars(digits.data(), digits.data() + digits.size(), code, hex ? 16 : 10);
        if (ec != std::errc() || end != digits.data() + digits.size() || code > 0x7F) {
          fail("character reference (only ASCII ones are decoded here)");
        }
        out += static_cast<char>(code);
      } else {
        fail("unknown entity &" + std::string(entity) + ";");
      }
      pos_ = semi + 1;
    }
    return out;
  }
  Element parse_element() {
    expect('<');
    Element element;
    element.name = parse_name();
    for (;;) {
      const size_t before = pos_;
      skip_space();
      if (at("/>")) {
        pos_ += 2;
        return element;
      }
      if (at(">")) {
        ++pos_;
        break;
      }
      if (pos_ == before) {
        fail("expected whitespace before an attribute");
      }
      std::string key = parse_name();
      if (element.attr(key)) {
        fail("duplicate attribute " + key);
      }
      skip_space();
      expect('=');
      skip_space();
      if (pos_ >= doc_.size() || (doc_[pos_] != '"' && doc_[pos_] != '\'')) {
        fail("unquoted value");
      }
      const char quote = doc_[pos_++];
      std::string value = parse_chars(quote == '"' ? "\"<" : "'<");
      expect(quote);
      element.attributes.emplace_back(std::move(key), std::move(value));
    }
    for (;;) {
      if (pos_ >= doc_.size()) {
        fail("unclosed <" + element.name + ">");
      }
      if (at("</")) {
        pos_ += 2;
        if (parse_name() != element.name) {
          fail("mismatched end tag of <" + element.name + ">");
        }
        skip_space();
        expect('>');
        return element;
      }
      if (at("<!--")) {
        skip_comment();
      } else if (at("<")) {
        element.children.push_back(parse_element());
      } else {
        element.text += parse_chars("<");
      }
    }
  }

  std::string_view doc_;
  size_t pos_ = 0;
};

Element parse(const std::string& svg) { return XmlReader(svg).parse_document(); }

// ---- chart helpers -------------------------------------------------------------------------

constexpr int64_t kMinute = 60'000'000;
constexpr int64_t kHour = 60 * kMinute;
constexpr int64_t kDay = 24 * kHour;
// 2025-03-01T00:00:00Z
constexpr int64_t kMarch2025 = 1'740'787'200'000'000;

std::string utc_label(int64_t time_us, bool with_time) {
  using namespace std::chrono;
  const sys_time<microseconds> t{microseconds{time_us}};
  const auto day_start = floor<days>(t);
  const year_month_day date{day_start};
  const hh_mm_ss<microseconds> clock{t - day_start};
  char buffer[32];
  if (with_time) {
    std::snprintf(buffer, sizeof(buffer), "%04d-%02u-%02u %02d:%02d", int(date.year()),
                  unsigned(date.month()), unsigned(date.day()), int(clock.hours().count()),
                  int(clock.minutes().count()));
  } else {
    std::snprintf(buffer, sizeof(buffer), "%04d-%02u-%02u", int(date.year()),
                  unsigned(date.month()), unsigned(date.day()));
  }
  return buffer;
}

struct Tick {
  double value;  // data-value: seconds (y) or µs (x)
  std::string label;
  double position;  // the gridline's y (y axis) or x (x axis)
};

std::vector<Tick> ticks(const Element& svg, std::string_view axis_class) {
  std::vector<Tick> out;
  const Element& axis = svg.one_by_class(axis_class);
  const bool is_y = axis_class == "axis y";
  for (const Element* tick : axis.by_class("tick")) {
    const auto lines = tick->by_name("line");
    const auto texts = tick->by_name("text");
    if (lines.size() != 1 || texts.size() != 1) {
      throw std::runtime_error("tick without line/text");
    }
    out.push_back({std::stod(tick->attr_or_fail("data-value")), texts[0]->all_text(),
                   lines[0]->number(is_y ? "y1" : "x1")});
  }
  return out;
}

std::vector<const Element*> series_groups(const Element& svg) { return svg.by_class("series"); }

Series markers(std::string name, std::vector<Point> points) {
  return Series{std::move(name), SeriesStyle::MARKERS, std::move(points), {}};
}

// Scores around a few hundred µs over three months, with a slower tail.
TimeChart typical_chart() {
  TimeChart chart;
  chart.title = "alice on nvfp4_gemm (597), B200";
  std::vector<Point> all;
  for (int i = 0; i < 60; ++i) {
    const double score = 120e-6 + 40e-6 * (i % 7) + (i % 11 == 0 ? 3e-3 : 0);
    all.push_back({kMarch2025 + i * 36 * kHour, score});
  }
  chart.series.push_back(markers("all submissions", all));
  chart.series.push_back(Series{
      "personal best",
      SeriesStyle::STEP,
      {{kMarch2025, 500e-6}, {kMarch2025 + 20 * kDay, 200e-6}, {kMarch2025 + 50 * kDay, 120e-6}},
      {}});
  chart.series.push_back(
      Series{"records",
             SeriesStyle::HIGHLIGHT,
             {{kMarch2025 + 20 * kDay, 200e-6}, {kMarch2025 + 50 * kDay, 120e-6}},
             {"×2.5", "×1.7"}});
  return chart;
}

// ---- the checker itself ----------------------------------------------------------------------

TEST(SvgXmlReader, RejectsMalformedDocuments) {
  EXPECT_NO_THROW(parse("<?xml version=\"1.0\"?>\n<a x=\"1\" y='&lt;'><b/>t&amp;<c>u</c></a>\n"));
  for (const char* bad :
       {"<a><b></a>", "<a x=\"1\" x=\"2\"/>", "<a>&nbsp;</a>", "<a>", "<a/><b/>", "<a>x & y</a>",
        "<a x=\"<\"/>", "<a>\xff</a>", "<a>\x01</a>", "<a x=1/>"}) {
    EXPECT_THROW(parse(bad), std::runtime_error) << bad;
  }
}

// ---- structure -------------------------------------------------------------------------------

TEST(SvgChart, DocumentStructure) {
  TimeChart chart = typical_chart();
  chart.series.push_back(Series{
      "median",
      SeriesStyle::LINE,
      {{kMarch2025 + 10 * kDay, 300e-6}, {kMarch2025, 400e-6}, {kMarch2025 + 30 * kDay, 250e-6}},
      {}});
  const std::string svg = render_svg(chart);
  ASSERT_TRUE(svg.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg "));
  const Element root = parse(svg);
  EXPECT_EQ(root.name, "svg");
  EXPECT_EQ(root.attr("xmlns"), "http://www.w3.org/2000/svg");
  EXPECT_EQ(root.attr("version"), "1.1");
  EXPECT_EQ(root.attr("width"), "960");
  EXPECT_EQ(root.attr("height"), "540");

  EXPECT_EQ(root.one_by_class("title").all_text(), "alice on nvfp4_gemm (597), B200");
  EXPECT_EQ(root.one_by_class("x-label").all_text(), "submission time (UTC)");
  EXPECT_EQ(root.one_by_class("y-label").all_text(), "score (µs)");
  EXPECT_TRUE(root.by_class("subtitle").empty());
  EXPECT_EQ(root.one_by_class("axis y").attr("data-unit"), "µs");
  EXPECT_EQ(root.one_by_class("axis y").attr("data-scale"), "log");

  const auto groups = series_groups(root);
  ASSERT_EQ(groups.size(), 4U);
  const std::vector<std::pair<std::string, std::string>> expected = {{"all submissions", "markers"},
                                                                     {"personal best", "step"},
                                                                     {"records", "highlight"},
                                                                     {"median", "line"}};
  for (size_t i = 0; i < groups.size(); ++i) {
    EXPECT_EQ(groups[i]->attr("data-name"), expected[i].first);
    EXPECT_EQ(groups[i]->attr("data-style"), expected[i].second);
    EXPECT_EQ(groups[i]->attr("data-points"), std::to_string(chart.series[i].points.size()));
  }
  EXPECT_EQ(groups[0]->by_name("circle").size(), 60U);
  EXPECT_TRUE(groups[0]->by_name("path").empty());
  ASSERT_EQ(groups[1]->by_name("path").size(), 1U);
  EXPECT_EQ(groups[1]->by_name("path")[0]->attr("data-points"), "3");
  EXPECT_TRUE(groups[1]->by_name("circle").empty());
  EXPECT_EQ(groups[2]->by_name("circle").size(), 2U);
  const auto labels = groups[2]->by_class("point-label");
  ASSERT_EQ(labels.size(), 2U);
  EXPECT_EQ(labels[0]->all_text(), "×2.5");
  EXPECT_EQ(labels[1]->all_text(), "×1.7");
  // HIGHLIGHT markers are larger than MARKERS dots.
  EXPECT_GT(groups[2]->by_name("circle")[0]->number("r"),
            groups[0]->by_name("circle")[0]->number("r"));

  // LINE: one path through the points in time order.
  ASSERT_EQ(groups[3]->by_name("path").size(), 1U);
  std::istringstream line_d(groups[3]->by_name("path")[0]->attr_or_fail("d"));
  std::vector<std::string> tokens;
  for (std::string token; line_d >> token;) {
    tokens.push_back(token);
  }
  ASSERT_EQ(tokens.size(), 3U);
  EXPECT_EQ(tokens[0][0], 'M');
  EXPECT_EQ(tokens[1][0], 'L');
  EXPECT_EQ(tokens[2][0], 'L');
  const auto x_of = [](const std::string& token) { return std::stod(token.substr(1)); };
  EXPECT_LT(x_of(tokens[0]), x_of(tokens[1]));
  EXPECT_LT(x_of(tokens[1]), x_of(tokens[2]));

  const auto legend_items = root.one_by_class("legend").by_class("legend-item");
  ASSERT_EQ(legend_items.size(), 4U);
  for (size_t i = 0; i < legend_items.size(); ++i) {
    EXPECT_EQ(legend_items[i]->attr("data-name"), expected[i].first);
    EXPECT_EQ(legend_items[i]->by_name("text")[0]->all_text(), expected[i].first);
  }
}

TEST(SvgChart, EverythingInsideTheCanvasAndTheFrame) {
  const Element root = parse(render_svg(typical_chart()));
  const Element& frame = root.one_by_class("frame");
  const double left = frame.number("x");
  const double top = frame.number("y");
  const double right = left + frame.number("width");
  const double bottom = top + frame.number("height");
  EXPECT_GT(left, 0);
  EXPECT_GT(top, 0);
  EXPECT_LT(right, 960);
  EXPECT_LT(bottom, 540);
  for (const Element* circle : root.by_name("circle")) {
    const double cx = circle->number("cx");
    const double cy = circle->number("cy");
    EXPECT_GE(cy, 0);
    EXPECT_LE(cy, 540);
    EXPECT_GE(cx, 0);
    EXPECT_LE(cx, 960);
  }
  for (const Element* group : series_groups(root)) {
    for (const Element* circle : group->by_name("circle")) {
      EXPECT_GT(circle->number("cx"), left);
      EXPECT_LT(circle->number("cx"), right);
      EXPECT_GT(circle->number("cy"), top);
      EXPECT_LT(circle->number("cy"), bottom);
    }
  }
  for (const Element* text : root.by_name("text")) {
    if (text->attr("transform")) {
      continue;  // the rotated y label
    }
    EXPECT_GE(text->number("x"), 0);
    EXPECT_LE(text->number("x"), 960);
    EXPECT_GT(text->number("y"), 0);
    EXPECT_LE(text->number("y"), 540);
  }
}

// ---- the y axis --------------------------------------------------------------------------------

// Tick labels increase, read as `unit` values matching data-value (seconds), and sit at positions
// proportional to log10 of their value.
void expect_log_ticks(const Element& root, double per_second) {
  const auto y = ticks(root, "axis y");
  ASSERT_GE(y.size(), 2U);
  for (size_t i = 0; i < y.size(); ++i) {
    const double label = std::stod(y[i].label);
    EXPECT_NEAR(label, y[i].value * per_second, 1e-9 * label) << y[i].label;
    if (i > 0) {
      EXPECT_GT(label, std::stod(y[i - 1].label));
      EXPECT_LT(y[i].position, y[i - 1].position) << "higher values are drawn higher";
    }
  }
  const double pixels_per_decade = (y.front().position - y.back().position) /
                                   (std::log10(y.back().value) - std::log10(y.front().value));
  for (const Tick& tick : y) {
    const double expected = y.front().position - pixels_per_decade * (std::log10(tick.value) -
                                                                      std::log10(y.front().value));
    EXPECT_NEAR(tick.position, expected, 0.15) << tick.label;
  }
}

// True when every tick value is m * 10^k for a mantissa m in `mantissas`.
bool mantissas_in(const std::vector<Tick>& y, std::vector<double> mantissas) {
  for (const Tick& tick : y) {
    const double label = std::stod(tick.label);
    const double m = label / std::pow(10, std::floor(std::log10(label) + 1e-9));
    if (std::none_of(mantissas.begin(), mantissas.end(),
                     [&](double want) { return std::fabs(m - want) < 1e-6; })) {
      return false;
    }
  }
  return true;
}

TEST(SvgChart, LogAxisInMicroseconds) {
  const Element root = parse(render_svg(typical_chart()));
  expect_log_ticks(root, 1e6);
  const auto y = ticks(root, "axis y");
  // 120 µs .. 3.36 ms: 1-2-5 per decade, and the data inside the labelled range.
  EXPECT_TRUE(mantissas_in(y, {1, 2, 5}));
  EXPECT_LE(y.front().value, 120e-6);
  EXPECT_GE(y.back().value, 3.36e-3);
  std::vector<std::string> labels;
  for (const Tick& tick : y) {
    labels.push_back(tick.label);
  }
  EXPECT_NE(std::find(labels.begin(), labels.end(), "100"), labels.end());
  EXPECT_NE(std::find(labels.begin(), labels.end(), "1000"), labels.end());
}

TEST(SvgChart, PointsSitAtTheirValueAndTime) {
  // Points exactly on tick values and tick times land exactly on those gridlines. Four weeks get
  // weekly ticks on Mondays: 2025-03-03 and 2025-03-31 are Mondays.
  TimeChart chart;
  chart.series.push_back(markers("s", {{kMarch2025 + 2 * kDay, 100e-6},
                                       {kMarch2025 + 10 * kDay, 1e-3},
                                       {kMarch2025 + 30 * kDay, 200e-6}}));
  const Element root = parse(render_svg(chart));
  const auto y = ticks(root, "axis y");
  const auto x = ticks(root, "axis x");
  const auto circles = series_groups(root)[0]->by_name("circle");
  const auto y_of = [&](double seconds) {
    for (const Tick& tick : y) {
      if (std::fabs(tick.value - seconds) < 1e-12) {
        return tick.position;
      }
    }
    ADD_FAILURE() << "no y tick at " << seconds;
    return 0.0;
  };
  const auto x_of = [&](int64_t time) {
    for (const Tick& tick : x) {
      if (static_cast<int64_t>(tick.value) == time) {
        return tick.position;
      }
    }
    ADD_FAILURE() << "no x tick at " << time;
    return 0.0;
  };
  ASSERT_EQ(circles.size(), 3U);
  EXPECT_NEAR(circles[0]->number("cy"), y_of(100e-6), 0.11);
  EXPECT_NEAR(circles[1]->number("cy"), y_of(1e-3), 0.11);
  EXPECT_NEAR(circles[2]->number("cy"), y_of(200e-6), 0.11);
  EXPECT_NEAR(circles[0]->number("cx"), x_of(kMarch2025 + 2 * kDay), 0.11);
  EXPECT_NEAR(circles[2]->number("cx"), x_of(kMarch2025 + 30 * kDay), 0.11);
}

TEST(SvgChart, UnitFollowsTheMedian) {
  // Mostly milliseconds, one value in µs and one in s: labels in ms.
  TimeChart chart;
  chart.series.push_back(markers("s", {{kMarch2025, 2e-3},
                                       {kMarch2025 + kDay, 5e-3},
                                       {kMarch2025 + 2 * kDay, 30e-3},
                                       {kMarch2025 + 3 * kDay, 800e-6},
                                       {kMarch2025 + 4 * kDay, 1.5}}));
  Element root = parse(render_svg(chart));
  EXPECT_EQ(root.one_by_class("y-label").all_text(), "score (ms)");
  EXPECT_EQ(root.one_by_class("axis y").attr("data-unit"), "ms");
  expect_log_ticks(root, 1e3);

  chart.series = {markers("s", {{kMarch2025, 2.5}, {kMarch2025 + kDay, 40}})};
  chart.y_label = "runtime";
  root = parse(render_svg(chart));
  EXPECT_EQ(root.one_by_class("y-label").all_text(), "runtime (s)");
  expect_log_ticks(root, 1);
}

TEST(SvgChart, WideRangeShowsDecadesOnly) {
  TimeChart chart;
  chart.series.push_back(markers("s", {{kMarch2025, 1e-6},
                                       {kMarch2025 + kDay, 20e-6},
                                       {kMarch2025 + 2 * kDay, 50e-6},
                                       {kMarch2025 + 3 * kDay, 10}}));
  const Element root = parse(render_svg(chart));
  expect_log_ticks(root, 1e6);
  const auto y = ticks(root, "axis y");
  EXPECT_TRUE(mantissas_in(y, {1}));
  EXPECT_GE(y.size(), 4U);
  EXPECT_LE(y.size(), 10U);
  EXPECT_LE(y.front().value, 1e-6);
  EXPECT_GE(y.back().value, 10);
}

TEST(SvgChart, NarrowRangeStillHasSeveralTicks) {
  TimeChart chart;
  chart.series.push_back(markers("s", {{kMarch2025, 101e-6}, {kMarch2025 + kDay, 118e-6}}));
  const Element root = parse(render_svg(chart));
  expect_log_ticks(root, 1e6);
  const auto y = ticks(root, "axis y");
  EXPECT_GE(y.size(), 3U);
  EXPECT_LE(y.front().value, 101e-6);
  EXPECT_GE(y.back().value, 118e-6);
}

TEST(SvgChart, MarkersInsideTheTimeAxisAndAUnitlessAxis) {
  TimeChart chart;
  chart.y_in_seconds = false;
  chart.y_label = "sigma of log(score)";
  chart.series.push_back(markers("s", {{kMarch2025, 0.03}, {kMarch2025 + 10 * kDay, 0.3}}));
  chart.markers = {{kMarch2025 + 5 * kDay, "evaluation"},
                   {kMarch2025 + 6 * kDay, "noise x9"},
                   {kMarch2025 + 400 * kDay, "far outside"}};
  const Element root = parse(render_svg(chart));
  EXPECT_EQ(root.one_by_class("y-label").all_text(), "sigma of log(score)");
  EXPECT_EQ(root.one_by_class("axis y").attr("data-unit"), "");
  const auto marks = root.by_class("marker");
  ASSERT_EQ(marks.size(), 2U);  // the third is beyond the axis
  EXPECT_EQ(marks[0]->attr("data-time"), std::to_string(kMarch2025 + 5 * kDay));
  EXPECT_EQ(marks[1]->one_by_class("marker-label").all_text(), "noise x9");
  const auto lines = marks[0]->by_name("line");
  ASSERT_EQ(lines.size(), 1U);
  EXPECT_EQ(lines[0]->number("x1"), lines[0]->number("x2"));
  EXPECT_LT(lines[0]->number("x1"), marks[1]->by_name("line")[0]->number("x1"));
  // Tick labels are the values themselves.
  const auto y = ticks(root, "axis y");
  EXPECT_LE(y.front().value, 0.03);
  EXPECT_GE(y.back().value, 0.3);
}

TEST(SvgChart, LinearAxis) {
  TimeChart chart;
  chart.log_y = false;
  chart.series.push_back(markers("s", {{kMarch2025, 0}, {kMarch2025 + kDay, 330e-6}}));
  const Element root = parse(render_svg(chart));
  EXPECT_EQ(root.one_by_class("axis y").attr("data-scale"), "linear");
  const auto y = ticks(root, "axis y");
  ASSERT_GE(y.size(), 3U);
  const double spacing = y[0].position - y[1].position;
  for (size_t i = 1; i < y.size(); ++i) {
    EXPECT_NEAR(y[i - 1].position - y[i].position, spacing, 0.15);
    EXPECT_NEAR(std::stod(y[i].label) - std::stod(y[i - 1].label),
                std::stod(y[1].label) - std::stod(y[0].label), 1e-9);
  }
  EXPECT_LE(y.front().value, 0);
  EXPECT_GE(y.back().value, 330e-6);
}

// ---- the x axis --------------------------------------------------------------------------------

// Tick labels are the UTC dates (and times) of their data-value, at increasing positions.
void expect_time_ticks(const Element& root, bool with_time) {
  const auto x = ticks(root, "axis x");
  ASSERT_GE(x.size(), 2U);
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(x[i].label, utc_label(static_cast<int64_t>(x[i].value), with_time));
    if (i > 0) {
      EXPECT_GT(x[i].position, x[i - 1].position);
    }
  }
}

TEST(SvgChart, TimeTicksForAYearAreMonthStarts) {
  TimeChart chart;
  chart.series.push_back(
      markers("s", {{kMarch2025 + 3 * kDay, 1e-3}, {kMarch2025 + 300 * kDay, 2e-3}}));
  const Element root = parse(render_svg(chart));
  expect_time_ticks(root, false);
  for (const Tick& tick : ticks(root, "axis x")) {
    EXPECT_TRUE(tick.label.ends_with("-01")) << tick.label;
  }
  EXPECT_GE(ticks(root, "axis x").size(), 4U);
}

TEST(SvgChart, TimeTicksForAFewWeeksAreDays) {
  TimeChart chart;
  chart.series.push_back(
      markers("s", {{kMarch2025 + 5 * kHour, 1e-3}, {kMarch2025 + 20 * kDay, 2e-3}}));
  const Element root = parse(render_svg(chart));
  expect_time_ticks(root, false);
  const auto x = ticks(root, "axis x");
  ASSERT_GE(x.size(), 3U);
  const auto step = static_cast<int64_t>(x[1].value - x[0].value);
  EXPECT_EQ(step % kDay, 0);
  for (const Tick& tick : x) {
    EXPECT_EQ(static_cast<int64_t>(tick.value) % kDay, 0);
  }
}

TEST(SvgChart, TimeTicksForHoursShowTheTime) {
  TimeChart chart;
  chart.series.push_back(markers(
      "s", {{kMarch2025 + 9 * kHour + 7 * kMinute, 1e-3}, {kMarch2025 + 15 * kHour, 2e-3}}));
  const Element root = parse(render_svg(chart));
  expect_time_ticks(root, true);
  const auto x = ticks(root, "axis x");
  ASSERT_GE(x.size(), 3U);
  const auto step = static_cast<int64_t>(x[1].value - x[0].value);
  EXPECT_EQ(step % (5 * kMinute), 0);
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(static_cast<int64_t>(x[i].value) % step, 0) << x[i].label;
    if (i > 0) {
      EXPECT_EQ(static_cast<int64_t>(x[i].value - x[i - 1].value), step);
    }
  }
}

// ---- step path
// -----------------------------------------------------------------------------------

TEST(SvgChart, StepPathGoesAcrossThenDown) {
  // Points out of time order; the same points as markers give the expected corners.
  const std::vector<Point> points = {{kMarch2025 + 9 * kDay, 150e-6},
                                     {kMarch2025, 900e-6},
                                     {kMarch2025 + 30 * kDay, 100e-6},
                                     {kMarch2025 + 2 * kDay, 400e-6}};
  TimeChart chart;
  chart.series.push_back(Series{"best", SeriesStyle::STEP, points, {}});
  chart.series.push_back(markers("same", points));
  const Element root = parse(render_svg(chart));
  const auto groups = series_groups(root);
  const auto paths = groups[0]->by_name("path");
  ASSERT_EQ(paths.size(), 1U);
  EXPECT_EQ(paths[0]->attr("data-points"), "4");

  std::vector<std::pair<double, double>> corners;
  for (const Element* circle : groups[1]->by_name("circle")) {
    corners.emplace_back(circle->number("cx"), circle->number("cy"));
  }
  std::sort(corners.begin(), corners.end());

  std::istringstream d(paths[0]->attr_or_fail("d"));
  std::vector<std::string> tokens;
  for (std::string token; d >> token;) {
    tokens.push_back(token);
  }
  ASSERT_EQ(tokens.size(), 1 + 2 * (points.size() - 1));
  ASSERT_EQ(tokens[0][0], 'M');
  const size_t comma = tokens[0].find(',');
  ASSERT_NE(comma, std::string::npos);
  EXPECT_NEAR(std::stod(tokens[0].substr(1, comma - 1)), corners[0].first, 1e-9);
  EXPECT_NEAR(std::stod(tokens[0].substr(comma + 1)), corners[0].second, 1e-9);
  for (size_t i = 1; i < points.size(); ++i) {
    const std::string& across = tokens[2 * i - 1];
    const std::string& down = tokens[2 * i];
    ASSERT_EQ(across[0], 'H') << across;
    ASSERT_EQ(down[0], 'V') << down;
    EXPECT_NEAR(std::stod(across.substr(1)), corners[i].first, 1e-9);
    EXPECT_NEAR(std::stod(down.substr(1)), corners[i].second, 1e-9);
  }
}

// ---- text
// ------------------------------------------------------------------------------------------

TEST(SvgChart, EscapesText) {
  TimeChart chart;
  chart.title = "a <b> & \"c\" 'd'";
  chart.subtitle = "bad \xff byte and \x01 control";
  chart.x_label = "x & y";
  chart.y_label = "<score>";
  chart.series.push_back(markers("<&\">", {{kMarch2025, 1e-3}}));
  chart.series.push_back(
      Series{"records", SeriesStyle::HIGHLIGHT, {{kMarch2025, 1e-3}}, {"bob & <eve> \"x\""}});
  const std::string svg = render_svg(chart);
  EXPECT_EQ(svg.find("<b>"), std::string::npos);
  EXPECT_EQ(svg.find("<eve>"), std::string::npos);
  const Element root = parse(svg);
  EXPECT_EQ(root.one_by_class("title").all_text(), "a <b> & \"c\" 'd'");
  EXPECT_EQ(root.one_by_class("subtitle").all_text(), "bad \uFFFD byte and \uFFFD control");
  EXPECT_EQ(root.one_by_class("x-label").all_text(), "x & y");
  EXPECT_EQ(root.one_by_class("y-label").all_text(), "<score> (ms)");
  EXPECT_EQ(series_groups(root)[0]->attr("data-name"), "<&\">");
  EXPECT_EQ(root.one_by_class("legend").by_class("legend-item")[0]->all_text(), "<&\">");
  EXPECT_EQ(root.one_by_class("point-label").all_text(), "bob & <eve> \"x\"");
}

TEST(SvgChart, SubtitleIsWrappedUnderTheTitleInItsOwnColour) {
  TimeChart chart = typical_chart();
  chart.subtitle =
      "Scores of this leaderboard were measured on shared runners; differences below about "
      "five percent are within the noise of repeated runs and should not be read as "
      "improvements. Records marked with a factor beat the previous record by that factor.";
  const Element root = parse(render_svg(chart));
  const Element& title = root.one_by_class("title");
  const Element& subtitle = root.one_by_class("subtitle");
  const auto lines = subtitle.by_name("tspan");
  ASSERT_GE(lines.size(), 2U);
  std::string joined;
  for (const Element* line : lines) {
    joined += (joined.empty() ? "" : " ") + line->all_text();
  }
  EXPECT_EQ(joined, chart.subtitle);
  EXPECT_GT(subtitle.number("y"), title.number("y"));
  EXPECT_NE(subtitle.attr("fill"), root.attr("fill"));
  EXPECT_LT(subtitle.number("y") + 16 * static_cast<double>(lines.size() - 1),
            root.one_by_class("frame").number("y"));
}

// ---- degenerate data ---------------------------------------------------------------------------

void expect_sensible_axes(const Element& root, double value) {
  const auto y = ticks(root, "axis y");
  ASSERT_GE(y.size(), 2U);
  EXPECT_LE(y.front().value, value);
  EXPECT_GE(y.back().value, value);
  EXPECT_GE(ticks(root, "axis x").size(), 2U);
  const Element& frame = root.one_by_class("frame");
  for (const Element* circle : series_groups(root)[0]->by_name("circle")) {
    EXPECT_GT(circle->number("cx"), frame.number("x"));
    EXPECT_LT(circle->number("cx"), frame.number("x") + frame.number("width"));
    EXPECT_GT(circle->number("cy"), frame.number("y"));
    EXPECT_LT(circle->number("cy"), frame.number("y") + frame.number("height"));
  }
}

TEST(SvgChart, SinglePoint) {
  TimeChart chart;
  chart.series.push_back(markers("one", {{kMarch2025 + 3 * kHour, 2e-3}}));
  const Element root = parse(render_svg(chart));
  expect_sensible_axes(root, 2e-3);
  expect_log_ticks(root, 1e3);
  expect_time_ticks(root, true);

  chart.log_y = false;
  expect_sensible_axes(parse(render_svg(chart)), 2e-3);
}

TEST(SvgChart, AllEqualValues) {
  TimeChart chart;
  std::vector<Point> points;
  for (int i = 0; i < 5; ++i) {
    points.push_back({kMarch2025 + i * kDay, 250e-6});
  }
  chart.series.push_back(markers("flat", points));
  const Element root = parse(render_svg(chart));
  expect_sensible_axes(root, 250e-6);
  expect_log_ticks(root, 1e6);

  chart.log_y = false;
  expect_sensible_axes(parse(render_svg(chart)), 250e-6);
  chart.series[0].points.assign(3, Point{kMarch2025, 0});
  expect_sensible_axes(parse(render_svg(chart)), 0);
}

TEST(SvgChart, EmptySeriesKeepsItsGroupAndLegend) {
  TimeChart chart = typical_chart();
  chart.series.push_back(Series{"nobody", SeriesStyle::LINE, {}, {}});
  const Element root = parse(render_svg(chart));
  const auto groups = series_groups(root);
  ASSERT_EQ(groups.size(), 4U);
  EXPECT_EQ(groups[3]->attr("data-points"), "0");
  EXPECT_EQ(root.one_by_class("legend").by_class("legend-item").size(), 4U);
}

// ---- errors
// ----------------------------------------------------------------------------------------

std::string error_of(const TimeChart& chart) {
  try {
    (void)render_svg(chart);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(SvgChart, RejectsWhatItCannotDraw) {
  TimeChart chart;
  EXPECT_NE(error_of(chart).find("no points"), std::string::npos);
  chart.series.push_back(markers("empty", {}));
  EXPECT_NE(error_of(chart).find("no points"), std::string::npos);

  chart.series = {markers("ok", {{kMarch2025, 1e-3}}),
                  markers("carol", {{kMarch2025, 1e-3}, {kMarch2025 + kDay, 0}})};
  std::string message = error_of(chart);
  EXPECT_NE(message.find("'carol'"), std::string::npos) << message;
  EXPECT_NE(message.find("point 1"), std::string::npos) << message;
  EXPECT_NE(message.find("log"), std::string::npos) << message;
  chart.series[1].points[1].value = -2e-6;
  message = error_of(chart);
  EXPECT_NE(message.find("-2e-06"), std::string::npos) << message;

  // A linear axis takes zero and negative values, but nothing that is not finite.
  chart.log_y = false;
  EXPECT_NO_THROW((void)render_svg(chart));
  chart.series[1].points[1].value = std::nan("");
  EXPECT_NE(error_of(chart).find("not a finite number"), std::string::npos);

  // Values and times the axis arithmetic and the calendar cannot handle.
  chart.log_y = true;
  chart.series[1].points[1] = {kMarch2025, 1e-310};
  EXPECT_NE(error_of(chart).find("outside the range"), std::string::npos);
  chart.series[1].points[1] = {std::numeric_limits<int64_t>::min(), 1e-3};
  EXPECT_NE(error_of(chart).find("outside the years 1 to 9999"), std::string::npos);

  chart = typical_chart();
  chart.series[2].labels.pop_back();
  EXPECT_NE(error_of(chart).find("1 labels for 2 points"), std::string::npos);
  chart = typical_chart();
  chart.series[0].labels.assign(chart.series[0].points.size(), "x");
  EXPECT_NE(error_of(chart).find("only HIGHLIGHT"), std::string::npos);
}

// ---- output properties
// -----------------------------------------------------------------------------

TEST(SvgChart, Deterministic) {
  const TimeChart chart = typical_chart();
  const std::string first = render_svg(chart);
  const TimeChart copy = chart;
  EXPECT_EQ(render_svg(copy), first);
  EXPECT_EQ(render_svg(chart), first);
}

TEST(SvgChart, FiftyThousandPointsStaySmall) {
  TimeChart chart;
  std::vector<Point> points;
  std::vector<Point> best;
  double record = 1;
  for (int i = 0; i < 50'000; ++i) {
    // A deterministic spread over 1 µs .. 10 ms and over 200 days.
    const double score = std::pow(10, -6 + 4 * std::fmod(i * 0.618033988749895, 1.0));
    const Point point{kMarch2025 + static_cast<int64_t>(i) * 345'600'000, score};
    points.push_back(point);
    if (score < record) {
      record = score;
      best.push_back(point);
    }
  }
  chart.series.push_back(markers("all", points));
  chart.series.push_back(Series{"best", SeriesStyle::STEP, best, {}});
  const std::string svg = render_svg(chart);
  EXPECT_LT(svg.size(), 5'000'000U);
  const Element root = parse(svg);
  EXPECT_EQ(series_groups(root)[0]->by_name("circle").size(), 50'000U);
  EXPECT_EQ(series_groups(root)[1]->by_name("path")[0]->attr("data-points"),
            std::to_string(best.size()));
}

// Writes a typical chart next to the kbdata binary, for looking at (docs/plots.md).
TEST(SvgChart, WritesExample) {
  TimeChart chart = typical_chart();
  chart.subtitle =
      "Note: scores on this leaderboard vary by about 5% between repeated runs of the same code; "
      "records within that margin may be noise.";
  const std::string svg = render_svg(chart);
  const auto path = std::filesystem::path(KBDATA_BINARY).parent_path() / "plot-example.svg";
  {
    std::ofstream out(path, std::ios::binary);
    out << svg;
  }
  std::ifstream in(path, std::ios::binary);
  const std::string back((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(back, svg);
}

}  // namespace
}  // namespace kbdata::plot
