// Leaderboard rankings by the platform's rules (docs/dataset.md §3), over the submission model.
//
// Per (leaderboard, runner) a submission row qualifies when it has a score, passed, and is not
// marked hacked (status "hacked"). A score that is not a positive normal number (NaN, infinite,
// negative, 0 or subnormal: dataset::valid_score) measures nothing: such a row never qualifies
// (stats counts them, as invalid_scores). Each user's best qualifying
// row is kept: lowest score, then earliest submission time, then lowest submission id (the platform
// leaves these ties arbitrary; kbdata makes them deterministic). Users are ranked by that score
// ascending with SQL RANK() semantics: equal scores share a rank and the next rank skips (1, 2, 2,
// 4). Rows of equal score are listed by submission time, then submission id, then user id.
//
// The published files hold what is left after the platform's qualification (secret runs are not
// in them), so the rule above is what the files allow. Legacy per-run files have no runner: their
// rows rank under one runner-less ranking per leaderboard.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/series_key.h"
#include "dataset/submission.h"

namespace kbdata::analysis {

struct RankedEntry {
  int64_t rank = 0;  // 1-based, RANK() semantics
  std::string user_id;
  std::optional<std::string> user_name;
  double score = 0;  // seconds
  int64_t submission_id = 0;
  int64_t submission_time = 0;  // µs since the epoch, UTC
};

struct Ranking {
  int64_t leaderboard_id = 0;
  std::string problem_name;
  std::optional<std::string> runner;  // nullopt: rows without a runner (legacy files)
  std::vector<RankedEntry> entries;   // by rank
};

// The rule of qualification (dataset/submission.h), as the analyses name it.
using dataset::qualifies;
using dataset::valid_score;

// Builds rankings from a stream of submissions, holding only each user's best qualifying row per
// (leaderboard, runner): memory grows with users, not with submissions.
class RankingBuilder {
 public:
  void add(const dataset::Submission& s);
  // The rankings, as rank() describes them.
  [[nodiscard]] std::vector<Ranking> finish(int64_t limit = 0) const;

 private:
  std::map<SeriesKey, std::unordered_map<std::string, dataset::Submission>> best_;
};

// Rankings of `submissions` (any order, any mix of leaderboards and runners), one per
// (leaderboard, runner) present among the qualifying rows, ordered by leaderboard id then runner
// (runner-less last). `limit` > 0 keeps the entries whose rank is at most `limit` (so ties at the
// cut stay); 0 keeps all.
[[nodiscard]] std::vector<Ranking> rank(const std::vector<dataset::Submission>& submissions,
                                        int64_t limit = 0);

}  // namespace kbdata::analysis
