// Progress of long work on stderr: one line rewritten in place ("\r"), at most ten times a second,
// erased when the work ends. Shown only when stderr is a terminal (or KBDATA_PROGRESS=always, for
// tests), so pipes and logs never see it; in an embedded run, only when the caller asks for it
// (EmbeddedRun::progress, which draws the lines). The one drawer of the command line: libraries
// report through common/progress.h's callback (callback() below) and never draw.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#include "common/progress.h"
#include "common/text.h"  // grouped(): the counts a progress line shows

namespace kbdata::cli {

struct EmbeddedRun;

class Progress {
 public:
  // `what` names the work ("reading nvfp4_gemm"); a null `err` shows nothing (outside an embedded
  // run).
  Progress(std::FILE* err, std::string what);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // `done` items of `unit` ("rows") so far; `total` when known (0: unknown).
  void update(uint64_t done, const char* unit, uint64_t total = 0);
  // A library's step (common/progress.h): drawn as update() draws it, with the step's stage after
  // `what` ("dedup: hashing code"); a new stage is drawn at once.
  void update(const ProgressStep& step);
  // The callback that hands a library's steps to update(const ProgressStep&): valid while this
  // Progress lives. Called by one thread at a time: the command's, or a library's worker (the
  // library serialises its calls); the line goes where this Progress's thread would draw it.
  [[nodiscard]] ProgressFn callback() {
    return [this](const ProgressStep& step) { update(step); };
  }
  // Erases the line (also done by the destructor).
  void finish();

  [[nodiscard]] bool active() const { return active_; }

 private:
  // The line on stderr, or handed to the embedded run that shows progress (cli/embedded.h).
  void draw(const std::string& line);

  std::FILE* err_;
  std::string what_;
  const EmbeddedRun* run_;  // the embedded run this Progress was made in, if any
  std::string stage_;       // the last step's stage
  bool active_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_;
};

}  // namespace kbdata::cli
