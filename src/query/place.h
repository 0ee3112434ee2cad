// `kbdata place` as a query (docs/evaluation.md): where a model's kernel, given its score, would
// have ranked among the people who competed on the same problem and runner, by the platform's
// ranking rules (analysis/ranking.h), within one harness epoch (dataset/epochs.h), with the rank
// interval the leaderboard's measured noise allows (analysis/noise.h); and, over many scores, an
// aggregate per label.
//
// The caller loads the qualifying rows (scored, passed, not hacked; with code_id for the
// measurements) and hands every row to add(), calls resolve() (which fixes each task's --at and
// epoch), measures the noise of the tasks resolve() names per epoch, then calls finish().
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/noise.h"
#include "dataset/data_dir.h"
#include "dataset/loader.h"
#include "dataset/submission.h"
#include "query/load.h"
#include "result/table.h"

namespace kbdata::query {

// One score to place: a model kernel's score on a problem and runner.
struct Placement {
  std::string problem;
  std::string runner;
  double score = 0;  // seconds; REQUIRES: dataset::valid_score
  std::optional<std::string> label;
  // The harness epoch the score was measured in, when the caller knows it (a results file's
  // `epoch`); nullopt: the epoch compared.
  std::optional<int> epoch;
};

struct PlaceRequest {
  // Users' bests as of this time (µs, UTC): rows submitted at or before it. nullopt: the
  // leaderboard's deadline (deadlines), else its last qualifying submission on the runner.
  std::optional<int64_t> at;
  // The harness epoch compared; nullopt: the epoch in force at `at`.
  std::optional<int> epoch;
  // Deadlines by leaderboard id (µs, UTC), from the leaderboards files.
  std::map<int64_t, int64_t> deadlines;
};

// What the rows are (Parquet's kbdata.rule).
extern const char* const kPlaceRule;
extern const char* const kPlaceAggregateRule;

// label, problem_name, leaderboard_id, runner, score, epoch, at, users, rank, percentile, record,
// factor_record, human_10th, human_median, factor_median, sigma, rank_best, rank_worst,
// p_faster_1, p_faster_2, p_faster_3, refused.
[[nodiscard]] std::vector<result::Column> place_columns();
// label, tasks, beats_median, median_tasks, beats_top10, top10_tasks, beats_record, record_tasks,
// geomean_factor_median, refused.
[[nodiscard]] std::vector<result::Column> place_aggregate_columns();

// A task the noise must be measured for: a leaderboard and runner, in one epoch.
struct NoiseWanted {
  int64_t leaderboard_id = 0;
  std::string problem_name;
  std::optional<std::string> runner;
  int epoch = 0;
};

class PlaceQuery {
 public:
  PlaceQuery(PlaceRequest request, std::vector<Placement> placements);

  // Whether a row of `problem_name` could be compared with some placement (the caller may skip
  // loading the others' details).
  [[nodiscard]] bool wants(const dataset::Submission& s) const;
  // One row of the load; rows that do not qualify or that no placement names are kept only as
  // the names of the problems the data holds.
  void add(const dataset::Submission& s);
  // Fixes each task's time and epoch; returns the tasks whose noise finish() uses, by leaderboard.
  [[nodiscard]] std::vector<NoiseWanted> resolve();
  // One row per placement and leaderboard it names (one with a null leaderboard and the reason in
  // `refused` when nothing ranks there), in the placements' order. `noise`: per epoch, the series
  // measured (measure per epoch); a task without one gets null sigma and p_faster, and its rank
  // interval is the rank alone.
  [[nodiscard]] result::ResultTable finish(
      const std::map<int, std::vector<analysis::SeriesNoise>>& noise);
  // Per label (a null label is its own), from the rows finish() made: the share of the placed
  // scores faster than the median human, than the 10th (only tasks with 10 users or more), than
  // the record, and the geometric mean of factor_median. REQUIRES: finish() was called.
  [[nodiscard]] result::ResultTable aggregate() const;
  // The one problem every placement names, if they name one (a load may be pushed down to it).
  [[nodiscard]] std::optional<std::string> single_problem() const;
  // The problems the placements name that no loaded row has (for "did you mean").
  [[nodiscard]] std::vector<std::string> problems_without_rows() const;
  // Problems the data holds whose rows the load may not read (another runner's, when the load
  // reads one runner): a placement's "did you mean" chooses from them too, and a problem among
  // them gets none.
  void know_problems(const std::vector<std::string>& problems);

 private:
  struct HumanRow {
    std::string user_id;
    std::optional<std::string> user_name;
    double score = 0;
    int64_t submission_id = 0;
    int64_t submission_time = 0;
    std::optional<int64_t> code_id;
  };
  struct Task {
    int64_t leaderboard_id = 0;
    std::string problem_name;
    std::optional<std::string> runner;
    std::vector<HumanRow> rows;
    int64_t at = 0;  // resolve()
    int epoch = 0;
    bool at_given = false;
  };
  struct Outcome {  // one output row, for aggregate()
    std::optional<std::string> label;
    std::optional<int64_t> leaderboard_id;  // where it was compared (its note)
    std::string problem_name;
    bool placed = false;
    std::optional<double> factor_median;
    bool beats_median = false, beats_record = false;
    std::optional<bool> beats_top10;
  };

  // finish()'s steps. Why `p` cannot be compared in the task's epoch ("" when it can); the
  // humans' ranking of the epoch at the task's time; the rank interval and the probabilities of
  // beating the first humans, from the epoch's noise; `p`'s row in one task (false: refused); the
  // row of a placement that no task matched.
  static std::string epoch_refusal(const Placement& p, const Task& task);
  static std::vector<analysis::Ranking> humans_ranking(const Task& task);
  static void noise_cells(const Placement& p, const Task& task, analysis::Ranking ranking,
                          const analysis::SeriesNoise* series, std::vector<result::Cell>& cells);
  bool place_in(const Placement& p, const Task& task,
                const std::map<int, std::vector<analysis::SeriesNoise>>& noise,
                result::ResultTable& table);
  void refuse_unmatched(const Placement& p, result::ResultTable& table);

  PlaceRequest request_;
  std::vector<Placement> placements_;
  std::map<std::tuple<int64_t, std::optional<std::string>>, Task> tasks_;
  std::vector<Outcome> outcomes_;
  // Every problem of the rows added and of know_problems(): a placement on another is told the
  // closest ("did you mean").
  std::set<std::string> problems_seen_;
};

// Everything `kbdata place` does once its placements are read: loads the qualifying rows of `load`
// (scored, passed, with details; its filter may name a runner and the rows --exclude-flagged
// leaves out) into `query`, resolve()s, measures the noise of every problem placed on per epoch
// (a load per problem of all its rows, whatever the outcome or runner, as `kbdata noise -p` reads
// them: the estimate does not depend on the runner asked) and returns finish(). When every
// placement names one problem that `dir`'s files hold, the first load reads only its rows; only if
// none of them ranks are the others read, for the problems a "did you mean" chooses from.
[[nodiscard]] result::ResultTable place_scores(PlaceQuery& query, const dataset::DataDir& dir,
                                               dataset::LoadOptions load, const Loader& loader);

// The text of a score in seconds: a number ("1.5e-05", "0.000015") with an optional unit, s, ms,
// us, µs or ns ("15us", "15 µs"). nullopt when it does not parse or is not a positive normal
// number of seconds (dataset::valid_score).
[[nodiscard]] std::optional<double> parse_score_text(const std::string& text);

// Why `text` is not a score, for an error message: "score '...': not a time (...)".
[[nodiscard]] std::string score_text_error(const std::string& text);

}  // namespace kbdata::query
