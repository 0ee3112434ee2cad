#include "query/noise_text.h"

#include <cstdio>

#include "report/text.h"

namespace kbdata::query {

std::string fixed_digits(double v, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, v);
  return buffer;
}

std::string series_text(const analysis::SeriesNoise& s) {
  std::string text = (s.problem_name.empty() ? "leaderboard" : s.problem_name) + " (" +
                     std::to_string(s.leaderboard_id) + ")";
  return text + (s.runner ? " on " + *s.runner : ", runner not recorded");
}

std::string measured_change(const analysis::SeriesNoise& s) {
  if (!s.change) return "";
  const analysis::ChangePoint& c = *s.change;
  return series_text(s) + ": noise x" + fixed_digits(c.after.sigma / c.before.sigma, 1) + " from " +
         report::time_text(c.time_us).substr(0, 10) + " (sigma " + fixed_digits(c.before.sigma, 3) +
         " -> " + fixed_digits(c.after.sigma, 3) + ", measured here)";
}

}  // namespace kbdata::query
