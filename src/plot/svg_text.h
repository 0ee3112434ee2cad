// The text and number pieces kbdata's SVG renderers share (svg_chart, small_multiples): text made
// valid XML and escaped, coordinates with one decimal, the series palette.
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace kbdata::plot::svg {

inline constexpr std::array<std::string_view, 10> kPalette = {
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

// `text` as well-formed UTF-8 holding only characters XML 1.0 allows: ill-formed bytes, control
// characters other than tab, newline and carriage return, and U+FFFE / U+FFFF become U+FFFD.
[[nodiscard]] std::string sanitize_text(std::string_view text);

// Appends sanitized text escaped for both element content and double- or single-quoted
// attribute values.
void append_escaped_sanitized(std::string& out, std::string_view sanitized);

// sanitize_text, then append_escaped_sanitized.
void append_escaped(std::string& out, std::string_view text);

// A coordinate with at most one decimal ("12.5", "40", never "-0"): enough for a 960-pixel canvas
// and keeps large charts small. std::to_chars is locale-independent, so output is deterministic.
void append_coord(std::string& out, double value);

// ` name="value"`, the value a coordinate.
void append_attr(std::string& out, std::string_view name, double value);

// `<text class="cls" x=".." y=".."`, left open for the caller's other attributes and `>`.
void append_text_open(std::string& out, std::string_view cls, double x, double y);

}  // namespace kbdata::plot::svg
