// `kbdata tasks` as a query (docs/evaluation.md): the evaluation tasks a data folder offers, one
// per (leaderboard, runner) where some user has a qualifying score (analysis/ranking.h): the
// problem, its runner and GPU, how scores combine, the human distribution of the users' best
// qualifying scores, the record's holder, the harness epochs with the noise measured in each
// (analysis/noise.h), the reliability note, and, with a training set, whether the humans' code
// overlaps it (pairs/decontaminate.h, checked by the caller).
//
// The caller loads every row of the selection (any outcome: first and last submission count them
// all), hands each to add() with what the decontamination check said of its code, measures the
// noise per epoch, then calls finish().
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/noise.h"
#include "analysis/ranking.h"
#include "analysis/series_key.h"
#include "dataset/leaderboards_file.h"
#include "dataset/submission.h"
#include "result/table.h"

namespace kbdata::query {

struct TasksRequest {
  // Keep the tasks whose first submission (any row of the leaderboard and runner) is after this
  // time (µs, UTC); nullopt keeps all.
  std::optional<int64_t> after;
  // Problems to keep (exact names); empty keeps all.
  std::set<std::string> problems;
  // Whether add() is told of contamination (--decontaminate): then `contaminated` is a value.
  bool decontaminate = false;
  // The leaderboards files' rows: description, reference and deadline, by id, else by name.
  std::vector<dataset::LeaderboardEntry> leaderboards;
};

// What the rows are (Parquet's kbdata.rule).
extern const char* const kTasksRule;

// leaderboard_id, problem_name, runner, gpu, ranking_by, deadline, first_submission,
// last_submission, users, record, second, third, top10_cut, q1, median, q3, record_user_id,
// record_user_name, record_submission_id, record_time, epochs, epoch_starts, noise_sigma,
// noise_pairs, reliability_note, contaminated, contaminated_rows, description, reference.
[[nodiscard]] std::vector<result::Column> tasks_columns();

struct TasksCounts {
  int64_t tasks = 0;                       // rows written
  int64_t before_after = 0;                // left out by `after`
  int64_t contaminated = 0;                // rows written marked contaminated
  int64_t without_users = 0;               // (leaderboard, runner) with rows but no qualifying user
  std::vector<std::string> problems_seen;  // every problem of the rows added, sorted
};

class TasksQuery {
 public:
  explicit TasksQuery(TasksRequest request) : request_(std::move(request)) {}

  // One row of the load. `contaminated`: with decontamination, whether the row's code overlaps the
  // training set (nullopt for a row whose code was not checked: one that does not qualify, or has
  // no code).
  void add(const dataset::Submission& s, std::optional<bool> contaminated);

  // The tasks, by leaderboard id then runner; may be called again (counts() are the last call's).
  // `noise`: per harness epoch, the series measured in it (an epoch or series without an estimate
  // has a null sigma).
  [[nodiscard]] result::ResultTable finish(
      const std::map<int, std::vector<analysis::SeriesNoise>>& noise);

  [[nodiscard]] const TasksCounts& counts() const { return counts_; }

 private:
  struct Series {
    std::string problem_name;
    int64_t first = 0, last = 0;
    bool any = false;
    std::set<int> epochs;
    int64_t contaminated_rows = 0;
  };
  TasksRequest request_;
  analysis::RankingBuilder ranking_;
  std::map<analysis::SeriesKey, Series> series_;
  std::set<std::string> problems_seen_;
  TasksCounts counts_;
};

}  // namespace kbdata::query
