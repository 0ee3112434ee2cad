// `kbdata progression` as a query (docs/analyses.md): one user's submissions in time order, per
// leaderboard, with the running best per runner of the qualifying scores (scored, passed, not
// hacked), the improvements and their factors. The data is opened and loaded by the caller, which
// hands rows to add(); the query keeps the user's.
#pragma once

#include <deque>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "analysis/progression.h"
#include "dataset/loader.h"
#include "dataset/submission.h"
#include "query/load.h"
#include "result/table.h"

namespace kbdata::query {

struct ProgressionRequest {
  std::string user;  // a user id or a user name: an id match wins over users named like it
};

// What the rows are (Parquet's kbdata.rule).
extern const char* const kProgressionRule;

// The answer's columns: leaderboard_id, problem_name, user_id, user_name, submission_id,
// submission_time, runner, status, passed, score, qualifies, best, improved, factor_previous,
// factor_first.
[[nodiscard]] std::vector<result::Column> progression_columns();

class ProgressionQuery {
 public:
  explicit ProgressionQuery(ProgressionRequest request) : request_(std::move(request)) {}

  // Loads the user's rows of the selection `filter` (problem or leaderboard, runner, epoch; no
  // code): the user's id first, as a predicate the scan tests before decoding other columns; only
  // when no row has it, the selection's rows again for a user of that name. Returns the options
  // of the last pass (an empty answer says why from its filter).
  dataset::LoadOptions load(dataset::Filter filter, int threads, const Loader& loader);

  // One row of the selection: kept when its user id or user name is the request's.
  void add(dataset::Submission&& s);
  // Whether no row kept so far is the user's.
  [[nodiscard]] bool empty() const { return rows_.empty(); }

  // One section per leaderboard, titled "NAME (id ID) on PROBLEM (ID): N submission rows, M
  // qualifying[, best SCORE (×F over the first)]" (the best with one runner only), each
  // leaderboard shown. Rows of the id win
  // over users named like it. Throws UsageError when the name belongs to several users (no id
  // matched). progressions() holds the same answer for charts.
  [[nodiscard]] result::ResultTable finish();

  // The progressions of the last finish(), one per leaderboard, by leaderboard id.
  [[nodiscard]] const std::vector<analysis::Progression>& progressions() const {
    return progressions_;
  }

 private:
  ProgressionRequest request_;
  // A deque: rows never move as it grows (a vector's growth would copy every row it holds).
  std::deque<dataset::Submission> rows_;
  std::set<std::string> by_id_, by_name_;  // user ids matched each way
  std::vector<analysis::Progression> progressions_;
};

}  // namespace kbdata::query
