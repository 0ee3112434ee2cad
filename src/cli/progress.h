// Progress of long work on stderr: one line rewritten in place ("\r"), at most ten times a second,
// erased when the work ends. Shown only when stderr is a terminal (or KBDATA_PROGRESS=always, for
// tests), so pipes and logs never see it; in an embedded run, only when the caller asks for it
// (EmbeddedRun::progress, which draws the lines).
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#include "common/text.h"  // grouped(): the counts a progress line shows

namespace kbdata::cli {

class Progress {
 public:
  // `what` names the work ("reading nvfp4_gemm").
  Progress(std::FILE* err, std::string what);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // `done` items of `unit` ("rows") so far; `total` when known (0: unknown).
  void update(uint64_t done, const char* unit, uint64_t total = 0);
  // Erases the line (also done by the destructor).
  void finish();

  [[nodiscard]] bool active() const { return active_; }

 private:
  // The line on stderr, or handed to the embedded run that shows progress (cli/embedded.h).
  void draw(const std::string& line);

  std::FILE* err_;
  std::string what_;
  bool active_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_;
};

}  // namespace kbdata::cli
