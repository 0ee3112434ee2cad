// The fastest submission (docs/dataset.md §5, the public get_fastest_submission): per (leaderboard,
// runner), the qualifying row (analysis/ranking.h qualifies(): scored, passed, not hacked) with
// the lowest score; ties by earliest submission time, then lowest submission id. Unlike the
// public tool, which takes the minimum over every row of a user, it never picks a failed, unscored
// or hacked row, and it never compares scores across runners.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/series_key.h"
#include "dataset/submission.h"

namespace kbdata::analysis {

struct Fastest {
  int64_t leaderboard_id = 0;
  std::optional<std::string> runner;  // nullopt: rows without a runner (legacy files)
  dataset::Submission submission;     // with its code when the rows added had code
};

// Keeps one row per (leaderboard, runner) while submissions stream past: memory holds one row
// (and its code) per (leaderboard, runner), whatever the number of rows.
class FastestBuilder {
 public:
  // Ignores rows that do not qualify.
  void add(const dataset::Submission& s);
  // One entry per (leaderboard, runner) with a qualifying row, by leaderboard id, then runner
  // (runner-less last), as rankings are ordered.
  [[nodiscard]] std::vector<Fastest> finish() const;

 private:
  std::map<SeriesKey, dataset::Submission> best_;
};

// The fastest rows of `submissions` (any order, any mix of leaderboards and runners).
[[nodiscard]] std::vector<Fastest> fastest(const std::vector<dataset::Submission>& submissions);

// True when `a` is a better row than `b` for the same (leaderboard, runner): lower score, then
// earliest time, then lowest id. REQUIRES: both have a score.
[[nodiscard]] bool faster(const dataset::Submission& a, const dataset::Submission& b);

}  // namespace kbdata::analysis
