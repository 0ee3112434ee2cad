// The analyses' pictures: SVG charts (plot/svg_chart.h) of a progression and of a record curve,
// and the --plot FILE that receives one.
#pragma once

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/progression.h"
#include "analysis/records.h"
#include "common/file.h"
#include "plot/small_multiples.h"
#include "plot/svg_chart.h"

namespace kbdata::cli {

// Score over time on a log axis: per runner, the qualifying scores (dots), the running best (a
// step line) and the improvements (marked, labelled with the factor over the previous best). The
// leaderboard's reliability note is the subtitle.
[[nodiscard]] plot::TimeChart progression_chart(const analysis::Progression& progression);

// The record curve: per runner, the record as a step line and each new record marked and
// labelled with who set it. The notes of the leaderboards shown are the subtitle.
[[nodiscard]] plot::TimeChart records_chart(const std::vector<analysis::RecordSeries>& series);

// Adds a marker per harness change (dataset/epochs.h) of the leaderboards `leaderboard_ids`, once
// per time: "evaluation" or "input generators".
void add_epoch_markers(plot::TimeChart& chart, const std::vector<int64_t>& leaderboard_ids);

// --plot FILE: opened (as a temporary beside FILE) before any data is read, so a bad path fails
// first; written and renamed into place by write(); removed if the command fails.
class PlotTarget {
 public:
  // Throws UsageError unless `path` ends in ".svg"; IoError when its folder is not writable.
  explicit PlotTarget(const std::optional<std::string>& path);
  [[nodiscard]] bool wanted() const { return file_ != nullptr; }
  // Renders `chart` into the file and commits it; says so on `err`.
  void write(const plot::TimeChart& chart, std::FILE* err);
  void write(const plot::SmallMultiples& chart, std::FILE* err);

 private:
  void write_svg(const std::string& svg, std::FILE* err);

  std::string path_;
  std::unique_ptr<AtomicOutputFile> file_;
};

}  // namespace kbdata::cli
