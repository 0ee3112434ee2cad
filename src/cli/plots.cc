#include "cli/plots.h"

#include "common/error.h"
#include "report/text.h"

namespace kbdata::cli {

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
