// Per-leaderboard statistics of the files of a data folder (kbdata stats, docs/analyses.md):
// counts of rows, submissions, users, passing and scored rows; the score distribution of the rows
// a ranking sees; the time span; the bytes of code.
//
// Rows are the model's rows (dataset/submission.h): one per file row in a flat file (a submission
// scored on two runners is two rows), one per submission in a legacy per-run file.
//
//   rows          model rows
//   submissions   distinct submission_id
//   users         distinct user_id
//   passing       rows with passed = true
//   scored        rows with a score
//   qualifying    rows that qualify for a ranking (ranking.h qualifies(): scored with a valid
//                 score, passed, not hacked)
//   invalid_scores  rows whose score measures nothing (not dataset::valid_score: NaN, infinite,
//                 negative, 0 or subnormal); they never qualify
//   score_min, score_p10, score_median
//                 over the qualifying rows' scores (every runner together), by quantile_cont
//   legacy_scores     legacy rows with a score (nullopt for sources with no legacy row)
//   scores_reproduced of those, the ones whose score the recomputation from the scoring run's
//                 benchmark means (dataset/run_result.h, by the registry's ranking_by of the
//                 leaderboard) reproduces; needs the load's with_results
//   first_time, last_time   min and max submission_time of all rows
//   code_bytes    sum of the decoded code's length in bytes over the rows (a legacy submission's
//                 code counts once, as the model holds it once)
//   runners       the distinct non-null runners, sorted
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "dataset/submission.h"

namespace kbdata::analysis {

struct LeaderboardStats {
  std::string source;  // the config name, or the file name of a file outside the registry
  int64_t leaderboard_id = 0;
  std::string problem_name;
  uint64_t rows = 0;
  uint64_t submissions = 0;
  uint64_t users = 0;
  uint64_t passing = 0;
  uint64_t scored = 0;
  uint64_t qualifying = 0;
  uint64_t invalid_scores = 0;
  std::optional<uint64_t> legacy_scores;
  std::optional<uint64_t> scores_reproduced;
  std::optional<double> score_min;  // seconds; nullopt without qualifying rows
  std::optional<double> score_p10;
  std::optional<double> score_median;
  std::optional<int64_t> first_time;  // µs since the epoch, UTC; nullopt without rows
  std::optional<int64_t> last_time;
  uint64_t code_bytes = 0;
  std::vector<std::string> runners;
};

// The q-quantile (0 <= q <= 1) of `sorted` (ascending, not empty) by linear interpolation between
// the closest ranks, as DuckDB's quantile_cont and numpy's default: with h = (n - 1) q and
// d = h - floor h, x[floor h] (1 - d) + x[ceil h] d (x[h] when h is whole), evaluated in that form,
// as DuckDB evaluates it for DOUBLE, so results are bit-identical. The median is q = 0.5.
[[nodiscard]] double quantile_cont(const std::vector<double>& sorted, double q);

// Accumulates statistics while submissions stream past. Memory: per leaderboard every submission id
// and qualifying score (8 bytes each; ids are made distinct at the end) and the distinct user ids,
// never code.
class StatsBuilder {
 public:
  // Counts `s` under (source, s.leaderboard_id); code_bytes adds s.code's size when it has code.
  // `legacy`: s comes from a legacy per-run file (its score is checked against its benchmarks).
  void add(const std::string& source, const dataset::Submission& s, bool legacy = false);
  // One entry per (source, leaderboard): sources in the order first added, then by leaderboard id.
  [[nodiscard]] std::vector<LeaderboardStats> finish() const;

 private:
  struct Accumulator {
    LeaderboardStats stats;
    std::vector<int64_t> submission_ids;  // as met, repeats included
    std::unordered_set<std::string> user_ids;
    const std::string* last_user = nullptr;  // in user_ids: the previous row's user
    std::vector<double> scores;              // qualifying rows
    std::set<std::string> runners;
    const std::string* last_runner = nullptr;  // in runners: the previous row's runner
  };
  std::vector<std::string> sources_;
  std::map<std::pair<size_t, int64_t>, Accumulator> by_key_;
};

}  // namespace kbdata::analysis
