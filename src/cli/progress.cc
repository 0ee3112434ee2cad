#include "cli/progress.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "cli/embedded.h"

namespace kbdata::cli {
namespace {

constexpr auto kInterval = std::chrono::milliseconds(100);

bool wanted(std::FILE* err) {
  // Embedded (the Python module): the caller decides (a terminal or a notebook) and draws it.
  if (const EmbeddedRun* run = embedded_run(); run != nullptr)
    return static_cast<bool>(run->progress);
  const char* env = std::getenv("KBDATA_PROGRESS");
  if (env != nullptr && std::strcmp(env, "always") == 0) return true;
  if (env != nullptr && std::strcmp(env, "never") == 0) return false;
  return isatty(fileno(err)) == 1;
}

}  // namespace

Progress::Progress(std::FILE* err, std::string what)
    : err_(err),
      what_(std::move(what)),
      active_(wanted(err)),
      start_(std::chrono::steady_clock::now()),
      last_(start_ - kInterval) {}

Progress::~Progress() { finish(); }

void Progress::update(uint64_t done, const char* unit, uint64_t total) {
  check_interrupted();  // an embedded run (cli/embedded.h) may be asked to stop
  if (!active_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_ < kInterval) return;
  last_ = now;
  const double seconds = std::chrono::duration<double>(now - start_).count();
  std::string line = "\rkbdata: " + what_ + ": " + grouped(done);
  if (total > 0) line += " of " + grouped(total);
  char tail[64];
  std::snprintf(tail, sizeof tail, " %s (%.1f s)\x1b[K", unit, seconds);
  line += tail;
  draw(line);
  shown_ = true;
}

void Progress::finish() {
  if (!shown_) return;
  draw("\r\x1b[K");
  shown_ = false;
}

void Progress::draw(const std::string& line) {
  if (const EmbeddedRun* run = embedded_run(); run != nullptr && run->progress) {
    run->progress(line);
    return;
  }
  // Progress is best effort: a failing stderr must not fail the work.
  std::fputs(line.c_str(), err_);
  std::fflush(err_);
}

}  // namespace kbdata::cli
