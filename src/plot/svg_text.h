// The text and number pieces kbdata's SVG renderers share (svg_chart, small_multiples): text made
// valid XML and escaped, coordinates with one decimal, the series palette.
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "common/text.h"

namespace kbdata::plot::svg {

inline constexpr std::array<std::string_view, 10> kPalette = {
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

// Text made valid XML and escaped: common/text.h's markup rule, under the names the renderers use.
using kbdata::append_markup_entities;
using kbdata::append_markup_escaped;
using kbdata::markup_text;

// A coordinate with at most one decimal ("12.5", "40", never "-0"): enough for a 960-pixel canvas
// and keeps large charts small. std::to_chars is locale-independent, so output is deterministic.
void append_coord(std::string& out, double value);

// ` name="value"`, the value a coordinate.
void append_attr(std::string& out, std::string_view name, double value);

// `<text class="cls" x=".." y=".."`, left open for the caller's other attributes and `>`.
void append_text_open(std::string& out, std::string_view cls, double x, double y);

}  // namespace kbdata::plot::svg
