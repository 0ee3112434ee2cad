#include "cli/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "cli/embedded.h"

namespace kbdata::cli {
namespace {

constexpr auto kInterval = std::chrono::milliseconds(100);

bool wanted(std::FILE* err, const EmbeddedRun* run) {
  // Embedded (the Python module): the caller decides (a terminal or a notebook) and draws it.
  if (run != nullptr) return static_cast<bool>(run->progress);
  if (err == nullptr) return false;
  const char* env = std::getenv("KBDATA_PROGRESS");
  if (env != nullptr && std::strcmp(env, "always") == 0) return true;
  if (env != nullptr && std::strcmp(env, "never") == 0) return false;
  return isatty(fileno(err)) == 1;
}

}  // namespace

Progress::Progress(std::FILE* err, std::string what)
    : err_(err),
      what_(std::move(what)),
      run_(embedded_run()),
      active_(wanted(err, run_)),
      start_(std::chrono::steady_clock::now()),
      last_(start_ - kInterval) {}

Progress::~Progress() { finish(); }

void Progress::update(uint64_t done, const char* unit, uint64_t total) {
  update(ProgressStep{.stage = stage_, .done = done, .total = total, .unit = unit});
}

void Progress::update(const ProgressStep& step) {
  check_interrupted();  // an embedded run (cli/embedded.h) may be asked to stop
  if (!active_) return;
  const auto now = std::chrono::steady_clock::now();
  const bool new_stage = step.stage != stage_;
  if (!new_stage && now - last_ < kInterval) return;
  if (new_stage) stage_ = std::string(step.stage);
  last_ = now;
  const double seconds = std::chrono::duration<double>(now - start_).count();
  std::string line = "\rkbdata: " + what_ + ": ";
  if (!stage_.empty()) line += stage_ + ": ";
  line += grouped(step.done);
  if (step.total > 0) line += " of " + grouped(step.total);
  line += fmt::format(" {} ({:.1f} s)\x1b[K", step.unit, seconds);
  draw(line);
  shown_ = true;
}

void Progress::finish() {
  if (!shown_) return;
  draw("\r\x1b[K");
  shown_ = false;
}

void Progress::draw(const std::string& line) {
  if (run_ != nullptr && run_->progress) {
    run_->progress(line);
    return;
  }
  // Progress is best effort: a failing stderr must not fail the work.
  std::fputs(line.c_str(), err_);
  std::fflush(err_);
}

}  // namespace kbdata::cli
