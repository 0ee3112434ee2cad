// The --plot FILE that receives an answer's chart (query/charts.h).
#pragma once

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/file.h"
#include "plot/small_multiples.h"
#include "plot/svg_chart.h"

namespace kbdata::cli {

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
