#include "plot/small_multiples.h"

#include <cmath>

#include "common/error.h"
#include "plot/svg_text.h"

namespace kbdata::plot {
namespace {

constexpr double kWidth = 960;
constexpr size_t kColumns = 4;
constexpr double kMarginLeft = 48;
constexpr double kMarginRight = 16;
constexpr double kTop = 44;  // under the title
constexpr double kSubtitleHeight = 18;
constexpr double kPanelGap = 16;  // between panels, horizontally
constexpr double kPanelHeight = 110;
constexpr double kPanelTitle = 16;  // above each panel's frame
constexpr double kRowGap = 14;      // under each panel (its x labels)
constexpr double kBottom = 64;      // x label and legend

// `<text class="cls" x y font-size text-anchor>`, open for the text.
void text_open(std::string& out, std::string_view cls, double x, double y,
               std::string_view anchor = "start", double size = 11) {
  svg::append_text_open(out, cls, x, y);
  svg::append_attr(out, "font-size", size);
  out += " text-anchor=\"";
  out += anchor;
  out += "\">";
}

// `<line class="cls" x1 x2 y1 y2 stroke stroke-width/>`.
void line(std::string& out, std::string_view cls, double x1, double x2, double y1, double y2,
          std::string_view stroke, double width) {
  out += "<line";
  if (!cls.empty()) {
    out += " class=\"";
    out += cls;
    out += '"';
  }
  svg::append_attr(out, "x1", x1);
  svg::append_attr(out, "x2", x2);
  svg::append_attr(out, "y1", y1);
  svg::append_attr(out, "y2", y2);
  out += " stroke=\"";
  out += stroke;
  out += '"';
  svg::append_attr(out, "stroke-width", width);
  out += "/>";
}

void validate(const SmallMultiples& chart) {
  if (chart.panels.empty()) throw UsageError("small multiples: no panel to draw");
  if (chart.periods == 0) throw UsageError("small multiples: no period to draw");
  const SharePanel& first = chart.panels.front();
  for (const SharePanel& panel : chart.panels) {
    if (panel.series.size() != first.series.size()) {
      throw UsageError("small multiples: panel '" + panel.name + "' has " +
                       std::to_string(panel.series.size()) + " series, panel '" + first.name +
                       "' " + std::to_string(first.series.size()));
    }
    for (size_t s = 0; s < panel.series.size(); ++s) {
      const ShareSeries& series = panel.series[s];
      if (series.name != first.series[s].name) {
        throw UsageError("small multiples: panel '" + panel.name + "' series " +
                         std::to_string(s + 1) + " is '" + series.name + "', not '" +
                         first.series[s].name + "'");
      }
      if (series.values.size() != chart.periods) {
        throw UsageError("small multiples: panel '" + panel.name + "' series '" + series.name +
                         "' has " + std::to_string(series.values.size()) + " values for " +
                         std::to_string(chart.periods) + " periods");
      }
      for (size_t i = 0; i < series.values.size(); ++i) {
        const std::optional<double>& v = series.values[i];
        if (v && !(std::isfinite(*v) && *v >= 0 && *v <= 1)) {
          throw UsageError("small multiples: panel '" + panel.name + "' series '" + series.name +
                           "' period " + std::to_string(i + 1) + ": a share must be within [0, 1]");
        }
      }
    }
  }
}

// Where one panel is drawn: its frame's top left corner and width, and a period's and a share's
// place in it.
struct PanelBox {
  double x0 = 0;
  double y0 = 0;
  double width = 0;
  size_t periods = 0;

  [[nodiscard]] double x_of(size_t i) const {
    return periods > 1 ? x0 + width / static_cast<double>(periods - 1) * static_cast<double>(i)
                       : x0 + width / 2;
  }
  [[nodiscard]] double y_of(double share) const { return y0 + kPanelHeight * (1 - share); }
};

// One series of shares as paths through its periods: a gap (a period without a share) ends a
// path, and a single point is drawn as a dot-sized segment.
void append_share_series(std::string& out, const ShareSeries& series, std::string_view colour,
                         const PanelBox& box) {
  size_t points = 0;
  for (const auto& v : series.values) points += v ? 1 : 0;
  out += "<g class=\"series\" data-name=\"";
  svg::append_markup_escaped(out, series.name);
  out += "\" data-points=\"" + std::to_string(points) + "\" fill=\"none\" stroke=\"";
  out += colour;
  out += "\" stroke-width=\"1.5\">\n";
  std::string path;
  for (size_t i = 0; i <= series.values.size(); ++i) {
    const bool present = i < series.values.size() && series.values[i].has_value();
    if (present) {
      path += path.empty() ? "M " : " L ";
      svg::append_coord(path, box.x_of(i));
      path += ',';
      svg::append_coord(path, box.y_of(*series.values[i]));
      continue;
    }
    if (path.empty()) continue;
    if (path.find(" L ") == std::string::npos) path += " h 0.1";
    out += "<path d=\"" + path + "\" stroke-linecap=\"round\"/>\n";
    path.clear();
  }
  out += "</g>\n";
}

// A panel: its title, frame, the 50% gridline, the axis labels (y on the left column, x under the
// bottom row: `y_labels`, `x_labels`) and its series.
void append_panel(std::string& out, const SharePanel& panel, const PanelBox& box, bool y_labels,
                  bool x_labels) {
  out += "<g class=\"panel\" data-name=\"";
  svg::append_markup_escaped(out, panel.name);
  out += "\">\n";
  text_open(out, "panel-title", box.x0, box.y0 - 4, "start", 12);
  svg::append_markup_escaped(out, panel.name);
  out += "</text>\n";
  out += "<rect class=\"frame\"";
  svg::append_attr(out, "x", box.x0);
  svg::append_attr(out, "y", box.y0);
  svg::append_attr(out, "width", box.width);
  svg::append_attr(out, "height", kPanelHeight);
  out += " fill=\"none\" stroke=\"#888\" stroke-width=\"0.5\"/>\n";
  line(out, "grid", box.x0, box.x0 + box.width, box.y_of(0.5), box.y_of(0.5), "#ddd", 0.5);
  out += '\n';
  if (y_labels) {
    for (const auto& [v, label] : {std::pair{0.0, "0%"}, {0.5, "50%"}, {1.0, "100%"}}) {
      text_open(out, "tick y", box.x0 - 4, box.y_of(v) + 4, "end", 10);
      out += label;
      out += "</text>\n";
    }
  }
  if (x_labels) {
    text_open(out, "tick x", box.x_of(0), box.y0 + kPanelHeight + 12, "middle", 10);
    out += "1</text>\n";
    if (box.periods > 1) {
      text_open(out, "tick x", box.x_of(box.periods - 1), box.y0 + kPanelHeight + 12, "middle", 10);
      out += std::to_string(box.periods);
      out += "</text>\n";
    }
  }
  for (size_t s = 0; s < panel.series.size(); ++s) {
    append_share_series(out, panel.series[s], svg::kPalette[s % svg::kPalette.size()], box);
  }
  out += "</g>\n";
}

// The x label under the panels (`bottom`), then the legend: the first panel's series, each a
// swatch and its name.
void append_x_label_and_legend(std::string& out, const SmallMultiples& chart, double bottom) {
  text_open(out, "x-label", kWidth / 2, bottom + 14, "middle", 12);
  svg::append_markup_escaped(out, chart.x_label);
  out += "</text>\n<g class=\"legend\">\n";
  const std::vector<ShareSeries>& legend = chart.panels.front().series;
  double x = kMarginLeft;
  for (size_t s = 0; s < legend.size(); ++s) {
    out += "<g class=\"legend-item\" data-name=\"";
    svg::append_markup_escaped(out, legend[s].name);
    out += "\">";
    line(out, "", x, x + 18, bottom + 36, bottom + 36, svg::kPalette[s % svg::kPalette.size()], 2);
    text_open(out, "legend-label", x + 24, bottom + 40, "start", 11);
    svg::append_markup_escaped(out, legend[s].name);
    out += "</text></g>\n";
    x += 24 + 7.0 * static_cast<double>(legend[s].name.size()) + 24;
  }
  out += "</g>\n";
}

}  // namespace

std::string render_small_multiples(const SmallMultiples& chart) {
  validate(chart);
  const size_t rows = (chart.panels.size() + kColumns - 1) / kColumns;
  const double top = kTop + (chart.subtitle.empty() ? 0 : kSubtitleHeight);
  const double panel_width =
      (kWidth - kMarginLeft - kMarginRight - kPanelGap * (kColumns - 1)) / kColumns;
  const double row_height = kPanelTitle + kPanelHeight + kRowGap;
  const double height = top + static_cast<double>(rows) * row_height + kBottom;

  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out +=
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"kbdata-small-multiples\" width=\"960\" "
      "height=\"";
  svg::append_coord(out, height);
  out += "\" viewBox=\"0 0 960 ";
  svg::append_coord(out, height);
  out += "\" font-family=\"sans-serif\">\n";
  out += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  text_open(out, "title", kWidth / 2, 24, "middle", 16);
  svg::append_markup_escaped(out, chart.title);
  out += "</text>\n";
  if (!chart.subtitle.empty()) {
    text_open(out, "subtitle", kWidth / 2, 42, "middle", 12);
    svg::append_markup_escaped(out, chart.subtitle);
    out += "</text>\n";
  }
  for (size_t p = 0; p < chart.panels.size(); ++p) {
    const size_t column = p % kColumns;
    const size_t row = p / kColumns;
    const PanelBox box{kMarginLeft + static_cast<double>(column) * (panel_width + kPanelGap),
                       top + static_cast<double>(row) * row_height + kPanelTitle, panel_width,
                       chart.periods};
    append_panel(out, chart.panels[p], box, column == 0,
                 row + 1 == rows || p + kColumns >= chart.panels.size());
  }
  append_x_label_and_legend(out, chart, top + static_cast<double>(rows) * row_height);
  out += "</svg>\n";
  return out;
}

}  // namespace kbdata::plot
