// One user's progression on a problem (docs/dataset.md §5 author_progression, plus what it lacks):
// their submissions in time order with the running best and the improvements.
//
// Rows are ordered by submission time, then submission id, then runner (runner-less last). The
// running best is kept per runner: a row's `best` is the lowest qualifying score (ranking.h
// qualifies(): scored, passed, not hacked) of this user on this leaderboard and runner up to and
// including the row. Rows without a runner form their own series: in flat files they are never
// scored (so they have no best); legacy per-run files record no runner at all. A qualifying row
// `improved` when it is the runner's first qualifying row or its score is strictly below the
// previous best; then `factor_previous` = previous best / score (absent for the first) and
// `factor_first` = first qualifying score / score.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dataset/submission.h"

namespace kbdata::analysis {

struct ProgressionStep {
  int64_t submission_id = 0;
  int64_t submission_time = 0;  // µs since the epoch, UTC
  std::optional<std::string> runner;
  std::string status;
  std::optional<double> score;  // seconds
  std::optional<bool> passed;
  bool qualifies = false;
  std::optional<double> best;  // running best on this runner after this row
  bool improved = false;
  std::optional<double> factor_previous;
  std::optional<double> factor_first;
};

struct Progression {
  int64_t leaderboard_id = 0;
  std::string problem_name;
  std::string user_id;
  std::optional<std::string> user_name;
  std::vector<ProgressionStep> steps;  // in time order
};

// The progressions of the given rows (one user's; any order, any leaderboards): one per
// leaderboard, by leaderboard id. The rows are borrowed (sorted as pointers, never moved).
[[nodiscard]] std::vector<Progression> progression(std::vector<const dataset::Submission*> rows);
[[nodiscard]] std::vector<Progression> progression(const std::vector<dataset::Submission>& rows);

}  // namespace kbdata::analysis
