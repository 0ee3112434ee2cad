#include "plot/svg_chart.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <span>
#include <string_view>

#include "common/calendar.h"
#include "common/error.h"
#include "common/text.h"
#include "plot/svg_text.h"

namespace kbdata::plot {
namespace {

using svg::append_attr;
using svg::append_coord;
using svg::append_markup_entities;
using svg::append_markup_escaped;
using svg::append_text_open;
using svg::kPalette;
using svg::markup_text;

// Canvas and layout, in SVG user units (pixels).
constexpr double kWidth = 960;
constexpr double kHeight = 540;
constexpr double kMarginLeft = 76;
constexpr double kMarginRight = 24;
constexpr double kTitleSize = 16;
constexpr double kSubtitleSize = 12;
constexpr double kTickSize = 11;
constexpr double kLegendRowHeight = 18;
// Average advance of a sans-serif glyph as a fraction of the font size: enough to keep text apart
// without measuring fonts (the renderer's font is not known here).
constexpr double kGlyphWidth = 0.6;
// Share of the axis range left empty beyond the outermost data (or tick) at each end, so that
// markers are not cut by the frame.
constexpr double kAxisPad = 0.03;

constexpr std::string_view kSubtitleColour = "#b35900";

constexpr int64_t kMinuteUs = 60'000'000;
constexpr int64_t kHourUs = 60 * kMinuteUs;
constexpr int64_t kDayUs = 24 * kHourUs;

// ---- text ----------------------------------------------------------------------------------

// Estimated rendered width of sanitized text.
double text_width(std::string_view sanitized, double font_size) {
  return static_cast<double>(utf8_length(sanitized)) * font_size * kGlyphWidth;
}

// Greedy word wrap of sanitized text into at most `max_lines` lines of about `max_chars` code
// points; a word longer than a line gets a line of its own. When text is left over, the last line
// ends in "…".
std::vector<std::string> wrap_text(std::string_view sanitized, size_t max_chars, size_t max_lines) {
  std::vector<std::string> lines;
  std::string line;
  size_t line_chars = 0;
  bool truncated = false;
  size_t pos = 0;
  while (pos < sanitized.size()) {
    const size_t start = sanitized.find_first_not_of(" \t\r\n", pos);
    if (start == std::string_view::npos) {
      break;
    }
    size_t end = sanitized.find_first_of(" \t\r\n", start);
    if (end == std::string_view::npos) {
      end = sanitized.size();
    }
    const std::string_view word = sanitized.substr(start, end - start);
    pos = end;
    const size_t word_chars = utf8_length(word);
    if (line_chars > 0 && line_chars + 1 + word_chars > max_chars) {
      if (lines.size() + 1 == max_lines) {
        truncated = true;
        break;
      }
      lines.push_back(std::move(line));
      line.clear();
      line_chars = 0;
    }
    if (line_chars > 0) {
      line += ' ';
      ++line_chars;
    }
    line += word;
    line_chars += word_chars;
  }
  if (truncated) {
    line += " …";
  }
  if (line_chars > 0) {
    lines.push_back(std::move(line));
  }
  return lines;
}

// ---- numbers -------------------------------------------------------------------------------

// A value for people: 6 significant digits in plain decimal notation, without trailing zeros
// ("150", "0.25", "1000000"; never "1e+06").
void append_label_number(std::string& out, double value) {
  if (value == 0) {
    out += '0';
    return;
  }
  const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(value))));
  const int decimals = std::clamp(5 - magnitude, 0, 20);
  char buffer[64];
  auto result =
      std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::fixed, decimals);
  std::string_view text(buffer, static_cast<size_t>(result.ptr - buffer));
  if (text.find('.') != std::string_view::npos) {
    while (text.ends_with('0')) {
      text.remove_suffix(1);
    }
    if (text.ends_with('.')) {
      text.remove_suffix(1);
    }
  }
  if (text == "-0") {
    text = "0";
  }
  out += text;
}

// ---- y axis ------------------------------------------------------------------------------

struct Unit {
  std::string_view name;
  double per_second;
};

// The unit of the public tooling for a typical value: µs below 1 ms, ms below 1 s, else s.
Unit unit_for(double typical_seconds) {
  const double magnitude = std::fabs(typical_seconds);
  if (magnitude < 1e-3) {
    return {"µs", 1e6};
  }
  if (magnitude < 1) {
    return {"ms", 1e3};
  }
  return {"s", 1};
}

double median(std::vector<double> values) {
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

// 1, 2 or 5 times a power of ten, near range / target_count.
double nice_step(double range, double target_count) {
  const double rough = range / target_count;
  const double magnitude = std::pow(10, std::floor(std::log10(rough)));
  const double normalized = rough / magnitude;
  const double factor = normalized < 1.5 ? 1 : normalized < 3 ? 2 : normalized < 7 ? 5 : 10;
  return factor * magnitude;
}

// A linear or log10 axis over [lo, hi] (data units: seconds or µs) with the tick values to draw.
struct Axis {
  bool log = false;
  double lo = 0;
  double hi = 1;
  std::vector<double> ticks;

  [[nodiscard]] double transform(double v) const { return log ? std::log10(v) : v; }
  // Position of `v` along the axis, 0 at lo and 1 at hi.
  [[nodiscard]] double fraction(double v) const {
    const double t_lo = transform(lo);
    return (transform(v) - t_lo) / (transform(hi) - t_lo);
  }
  // Widens [lo, hi] by kAxisPad of its transformed length at each end.
  void pad() {
    const double t_lo = transform(lo);
    const double t_hi = transform(hi);
    const double margin = (t_hi - t_lo) * kAxisPad;
    lo = log ? std::pow(10, t_lo - margin) : t_lo - margin;
    hi = log ? std::pow(10, t_hi + margin) : t_hi + margin;
  }
};

// Multiples of `step` covering [vmin, vmax]: the axis runs from the multiple at or below vmin to
// the one at or above vmax, so both ends are ticks.
Axis linear_ticks(double vmin, double vmax, double step, bool log) {
  Axis axis;
  axis.log = log;
  const double first = std::floor(vmin / step);
  const double last = std::ceil(vmax / step);
  axis.lo = first * step;
  axis.hi = last * step;
  for (double i = first; i <= last; ++i) {
    if (!log || i * step > 0) {
      axis.ticks.push_back(i * step);
    }
  }
  if (log && axis.lo <= 0) {
    axis.lo = std::min(vmin, axis.ticks.front());
  }
  return axis;
}

// Values m * 10^e for the mantissas m in `ladder`, every `decade_step`-th decade, from the largest
// at or below vmin to the smallest at or above vmax.
Axis ladder_ticks(double vmin, double vmax, std::span<const double> ladder, int decade_step) {
  Axis axis;
  axis.log = true;
  const int e_lo = static_cast<int>(std::floor(std::log10(vmin)));
  const int e_hi = static_cast<int>(std::ceil(std::log10(vmax)));
  const int first_decade = e_lo - (((e_lo % decade_step) + decade_step) % decade_step);
  std::vector<double> all;
  for (int e = first_decade; e <= e_hi + decade_step; e += decade_step) {
    for (double m : ladder) {
      all.push_back(m * std::pow(10, e));
    }
  }
  // Largest candidate <= vmin and smallest >= vmax (with a relative tolerance, so that a value
  // that is a tick up to rounding counts as one).
  constexpr double kTolerance = 1e-9;
  size_t first = 0;
  while (first + 1 < all.size() && all[first + 1] <= vmin * (1 + kTolerance)) {
    ++first;
  }
  size_t last = all.size() - 1;
  while (last > 0 && all[last - 1] >= vmax * (1 - kTolerance)) {
    --last;
  }
  axis.ticks.assign(all.begin() + static_cast<std::ptrdiff_t>(first),
                    all.begin() + static_cast<std::ptrdiff_t>(last) + 1);
  axis.lo = axis.ticks.front();
  axis.hi = axis.ticks.back();
  return axis;
}

// The y axis for data in [vmin, vmax] (already converted to the label unit).
// Log: a range of less than half a decade gets linear 1-2-5 steps (placed on the log scale), up to
// about three decades 1-2-5 per decade (or 1..9 when that gives fewer than four ticks), wider
// ranges decades only, every k-th decade so that at most eight remain. Linear: about six 1-2-5
// steps. Equal values are spread out first so that the axis has a length.
Axis y_axis(double vmin, double vmax, bool log) {
  Axis axis;
  // Values equal up to rounding count as equal: steps far below their magnitude are not
  // representable (and tick loops would not advance).
  const bool equal = vmax - vmin <= 1e-9 * std::max(std::fabs(vmin), std::fabs(vmax));
  if (log) {
    if (equal) {
      vmin /= 1.5;
      vmax *= 1.5;
    }
    const double decades = std::log10(vmax / vmin);
    if (decades < 0.5) {
      axis = linear_ticks(vmin, vmax, nice_step(vmax - vmin, 5), true);
    } else {
      static constexpr std::array<double, 3> kOneTwoFive = {1, 2, 5};
      static constexpr std::array<double, 9> kOneToNine = {1, 2, 3, 4, 5, 6, 7, 8, 9};
      static constexpr std::array<double, 1> kDecades = {1};
      axis = ladder_ticks(vmin, vmax, kOneTwoFive, 1);
      if (axis.ticks.size() < 4) {
        axis = ladder_ticks(vmin, vmax, kOneToNine, 1);
      } else if (axis.ticks.size() > 10) {
        const int decade_step = static_cast<int>(std::ceil((decades + 1) / 8));
        axis = ladder_ticks(vmin, vmax, kDecades, decade_step);
      }
    }
  } else {
    if (equal) {
      const double spread = vmin == 0 ? 1 : std::fabs(vmin) * 0.1;
      vmin -= spread;
      vmax += spread;
    }
    axis = linear_ticks(vmin, vmax, nice_step(vmax - vmin, 6), false);
  }
  axis.pad();
  return axis;
}

// ---- x axis ------------------------------------------------------------------------------

std::chrono::year_month_day civil_date(int64_t time_us) {
  return std::chrono::year_month_day{
      std::chrono::sys_days{std::chrono::days{floor_div(time_us, kDayUs)}}};
}

int64_t time_of(std::chrono::year_month_day date) {
  return static_cast<int64_t>(std::chrono::sys_days{date}.time_since_epoch().count()) * kDayUs;
}

enum class StepKind { FIXED, MONTHS, YEARS };

struct TimeStep {
  StepKind kind;
  int64_t amount;  // µs for FIXED, else months or years
  int64_t offset;  // FIXED: ticks fall on offset + k * amount µs since the epoch
  [[nodiscard]] double nominal_us() const {
    switch (kind) {
      case StepKind::FIXED:
        return static_cast<double>(amount);
      case StepKind::MONTHS:
        return static_cast<double>(amount) * 30.44 * kDayUs;
      case StepKind::YEARS:
        return static_cast<double>(amount) * 365.25 * kDayUs;
    }
    return 0;
  }
};

// 1970-01-05 was a Monday: weeks start on Mondays.
constexpr int64_t kMondayOffset = 4 * kDayUs;

constexpr std::array<TimeStep, 11> kSubDaySteps = {{
    {StepKind::FIXED, kMinuteUs, 0},
    {StepKind::FIXED, 2 * kMinuteUs, 0},
    {StepKind::FIXED, 5 * kMinuteUs, 0},
    {StepKind::FIXED, 10 * kMinuteUs, 0},
    {StepKind::FIXED, 15 * kMinuteUs, 0},
    {StepKind::FIXED, 30 * kMinuteUs, 0},
    {StepKind::FIXED, kHourUs, 0},
    {StepKind::FIXED, 2 * kHourUs, 0},
    {StepKind::FIXED, 3 * kHourUs, 0},
    {StepKind::FIXED, 6 * kHourUs, 0},
    {StepKind::FIXED, 12 * kHourUs, 0},
}};
constexpr std::array<TimeStep, 18> kDateSteps = {{
    {StepKind::FIXED, kDayUs, 0},
    {StepKind::FIXED, 2 * kDayUs, 0},
    {StepKind::FIXED, 7 * kDayUs, kMondayOffset},
    {StepKind::FIXED, 14 * kDayUs, kMondayOffset},
    {StepKind::MONTHS, 1, 0},
    {StepKind::MONTHS, 2, 0},
    {StepKind::MONTHS, 3, 0},
    {StepKind::MONTHS, 6, 0},
    {StepKind::YEARS, 1, 0},
    {StepKind::YEARS, 2, 0},
    {StepKind::YEARS, 5, 0},
    {StepKind::YEARS, 10, 0},
    {StepKind::YEARS, 20, 0},
    {StepKind::YEARS, 50, 0},
    {StepKind::YEARS, 100, 0},
    {StepKind::YEARS, 200, 0},
    {StepKind::YEARS, 500, 0},
    {StepKind::YEARS, 1000, 0},
}};

// Tick times (µs) of `step` within [lo, hi].
std::vector<int64_t> time_ticks(int64_t lo, int64_t hi, const TimeStep& step) {
  std::vector<int64_t> ticks;
  if (step.kind == StepKind::FIXED) {
    int64_t t = (floor_div(lo - step.offset - 1, step.amount) + 1) * step.amount + step.offset;
    for (; t <= hi; t += step.amount) {
      ticks.push_back(t);
    }
    return ticks;
  }
  using namespace std::chrono;
  const year_month_day first = civil_date(lo);
  const year_month_day last = civil_date(hi);
  if (step.kind == StepKind::MONTHS) {
    // Months counted from year 0, January; ticks on the first of months divisible by the step.
    const int64_t m_lo = int64_t{int(first.year())} * 12 + unsigned(first.month()) - 1;
    const int64_t m_hi = int64_t{int(last.year())} * 12 + unsigned(last.month()) - 1;
    for (int64_t m = m_lo; m <= m_hi; ++m) {
      if (floor_div(m, step.amount) * step.amount != m) {
        continue;
      }
      const year_month_day date{year{static_cast<int>(floor_div(m, 12))},
                                month{static_cast<unsigned>(m - floor_div(m, 12) * 12 + 1)},
                                day{1}};
      const int64_t t = time_of(date);
      if (t >= lo && t <= hi) {
        ticks.push_back(t);
      }
    }
    return ticks;
  }
  for (int64_t y = int(first.year()); y <= int(last.year()); ++y) {
    if (floor_div(y, step.amount) * step.amount != y) {
      continue;
    }
    const int64_t t = time_of(year{static_cast<int>(y)} / January / 1);
    if (t >= lo && t <= hi) {
      ticks.push_back(t);
    }
  }
  return ticks;
}

// "YYYY-MM-DD", or "YYYY-MM-DD HH:MM" with `with_time`.
void append_time_label(std::string& out, int64_t time_us, bool with_time) {
  const std::chrono::year_month_day date = civil_date(time_us);
  const int64_t minutes = (time_us - floor_div(time_us, kDayUs) * kDayUs) / kMinuteUs;
  char buffer[48];
  int length = 0;
  if (with_time) {
    length = std::snprintf(buffer, sizeof(buffer), "%04d-%02u-%02u %02d:%02d", int(date.year()),
                           unsigned(date.month()), unsigned(date.day()),
                           static_cast<int>(minutes / 60), static_cast<int>(minutes % 60));
  } else {
    length = std::snprintf(buffer, sizeof(buffer), "%04d-%02u-%02u", int(date.year()),
                           unsigned(date.month()), unsigned(date.day()));
  }
  out.append(buffer, static_cast<size_t>(length));
}

struct TimeAxis {
  double lo = 0;  // µs
  double hi = 0;
  std::vector<int64_t> ticks;
  bool with_time = false;
};

// Date ticks (days, weeks, months, years) when at least three fit; otherwise, for short spans,
// ticks every few minutes or hours labelled with the time of day. The step is the smallest whose
// labels do not crowd `plot_width`.
TimeAxis time_axis(int64_t tmin, int64_t tmax, double plot_width) {
  TimeAxis axis;
  if (tmin == tmax) {
    tmin -= kHourUs;
    tmax += kHourUs;
  }
  const double margin = (static_cast<double>(tmax) - static_cast<double>(tmin)) * kAxisPad;
  axis.lo = static_cast<double>(tmin) - margin;
  axis.hi = static_cast<double>(tmax) + margin;
  const auto lo = static_cast<int64_t>(std::ceil(axis.lo));
  const auto hi = static_cast<int64_t>(std::floor(axis.hi));
  const double span = axis.hi - axis.lo;

  const auto pick = [&](std::span<const TimeStep> steps, size_t label_chars) -> const TimeStep& {
    const double label_width = static_cast<double>(label_chars) * kTickSize * kGlyphWidth + 24;
    const double max_ticks = std::max(2.0, std::floor(plot_width / label_width));
    for (const TimeStep& step : steps) {
      if (span / step.nominal_us() + 1 <= max_ticks) {
        return step;
      }
    }
    return steps.back();
  };
  axis.ticks = time_ticks(lo, hi, pick(kDateSteps, 10));
  if (axis.ticks.size() < 3 && span < 7.0 * kDayUs) {
    axis.ticks = time_ticks(lo, hi, pick(kSubDaySteps, 16));
    axis.with_time = true;
  }
  return axis;
}

// ---- drawing -----------------------------------------------------------------------------

std::string_view style_name(SeriesStyle style) {
  switch (style) {
    case SeriesStyle::MARKERS:
      return "markers";
    case SeriesStyle::LINE:
      return "line";
    case SeriesStyle::STEP:
      return "step";
    case SeriesStyle::HIGHLIGHT:
      return "highlight";
  }
  return "markers";
}

std::string describe_series(size_t index, const Series& series) {
  return "series " + std::to_string(index) + " '" + series.name + "'";
}

// Limits that keep the axis arithmetic finite and the calendar within four-digit years.
constexpr double kMaxValue = 1e300;
constexpr double kMinLogValue = 1e-300;
constexpr int64_t kMinTime = -62'135'596'800'000'000;  // 0001-01-01T00:00:00Z
constexpr int64_t kMaxTime = 253'402'300'799'999'999;  // 9999-12-31T23:59:59.999999Z

std::string number_text(double value) {
  std::string text;
  append_double(text, value);
  return text;
}

[[noreturn]] void reject_point(size_t index, const Series& series, size_t point,
                               const std::string& problem) {
  throw UsageError(describe_series(index, series) + ", point " + std::to_string(point) + ": " +
                   problem);
}

// Checks what render_svg promises to reject; returns the number of points.
size_t validate(const TimeChart& chart) {
  size_t count = 0;
  for (size_t s = 0; s < chart.series.size(); ++s) {
    const Series& series = chart.series[s];
    if (!series.labels.empty()) {
      if (series.style != SeriesStyle::HIGHLIGHT) {
        throw UsageError(describe_series(s, series) +
                         " has labels, but only HIGHLIGHT series draw labels");
      }
      if (series.labels.size() != series.points.size()) {
        throw UsageError(describe_series(s, series) + " has " +
                         std::to_string(series.labels.size()) + " labels for " +
                         std::to_string(series.points.size()) + " points");
      }
    }
    for (size_t p = 0; p < series.points.size(); ++p) {
      const Point& point = series.points[p];
      if (!std::isfinite(point.value)) {
        reject_point(s, series, p, "value " + number_text(point.value) + " is not a finite number");
      }
      if (chart.log_y && point.value <= 0) {
        reject_point(
            s, series, p,
            "value " + number_text(point.value) + " s cannot be drawn on a log axis (needs > 0)");
      }
      if (std::fabs(point.value) > kMaxValue || (chart.log_y && point.value < kMinLogValue)) {
        reject_point(
            s, series, p,
            "value " + number_text(point.value) + " s is outside the range a chart can draw");
      }
      if (point.time_us < kMinTime || point.time_us > kMaxTime) {
        reject_point(
            s, series, p,
            "time " + std::to_string(point.time_us) + " µs is outside the years 1 to 9999");
      }
    }
    count += series.points.size();
  }
  if (count == 0) {
    throw UsageError("the chart has no points to draw");
  }
  return count;
}

struct Frame {
  double left, top, right, bottom;
  [[nodiscard]] double width() const { return right - left; }
  [[nodiscard]] double height() const { return bottom - top; }
};

struct LegendItem {
  std::string name;  // sanitized
  double x;
  int row;
};

// Legend items placed left to right in rows under the x axis label.
std::vector<LegendItem> layout_legend(const TimeChart& chart) {
  std::vector<LegendItem> items;
  const double usable = kWidth - kMarginLeft - kMarginRight;
  double x = 0;
  int row = 0;
  for (const Series& series : chart.series) {
    std::string name = markup_text(series.name);
    const double width = 24 + text_width(name, kTickSize) + 20;
    if (x > 0 && x + width > usable) {
      x = 0;
      ++row;
    }
    items.push_back({std::move(name), kMarginLeft + x, row});
    x += width;
  }
  return items;
}

// Where everything of a chart goes: the text's lines, the plot's frame, both axes and the unit of
// the y labels, the legend's items; and the data's place in the frame.
struct ChartLayout {
  size_t point_count = 0;
  Unit unit;
  Axis y;
  TimeAxis x;
  std::vector<std::string> title_lines;
  std::vector<std::string> subtitle_lines;
  std::vector<LegendItem> legend;
  Frame frame{};

  [[nodiscard]] double px(double time_us) const {
    return frame.left + (time_us - x.lo) / (x.hi - x.lo) * frame.width();
  }
  [[nodiscard]] double py(double seconds) const {
    return frame.bottom - y.fraction(seconds * unit.per_second) * frame.height();
  }
};

// The data's ranges and the unit of the y labels; the header (title and subtitle lines) and the
// footer (tick labels, x label, legend rows) around the frame.
ChartLayout layout_chart(const TimeChart& chart) {
  ChartLayout layout;
  layout.point_count = validate(chart);
  std::vector<double> values;
  values.reserve(layout.point_count);
  int64_t tmin = std::numeric_limits<int64_t>::max();
  int64_t tmax = std::numeric_limits<int64_t>::min();
  for (const Series& series : chart.series) {
    for (const Point& point : series.points) {
      values.push_back(point.value);
      tmin = std::min(tmin, point.time_us);
      tmax = std::max(tmax, point.time_us);
    }
  }
  const auto [vmin_it, vmax_it] = std::minmax_element(values.begin(), values.end());
  layout.unit = chart.y_in_seconds ? unit_for(median(values)) : Unit{"", 1};
  layout.y =
      y_axis(*vmin_it * layout.unit.per_second, *vmax_it * layout.unit.per_second, chart.log_y);

  const std::string title = markup_text(chart.title);
  const std::string subtitle = markup_text(chart.subtitle);
  const double text_space = kWidth - 2 * kMarginRight;
  layout.title_lines =
      wrap_text(title, static_cast<size_t>(text_space / (kTitleSize * kGlyphWidth)), 2);
  layout.subtitle_lines =
      wrap_text(subtitle, static_cast<size_t>(text_space / (kSubtitleSize * kGlyphWidth)), 3);
  double header = 8;
  header += static_cast<double>(layout.title_lines.size()) * (kTitleSize + 4);
  header += static_cast<double>(layout.subtitle_lines.size()) * (kSubtitleSize + 4);
  layout.legend = layout_legend(chart);
  const int legend_rows = layout.legend.empty() ? 0 : layout.legend.back().row + 1;
  layout.frame = {kMarginLeft, header + 14, kWidth - kMarginRight,
                  kHeight - 48 - kLegendRowHeight * legend_rows};
  layout.x = time_axis(tmin, tmax, layout.frame.width());
  return layout;
}

void append_titles(std::string& out, const ChartLayout& layout) {
  double baseline = 8;
  if (!layout.title_lines.empty()) {
    baseline += kTitleSize + 4;
    append_text_open(out, "title", kMarginRight, baseline);
    out += " font-size=\"16\" font-weight=\"bold\">";
    for (size_t i = 0; i < layout.title_lines.size(); ++i) {
      if (i > 0) {
        out += "<tspan x=\"24\" dy=\"20\">";
        baseline += kTitleSize + 4;
      }
      append_markup_entities(out, layout.title_lines[i]);
      if (i > 0) {
        out += "</tspan>";
      }
    }
    out += "</text>\n";
  }
  if (!layout.subtitle_lines.empty()) {
    append_text_open(out, "subtitle", kMarginRight, baseline + kSubtitleSize + 4);
    out += " fill=\"";
    out += kSubtitleColour;
    out += "\">";
    for (size_t i = 0; i < layout.subtitle_lines.size(); ++i) {
      out += i == 0 ? "<tspan>" : "<tspan x=\"24\" dy=\"16\">";
      append_markup_entities(out, layout.subtitle_lines[i]);
      out += "</tspan>";
    }
    out += "</text>\n";
  }
}

// Vertical gridlines and date labels.
void append_x_axis(std::string& out, const ChartLayout& layout) {
  const Frame& frame = layout.frame;
  out += "<g class=\"axis x\" data-scale=\"time\" font-size=\"11\">\n";
  for (int64_t t : layout.x.ticks) {
    const double tx = layout.px(static_cast<double>(t));
    out += "<g class=\"tick\" data-value=\"" + std::to_string(t) + "\">";
    out += "<line class=\"grid\" stroke=\"#e3e3e3\"";
    append_attr(out, "x1", tx);
    append_attr(out, "y1", frame.top);
    append_attr(out, "x2", tx);
    append_attr(out, "y2", frame.bottom + 4);
    out += "/><text";
    const double half = (layout.x.with_time ? 16 : 10) * kTickSize * kGlyphWidth / 2;
    if (tx + half > kWidth - 2) {
      out += " text-anchor=\"end\"";
    } else if (tx - half < 2) {
      out += " text-anchor=\"start\"";
    } else {
      out += " text-anchor=\"middle\"";
    }
    append_attr(out, "x", tx);
    append_attr(out, "y", frame.bottom + 18);
    out += '>';
    append_time_label(out, t, layout.x.with_time);
    out += "</text></g>\n";
  }
  out += "</g>\n";
}

// Horizontal gridlines and value labels in the chosen unit; then the frame.
void append_y_axis(std::string& out, const TimeChart& chart, const ChartLayout& layout) {
  const Frame& frame = layout.frame;
  out += "<g class=\"axis y\" data-scale=\"";
  out += chart.log_y ? "log" : "linear";
  out += "\" data-unit=\"";
  out += layout.unit.name;
  out += "\" font-size=\"11\">\n";
  for (double v : layout.y.ticks) {
    const double ty = frame.bottom - layout.y.fraction(v) * frame.height();
    out += "<g class=\"tick\" data-value=\"";
    append_label_number(out, v / layout.unit.per_second);
    out += "\"><line class=\"grid\" stroke=\"#e3e3e3\"";
    append_attr(out, "x1", frame.left - 4);
    append_attr(out, "y1", ty);
    append_attr(out, "x2", frame.right);
    append_attr(out, "y2", ty);
    out += "/><text text-anchor=\"end\"";
    append_attr(out, "x", frame.left - 7);
    append_attr(out, "y", ty + 4);
    out += '>';
    append_label_number(out, v);
    out += "</text></g>\n";
  }
  out += "</g>\n";

  out += "<rect class=\"frame\" fill=\"none\" stroke=\"#888\"";
  append_attr(out, "x", frame.left);
  append_attr(out, "y", frame.top);
  append_attr(out, "width", frame.width());
  append_attr(out, "height", frame.height());
  out += "/>\n";
}

// The markers inside the time range, under the series.
void append_markers(std::string& out, const TimeChart& chart, const ChartLayout& layout) {
  const Frame& frame = layout.frame;
  for (const TimeMarker& marker : chart.markers) {
    const auto time = static_cast<double>(marker.time_us);
    if (time < layout.x.lo || time > layout.x.hi) {
      continue;
    }
    const double mx = layout.px(time);
    out += "<g class=\"marker\" data-time=\"" + std::to_string(marker.time_us) + "\">";
    out += "<line stroke=\"#b04a4a\" stroke-dasharray=\"4 3\"";
    append_attr(out, "x1", mx);
    append_attr(out, "y1", frame.top);
    append_attr(out, "x2", mx);
    append_attr(out, "y2", frame.bottom);
    out += "/>";
    append_text_open(out, "marker-label", mx + 3, frame.top + 11);
    out += " font-size=\"10\" fill=\"#b04a4a\">";
    append_markup_escaped(out, marker.label);
    out += "</text></g>\n";
  }
}

// A series drawn as markers (circles, and their labels).
void append_marker_points(std::string& out, const Series& series, std::string_view colour,
                          const ChartLayout& layout) {
  const bool highlight = series.style == SeriesStyle::HIGHLIGHT;
  out += " fill=\"";
  out += colour;
  out += highlight ? "\" stroke=\"#222\" stroke-width=\"1\">\n" : "\" fill-opacity=\"0.6\">\n";
  for (const Point& point : series.points) {
    out += "<circle";
    append_attr(out, "cx", layout.px(static_cast<double>(point.time_us)));
    append_attr(out, "cy", layout.py(point.value));
    out += highlight ? " r=\"5\"/>" : " r=\"2.5\"/>";
  }
  for (size_t p = 0; p < series.labels.size(); ++p) {
    if (series.labels[p].empty()) {
      continue;
    }
    const double cx = layout.px(static_cast<double>(series.points[p].time_us));
    const double cy = layout.py(series.points[p].value);
    // Up and to the right of the marker; to its left near the right edge of the plot.
    const std::string label = markup_text(series.labels[p]);
    const bool flip = cx + 8 + text_width(label, kTickSize) > layout.frame.right;
    out += "\n<text class=\"point-label\" stroke=\"none\" fill=\"#222\" font-size=\"11\"";
    if (flip) {
      out += " text-anchor=\"end\"";
    }
    append_attr(out, "x", flip ? cx - 7 : cx + 7);
    append_attr(out, "y", cy - 7);
    out += '>';
    append_markup_entities(out, label);
    out += "</text>";
  }
}

// A series drawn as one path through its points in time order: straight lines, or steps.
void append_line_path(std::string& out, const Series& series, std::string_view colour,
                      const std::string& points_attr, const ChartLayout& layout) {
  std::vector<Point> sorted = series.points;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Point& a, const Point& b) { return a.time_us < b.time_us; });
  out += " fill=\"none\" stroke=\"";
  out += colour;
  out += "\" stroke-width=\"2\" stroke-linejoin=\"round\">\n<path data-points=\"" + points_attr +
         "\" d=\"";
  for (size_t p = 0; p < sorted.size(); ++p) {
    const double cx = layout.px(static_cast<double>(sorted[p].time_us));
    const double cy = layout.py(sorted[p].value);
    if (p == 0) {
      out += 'M';
    } else if (series.style == SeriesStyle::LINE) {
      out += " L";
    } else {
      out += " H";
      append_coord(out, cx);
      out += " V";
      append_coord(out, cy);
      continue;
    }
    append_coord(out, cx);
    out += ',';
    append_coord(out, cy);
  }
  out += "\"/>";
}

// The series, in input order (later ones on top).
void append_series(std::string& out, const TimeChart& chart, const ChartLayout& layout) {
  for (size_t s = 0; s < chart.series.size(); ++s) {
    const Series& series = chart.series[s];
    const std::string_view colour = kPalette[s % kPalette.size()];
    const std::string points_attr = std::to_string(series.points.size());
    out += "<g class=\"series\" data-name=\"";
    append_markup_escaped(out, series.name);
    out += "\" data-style=\"";
    out += style_name(series.style);
    out += "\" data-points=\"" + points_attr + '"';
    switch (series.style) {
      case SeriesStyle::MARKERS:
      case SeriesStyle::HIGHLIGHT:
        append_marker_points(out, series, colour, layout);
        break;
      case SeriesStyle::LINE:
      case SeriesStyle::STEP:
        append_line_path(out, series, colour, points_attr, layout);
        break;
    }
    out += "\n</g>\n";
  }
}

// The axis labels; the y label carries the unit of the tick labels.
void append_axis_labels(std::string& out, const TimeChart& chart, const ChartLayout& layout) {
  const Frame& frame = layout.frame;
  append_text_open(out, "x-label", (frame.left + frame.right) / 2, frame.bottom + 38);
  out += " text-anchor=\"middle\">";
  append_markup_escaped(out, chart.x_label);
  out += "</text>\n";
  const double y_label_x = 18;
  const double y_label_y = (frame.top + frame.bottom) / 2;
  append_text_open(out, "y-label", y_label_x, y_label_y);
  out += " text-anchor=\"middle\" transform=\"rotate(-90 ";
  append_coord(out, y_label_x);
  out += ' ';
  append_coord(out, y_label_y);
  out += ")\">";
  append_markup_escaped(out, chart.y_label);
  if (!layout.unit.name.empty()) {
    out += " (";
    out += layout.unit.name;
    out += ")";
  }
  out += "</text>\n";
}

// The legend: a swatch in each series' style, then its name.
void append_legend(std::string& out, const TimeChart& chart, const ChartLayout& layout) {
  out += "<g class=\"legend\" font-size=\"11\">\n";
  for (size_t s = 0; s < layout.legend.size(); ++s) {
    const LegendItem& item = layout.legend[s];
    const std::string_view colour = kPalette[s % kPalette.size()];
    const double row_y = layout.frame.bottom + 60 + kLegendRowHeight * item.row;
    out += "<g class=\"legend-item\" data-name=\"";
    append_markup_entities(out, item.name);
    out += "\">";
    switch (chart.series[s].style) {
      case SeriesStyle::MARKERS:
      case SeriesStyle::HIGHLIGHT: {
        const bool highlight = chart.series[s].style == SeriesStyle::HIGHLIGHT;
        out += "<circle";
        append_attr(out, "cx", item.x + 10);
        append_attr(out, "cy", row_y - 4);
        out += highlight ? " r=\"5\" stroke=\"#222\" fill=\""
                         : " r=\"3.5\" fill-opacity=\"0.6\" fill=\"";
        out += colour;
        out += "\"/>";
        break;
      }
      case SeriesStyle::LINE:
      case SeriesStyle::STEP:
        out += "<line stroke-width=\"2\" stroke=\"";
        out += colour;
        out += '"';
        append_attr(out, "x1", item.x);
        append_attr(out, "y1", row_y - 4);
        append_attr(out, "x2", item.x + 20);
        append_attr(out, "y2", row_y - 4);
        out += "/>";
        break;
    }
    out += "<text";
    append_attr(out, "x", item.x + 24);
    append_attr(out, "y", row_y);
    out += '>';
    append_markup_entities(out, item.name);
    out += "</text></g>\n";
  }
  out += "</g>\n";
}

}  // namespace

std::string render_svg(const TimeChart& chart) {
  const ChartLayout layout = layout_chart(chart);
  std::string out;
  out.reserve(4096 + layout.point_count * 48);
  out +=
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" class=\"kbdata-chart\" "
      "width=\"960\" height=\"540\" viewBox=\"0 0 960 540\" "
      "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"12\" "
      "fill=\"#222\">\n"
      "<rect class=\"background\" width=\"960\" height=\"540\" fill=\"#fff\"/>\n";
  append_titles(out, layout);
  append_x_axis(out, layout);
  append_y_axis(out, chart, layout);
  append_markers(out, chart, layout);
  append_series(out, chart, layout);
  append_axis_labels(out, chart, layout);
  append_legend(out, chart, layout);
  out += "</svg>\n";
  return out;
}

}  // namespace kbdata::plot
