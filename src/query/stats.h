// `kbdata stats` as a query (analysis/stats.h): per config and leaderboard, counts over the
// model's rows, the qualifying scores' min, p10 and median, code bytes, legacy scores reproduced,
// and with the audit's flags the rows it finds suspicious or cheat. The caller reads the folder
// file by file (each row under its file's config) and hands every row to add().
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/stats.h"
#include "audit/rules.h"
#include "dataset/submission.h"
#include "result/table.h"

namespace kbdata::query {

struct StatsRequest {
  bool flagged = false;  // the suspicious and cheat columns
};

// What the rows are (Parquet's kbdata.rule).
extern const char* const kStatsRule;

// config, leaderboard_id, problem_name, runners, rows, submissions, users, passing, scored,
// qualifying, invalid_scores, score_min, score_p10, score_median, first_submission,
// last_submission, code_bytes, legacy_scores, scores_reproduced, and when flagged suspicious and
// cheat.
[[nodiscard]] std::vector<result::Column> stats_columns(bool flagged);

class StatsQuery {
 public:
  explicit StatsQuery(StatsRequest request) : request_(request) {}

  // One row of the config (or file) `source`; `legacy_runs`: from a legacy per-run file (its
  // score is checked against its benchmarks); `flag`: the audit's verdict when it flags the row
  // (SUSPICIOUS or CHEAT).
  void add(const std::string& source, const dataset::Submission& s, bool legacy_runs,
           std::optional<audit::Verdict> flag = std::nullopt);

  // One row per (config, leaderboard), configs in the order first added, then by leaderboard id;
  // one section per config, titled with its name. No rows when nothing was added.
  [[nodiscard]] result::ResultTable finish() const;

 private:
  StatsRequest request_;
  analysis::StatsBuilder builder_;
  // Per (config, leaderboard): rows flagged suspicious, and cheat.
  std::map<std::pair<std::string, int64_t>, std::pair<uint64_t, uint64_t>> flagged_;
};

}  // namespace kbdata::query
