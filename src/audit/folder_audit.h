// The audit of a data folder's submissions (kbdata audit): two passes over the files, in the
// loader's order.
//
//   1. scores   the metadata columns only (no code) of every row of the leaderboards the load
//               selects (record_scope): each row's score, runner and time, for the record each
//               row faced (score_rules.h records_before); a few words per row
//   2. code     every row again with its code: the rules of audit_submission run on the scan's
//               worker threads (LoadOptions::prepare), which drop the code once read; the sink
//               gets each row, in file order, with its findings and the record jump
//
// Memory: the first pass's few words per row and one batch of code per worker; never the code of
// the whole file.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "audit/audit.h"
#include "audit/rules.h"
#include "common/progress.h"
#include "dataset/loader.h"

namespace kbdata::audit {

// The references of the problems from the folder's leaderboards files (empty without one).
[[nodiscard]] References folder_references(const dataset::DataDir& dir);

// One audited row: the submission (its code dropped), its findings (score rules first, then code
// rules in rule order) and its verdict.
using AuditSink =
    std::function<void(const dataset::Submission&, const std::vector<Finding>&, Verdict)>;

// The rows whose scores decide the records the rows `filter` selects faced: the same
// leaderboards (its problem, leaderboard id and runner) up to its --until. A row's verdict thus
// does not depend on a user, --since, epoch or outcome filter.
[[nodiscard]] dataset::Filter record_scope(const dataset::Filter& filter);

// audit_submission with `references` as a named step (dataset/resident.h), key "audit": the key
// stands for the folder's own references (folder_references), the ones audit_folder is given.
[[nodiscard]] dataset::PrepareStep audit_step(const References& references);

// Audits what load_dir(dir, load) gives (load's with_code and prepare are the audit's own). Stats
// of the code pass go to `stats`.
void audit_folder(const dataset::DataDir& dir, dataset::LoadOptions load,
                  const References& references, const AuditSink& sink, dataset::LoadStats& stats);

// A user's best qualifying row of a leaderboard and runner that the audit flags: the row a
// ranking would have shown for that user.
struct FlaggedBest {
  std::string problem_name;
  int64_t leaderboard_id = 0;
  std::string runner;
  std::string user;  // the name, else the id
  double score = 0;
  Verdict verdict = Verdict::CLEAN;
};

// The rows an audit gives at least a verdict (--exclude-flagged), among those `load` selects.
struct FlaggedRows {
  std::shared_ptr<const dataset::RowSet> rows;    // verdict at least the one asked for
  std::shared_ptr<const dataset::RowSet> cheats;  // verdict cheat
  uint64_t audited = 0;                           // rows audited
  uint64_t suspicious = 0;
  uint64_t cheat = 0;
  // The users whose best qualifying row (per leaderboard and runner: the row a ranking shows)
  // is among `rows`, by problem, runner and score.
  std::vector<FlaggedBest> best_left_out;
};

// Audits the rows load.filter selects (its `excluded` ignored) with load.threads, as
// audit_folder does with the folder's references; `progress` (may be empty) gets the rows
// audited so far.
[[nodiscard]] FlaggedRows flag_rows(const dataset::DataDir& dir, const dataset::LoadOptions& load,
                                    Verdict min_verdict, const ProgressFn& progress);

// "rule:tier" for each distinct rule of `findings`, comma-separated.
[[nodiscard]] std::string rules_text(const std::vector<Finding>& findings);
// "rule@line: text" for each finding (line 0 for score rules: "rule: text"), "; "-separated.
[[nodiscard]] std::string evidence_text(const std::vector<Finding>& findings);

// Per leaderboard: rows, verdicts, flagged rows by rule and by user.
struct LeaderboardAudit {
  int64_t leaderboard_id = 0;
  std::string problem_name;
  uint64_t rows = 0;
  uint64_t suspicious = 0;
  uint64_t cheat = 0;
  std::map<std::string, uint64_t> by_rule;  // rows each rule fired on (any tier)
  std::map<std::string, uint64_t> by_user;  // flagged rows per user (name, else id)
  // Runners of rows whose problem has a physical floor (score_rules.h) that could not apply, for
  // want of the runner's GPU, with their rows.
  std::map<std::string, uint64_t> floor_not_applied;
};

class AuditSummary {
 public:
  void add(const dataset::Submission& s, const std::vector<Finding>& findings, Verdict verdict);
  // By leaderboard id.
  [[nodiscard]] const std::map<int64_t, LeaderboardAudit>& leaderboards() const { return by_id_; }

 private:
  std::map<int64_t, LeaderboardAudit> by_id_;
};

}  // namespace kbdata::audit
