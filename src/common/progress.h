// How a library reports the progress of long work: a callback it is given (may be empty), told
// what it has done of how much. A library never draws progress, never asks whether stderr is a
// terminal and never writes a progress line: the command line draws it (cli/progress.h, on a
// terminal only) and the Python module draws the same lines its own way (docs/python.md).
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

namespace kbdata {

struct ProgressStep {
  std::string_view stage;  // the step of the work ("hashing code", a file's name); "" for one step
  uint64_t done = 0;       // units done so far in this stage
  uint64_t total = 0;      // units in all; 0: not known
  std::string_view unit;   // what done counts ("rows", "bytes", "files")
};

// Called on the thread that runs the work, or, for work on several threads, by one thread at a
// time (the library serialises its calls); the views are valid for the call only. Called now and
// then, not for every unit, and once more with the stage's last count.
using ProgressFn = std::function<void(const ProgressStep& step)>;

}  // namespace kbdata
