// `kbdata top` as a query (docs/analyses.md): per (leaderboard, runner), each user's best
// qualifying score (scored, passed, not hacked), ranked with SQL RANK(); with uncertainty, each
// score's interval from the measured noise, the measurements behind it and the ranks it could
// hold. The data is opened and loaded by the caller, which hands every selected row to add().
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/noise.h"
#include "analysis/ranking.h"
#include "dataset/loader.h"
#include "dataset/submission.h"
#include "result/table.h"

namespace kbdata::query {

struct TopRequest {
  int64_t limit = 10;        // ranks 1..limit (users tied at rank limit all stay); 0: everyone
  bool uncertainty = false;  // intervals, measurements, possible ranks and tied marks
};

// What the rows are (Parquet's kbdata.rule).
extern const char* const kTopRule;

// The answer's columns: leaderboard_id, problem_name, rank, user_id, user_name, score, then with
// uncertainty score_lo, score_hi, sigma, measurements, rank_best, rank_worst, tied, then
// submission_id, submission_time, runner.
[[nodiscard]] std::vector<result::Column> top_columns(bool uncertainty);

class TopQuery {
 public:
  explicit TopQuery(TopRequest request) : request_(request) {}

  // What to read for the selection `filter` (problem or leaderboard, runner, epoch): the scored
  // and passed rows only (pushed down), with their code_id only for uncertainty.
  [[nodiscard]] dataset::LoadOptions load_options(dataset::Filter filter, int threads) const;

  // One row of the selection (the caller's filter: problem or leaderboard, runner, epoch; only
  // scored and passed rows matter, and with uncertainty their code_id).
  void add(const dataset::Submission& s);

  // The rankings: one section per (leaderboard, runner), titled "PROBLEM (ID) on RUNNER: N users
  // with rank <= LIMIT", each leaderboard shown; with uncertainty, `noise` is the measured noise of
  // the same selection whatever the outcome (empty without), and the summary lines say which
  // rankings have no noise estimate and which changes of level were measured. No rows when
  // nothing qualifies.
  [[nodiscard]] result::ResultTable finish(const std::vector<analysis::SeriesNoise>& noise);

 private:
  TopRequest request_;
  analysis::RankingBuilder builder_;
  // With uncertainty: per (leaderboard, runner, user, code) the qualifying rows, and each row's
  // code (a row without a code_id counts as the one measurement of its code).
  std::map<std::tuple<int64_t, std::optional<std::string>, std::string, int64_t>, int64_t>
      code_rows_;
  std::map<std::tuple<int64_t, std::optional<std::string>, int64_t>, int64_t> code_of_;
};

}  // namespace kbdata::query
