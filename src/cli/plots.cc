#include "cli/plots.h"

#include <map>
#include <set>

#include "common/error.h"
#include "dataset/epochs.h"
#include "dataset/registry.h"
#include "report/text.h"

namespace kbdata::cli {
namespace {

// New bests at least this much better than the previous one carry their factor as a label.
constexpr double kLabelledFactor = 1.05;

std::string leaderboard_text(const std::string& problem, int64_t id) {
  return (problem.empty() ? "leaderboard" : problem) + " (" + std::to_string(id) + ")";
}

std::string factor_label(double factor) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "×%.2f", factor);
  return buf;
}

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

PlotTarget::PlotTarget(const std::optional<std::string>& path) {
  if (!path) return;
  if (path->size() < 5 || path->compare(path->size() - 4, 4, ".svg") != 0) {
    throw UsageError("--plot writes SVG: give a file name ending in .svg, not '" + *path + "'");
  }
  path_ = *path;
  file_ = std::make_unique<AtomicOutputFile>(path_);
}

void PlotTarget::write(const plot::TimeChart& chart, std::FILE* err) {
  write_svg(plot::render_svg(chart), err);
}

void PlotTarget::write(const plot::SmallMultiples& chart, std::FILE* err) {
  write_svg(plot::render_small_multiples(chart), err);
}

void PlotTarget::write_svg(const std::string& svg, std::FILE* err) {
  file_->write(svg);
  file_->commit();
  report::write_all(err, "kbdata: wrote " + path_ + "\n");
}

}  // namespace kbdata::cli
