// Time charts as standalone SVG 1.1 documents: scores (seconds) against submission time (UTC).
//
// render_svg draws a fixed 960x540 chart: a title, an optional wrapped subtitle in a distinct
// colour, a plot area with gridlines, a time x axis, a y axis (log10 by default), one layer per
// series and a legend under the x axis. The rules (ticks, units, padding) are in docs/plots.md.
//
// Structure that tests and callers may rely on (classes and attributes, not pixels):
//
//   <svg class="kbdata-chart" width="960" height="540" ...>
//     <text class="title">...</text>
//     <text class="subtitle"><tspan>line</tspan>...</text>          only when a subtitle is set
//     <g class="axis x" data-scale="time">
//       <g class="tick" data-value="µs since epoch"><line class="grid"/><text>2025-03-01</text></g>
//     </g>
//     <g class="axis y" data-scale="log|linear" data-unit="µs|ms|s">
//       <g class="tick" data-value="seconds"><line class="grid" y1=Y y2=Y/><text>200</text></g>
//     </g>
//     <rect class="frame"/>
//     <g class="marker" data-time="µs since epoch"><line/><text class="marker-label">..</text></g>
//                                   one per marker inside the time axis, in input order
//     <g class="series" data-name="..." data-style="markers|line|step|highlight" data-points="N">
//       MARKERS, HIGHLIGHT: one <circle> per point, in input order; HIGHLIGHT adds one
//                           <text class="point-label"> per non-empty label
//       LINE, STEP:         one <path data-points="N"> through the points sorted by time; LINE is
//                           "M x,y L x,y ...", STEP (post) is "M x,y H x V y H x V y ..."
//     </g>
//     <text class="x-label">submission time (UTC)</text>
//     <text class="y-label">score (µs)</text>
//     <g class="legend"><g class="legend-item" data-name="..."><swatch/><text>name</text></g></g>
//   </svg>
//
// Series appear in input order; a series without points still has its (empty) group and its
// legend item. Ticks appear in increasing value order. All text is XML-escaped and made valid
// UTF-8 (U+FFFD for ill-formed bytes and for characters XML 1.0 forbids). Coordinates are written
// with one decimal. The same chart always renders to the same bytes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kbdata::plot {

struct Point {
  int64_t time_us = 0;  // x: µs since the epoch, UTC
  double value = 0;     // y: seconds
};

enum class SeriesStyle {
  MARKERS,    // scatter dots
  LINE,       // polyline through the points in time order
  STEP,       // post step line: horizontal to the next point's time, then vertical to its value
  HIGHLIGHT,  // larger emphasised markers, with optional per-point labels
};

struct Series {
  std::string name;  // shown in the legend
  SeriesStyle style = SeriesStyle::MARKERS;
  std::vector<Point> points;
  // Empty, or one per point: text drawn next to each HIGHLIGHT marker (e.g. "×1.8" or a user
  // name); an empty string draws nothing for that point. Only HIGHLIGHT series may have labels.
  std::vector<std::string> labels;
};

// A vertical dashed line at a time (a harness change, a change of noise level), labelled at the
// top of the plot area. Drawn only when its time is within the time axis.
struct TimeMarker {
  int64_t time_us = 0;
  std::string label;
};

struct TimeChart {
  std::string title;     // e.g. "alice on nvfp4_gemm (597), B200"
  std::string subtitle;  // optional, e.g. a reliability note: under the title, wrapped
  std::string x_label = "submission time (UTC)";
  std::string y_label = "score";  // the renderer appends the unit it chose: "score (µs)"
  bool log_y = true;
  // False for values that are not seconds (a relative spread): no unit is chosen or appended.
  bool y_in_seconds = true;
  std::vector<Series> series;
  std::vector<TimeMarker> markers;
};

// Renders `chart` as a standalone SVG 1.1 document (UTF-8, with an XML declaration).
// Throws kbdata::UsageError when no series has a point, when a value is not finite, when a log
// axis gets a value <= 0, when a value or time is beyond what the axes handle (|value| > 1e300,
// a log value < 1e-300, a time outside the years 1 to 9999), or when a series has labels it
// cannot draw (a non-HIGHLIGHT series, or a label count other than its point count); the message
// names the series and the point.
[[nodiscard]] std::string render_svg(const TimeChart& chart);

}  // namespace kbdata::plot
