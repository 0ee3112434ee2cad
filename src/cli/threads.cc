#include "cli/threads.h"

#include <charconv>
#include <cstdlib>
#include <string>
#include <string_view>
#include <thread>

#include "common/error.h"

namespace kbdata::cli {
namespace {

// The run's default, set by a command line before its command runs, on the thread that runs it
// (the Python module may run several commands at once, each on a thread of its own).
int& default_threads() {
  thread_local int threads = 1;
  return threads;
}

}  // namespace

void resolve_default_threads() {
  if (const char* env = std::getenv("KBDATA_THREADS"); env != nullptr && *env != '\0') {
    const std::string_view text(env);
    int value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || value < 1 || value > kMaxThreads) {
      throw UsageError("KBDATA_THREADS='" + std::string(text) +
                       "' is not a number of threads from 1 to " + std::to_string(kMaxThreads));
    }
    default_threads() = value;
    return;
  }
  const unsigned cores = std::thread::hardware_concurrency();
  default_threads() = cores == 0 ? 1 : static_cast<int>(cores);
}

int command_threads(std::optional<int> flag) {
  if (flag) return *flag < 1 ? 1 : *flag;
  return default_threads();
}

}  // namespace kbdata::cli
