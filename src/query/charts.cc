#include "query/charts.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "common/error.h"
#include "dataset/epochs.h"
#include "dataset/registry.h"

namespace kbdata::query {
namespace {

// New bests at least this much better than the previous one carry their factor as a label.
constexpr double kLabelledFactor = 1.05;

std::string leaderboard_text(const std::string& problem, int64_t id) {
  return (problem.empty() ? "leaderboard" : problem) + " (" + std::to_string(id) + ")";
}

std::string factor_label(double factor) { return fmt::format("×{:.2f}", factor); }

// "scores" or "scores, B200" when several runners share the chart.
std::string series_name(const char* what, const std::optional<std::string>& runner, bool several) {
  if (!several) return what;
  return std::string(what) + ", " + runner.value_or("no runner");
}

}  // namespace

plot::TimeChart progression_chart(const analysis::Progression& p) {
  plot::TimeChart chart;
  const std::string user =
      p.user_name && !p.user_name->empty() ? *p.user_name : "user " + p.user_id;
  chart.title =
      "Progression of " + user + " on " + leaderboard_text(p.problem_name, p.leaderboard_id);
  chart.subtitle = std::string(dataset::note_for(p.leaderboard_id));
  chart.y_label = "score";
  chart.log_y = true;

  std::set<std::optional<std::string>> runners;
  for (const analysis::ProgressionStep& s : p.steps) {
    if (s.qualifies && *s.score > 0) runners.insert(s.runner);
  }
  const bool several = runners.size() > 1;
  for (const std::optional<std::string>& runner : runners) {
    plot::Series scores{series_name("scores", runner, several), plot::SeriesStyle::MARKERS, {}, {}};
    plot::Series best{
        series_name("running best", runner, several), plot::SeriesStyle::STEP, {}, {}};
    plot::Series improved{
        series_name("new best", runner, several), plot::SeriesStyle::HIGHLIGHT, {}, {}};
    for (const analysis::ProgressionStep& s : p.steps) {
      if (!s.qualifies || s.runner != runner || *s.score <= 0) continue;
      scores.points.push_back({s.submission_time, *s.score});
      best.points.push_back({s.submission_time, *s.best});
      if (s.improved) {
        improved.points.push_back({s.submission_time, *s.score});
        // Small steps stay unlabelled so that clusters of them do not overprint each other.
        improved.labels.push_back(!s.factor_previous ? "first"
                                  : *s.factor_previous >= kLabelledFactor
                                      ? factor_label(*s.factor_previous)
                                      : "");
      }
    }
    chart.series.push_back(std::move(scores));
    chart.series.push_back(std::move(best));
    chart.series.push_back(std::move(improved));
  }
  if (chart.series.empty()) {
    throw Error("nothing to plot: " + user +
                " has no qualifying (scored, passed, not hacked) "
                "submission on " +
                leaderboard_text(p.problem_name, p.leaderboard_id));
  }
  add_epoch_markers(chart, {p.leaderboard_id});
  return chart;
}

plot::TimeChart records_chart(const std::vector<analysis::RecordSeries>& all) {
  plot::TimeChart chart;
  std::set<int64_t> leaderboards;
  std::string names;
  for (const analysis::RecordSeries& s : all) {
    if (!leaderboards.insert(s.leaderboard_id).second) continue;
    names += (names.empty() ? "" : ", ") + leaderboard_text(s.problem_name, s.leaderboard_id);
    std::string_view note = dataset::note_for(s.leaderboard_id);
    if (!note.empty()) chart.subtitle += (chart.subtitle.empty() ? "" : " ") + std::string(note);
  }
  chart.title = "Record over time: " + names;
  chart.y_label = "record score";
  chart.log_y = true;
  const bool several = all.size() > 1;
  for (const analysis::RecordSeries& s : all) {
    std::optional<std::string> runner = s.runner;
    std::string suffix;
    if (several) {
      suffix =
          leaderboards.size() > 1 ? leaderboard_text(s.problem_name, s.leaderboard_id) + " " : "";
      suffix += runner.value_or("no runner");
    }
    plot::Series curve{several ? "record, " + suffix : "record", plot::SeriesStyle::STEP, {}, {}};
    plot::Series marks{
        several ? "new record, " + suffix : "new record", plot::SeriesStyle::HIGHLIGHT, {}, {}};
    for (const analysis::Record& r : s.records) {
      if (r.score <= 0) continue;
      curve.points.push_back({r.submission_time, r.score});
      marks.points.push_back({r.submission_time, r.score});
      marks.labels.push_back(r.user_name && !r.user_name->empty() ? *r.user_name : r.user_id);
    }
    if (curve.points.empty()) continue;
    chart.series.push_back(std::move(curve));
    chart.series.push_back(std::move(marks));
  }
  add_epoch_markers(chart, std::vector<int64_t>(leaderboards.begin(), leaderboards.end()));
  if (chart.series.empty()) throw Error("nothing to plot: no positive record scores");
  return chart;
}

void add_epoch_markers(plot::TimeChart& chart, const std::vector<int64_t>& leaderboard_ids) {
  std::set<int64_t> times;
  for (int64_t id : leaderboard_ids) {
    for (const dataset::EpochChange& c : dataset::epoch_changes(id)) {
      if (times.insert(c.time_us).second) {
        chart.markers.push_back({c.time_us, std::string(dataset::to_string(c.kind))});
      }
    }
  }
}

// The trend as small multiples: a panel per tag, the shares of submissions, users and the top.
plot::SmallMultiples techniques_trend_chart(const std::vector<analysis::TrendRow>& rows,
                                            size_t top) {
  plot::SmallMultiples chart;
  const analysis::TrendRow& first = rows.front();
  chart.title = "Techniques on " + first.problem_name + " (" +
                std::to_string(first.leaderboard_id) + ")" +
                (first.runner ? ", top " + std::to_string(top) + " on " + *first.runner : "");
  chart.subtitle =
      "share of each week's submissions, of its users, and of the best kernels of "
      "the top " +
      std::to_string(top) + " users at the week's end";
  std::map<std::string, size_t> panel_of;
  for (const analysis::TrendRow& r : rows) {
    if (r.leaderboard_id != first.leaderboard_id) continue;
    chart.periods = std::max<size_t>(chart.periods, static_cast<size_t>(r.week));
    const std::string name = std::string(r.tag.name()) + (r.tag.feature ? "" : " (language)");
    auto [it, added] = panel_of.try_emplace(name, chart.panels.size());
    if (added) {
      plot::SharePanel panel;
      panel.name = name;
      for (const std::string& series :
           {std::string("submissions"), std::string("users"), "top " + std::to_string(top)}) {
        panel.series.push_back({series, {}});
      }
      chart.panels.push_back(std::move(panel));
    }
    plot::SharePanel& panel = chart.panels[it->second];
    const auto value = [](uint64_t n, uint64_t of) -> std::optional<double> {
      if (of == 0) return std::nullopt;
      return static_cast<double>(n) / static_cast<double>(of);
    };
    panel.series[0].values.push_back(value(r.submissions, r.week_submissions));
    panel.series[1].values.push_back(value(r.users, r.week_users));
    panel.series[2].values.push_back(value(r.top, r.top_size));
  }
  return chart;
}

}  // namespace kbdata::query
