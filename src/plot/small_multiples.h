// Small multiples of shares as one standalone SVG 1.1 document: a grid of panels (four per row),
// each a share from 0 to 100% against a count of periods (weeks), with the same series in each
// panel and one legend under the grid (docs/plots.md, "Small multiples").
//
// Structure that tests and callers may rely on (classes and attributes, not pixels):
//
//   <svg class="kbdata-small-multiples" width="960" height="H" ...>
//     <text class="title">...</text>
//     <text class="subtitle">...</text>                       only when a subtitle is set
//     <g class="panel" data-name="...">                        one per panel, in input order
//       <rect class="frame"/><text class="panel-title">...</text>
//       <g class="series" data-name="..." data-points="N">    one per series, in input order
//         <path d="M x,y L x,y ..."/>                         one per run of values without a gap
//       </g>
//     </g>
//     <text class="x-label">...</text>
//     <g class="legend"><g class="legend-item" data-name="..."><line/><text>name</text></g></g>
//   </svg>
//
// The y axis of every panel runs from 0 to 1 (shown as 0%, 50%, 100% on the left column), the x
// axis from 1 to `periods` (first and last labelled under the bottom row). A missing value (no
// submission that week) breaks the line. All text is escaped and made valid UTF-8; the same input
// always renders to the same bytes.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kbdata::plot {

struct ShareSeries {
  std::string name;
  std::vector<std::optional<double>> values;  // one per period, each in [0, 1], or none
};

struct SharePanel {
  std::string name;
  std::vector<ShareSeries> series;  // the same names, in the same order, in every panel
};

struct SmallMultiples {
  std::string title;
  std::string subtitle;
  std::string x_label = "week";
  size_t periods = 0;
  std::vector<SharePanel> panels;
};

// Throws kbdata::UsageError when there is no panel or no period, when the panels' series differ in
// names or count, when a series does not have one value per period, or when a value is outside
// [0, 1] or not finite; the message names the panel and the series.
[[nodiscard]] std::string render_small_multiples(const SmallMultiples& chart);

}  // namespace kbdata::plot
