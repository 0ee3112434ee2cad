// A flat-family config file (docs/dataset.md §4.1) from a population: one row per submission and
// runner, deduplicated by the family's rule, sorted as the public exporter sorts.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "common/progress.h"
#include "synth/layout.h"
#include "synth/population.h"

namespace kbdata::synth {

// One row of the file before its code is generated.
struct FlatRow {
  uint32_t submission = 0;  // index into Population::submissions
  int8_t runner = -1;       // index into the leaderboard's runners, -1 for null
  double score = 0;         // NaN: null
  bool has_passed = false;
  bool passed = false;
  bool leaderboard_mode = false;
  const char* status = "";
};

// The rows of the file in file order: candidates per (submission, runner), deduplicated per
// (leaderboard, user, code_id, runner) keeping the lowest score (nulls last) then the earliest
// time, sorted by (problem_name, score nulls last, submission_id).
[[nodiscard]] std::vector<FlatRow> flat_rows(std::span<const LeaderboardModel> models,
                                             const Population& population);

// Writes the file at `path`; returns (rows, bytes). `progress` (may be empty) gets the rows
// written of the total (no stage).
std::pair<int64_t, uint64_t> write_flat(const std::string& path,
                                        std::span<const LeaderboardModel> models,
                                        const Population& population, const OutputOptions& options,
                                        const ProgressFn& progress);

}  // namespace kbdata::synth
