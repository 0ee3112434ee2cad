// Which submissions a load keeps, and how that choice is pushed down into Parquet predicates
// (parquet/row_filter.h) so that row groups and pages that cannot match are not read.
//
// Pushdown only prunes; every loaded submission is then tested exactly with matches(), so the
// result never depends on what statistics a file happens to have. docs/data-model.md, "Filters",
// lists which filter is pushed down on which family.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "dataset/registry.h"
#include "dataset/row_key.h"
#include "dataset/submission.h"
#include "parquet/row_filter.h"

namespace kbdata::dataset {

class LeaderboardDirectory;

// Rows of a folder by their identity there, (submission_id, runner) (load_dir hands each over
// once): the rows a load leaves out.
class RowSet {
 public:
  void insert(int64_t submission_id, const std::optional<std::string>& runner);
  [[nodiscard]] bool contains(int64_t submission_id,
                              const std::optional<std::string>& runner) const;
  [[nodiscard]] size_t size() const { return rows_.size(); }

 private:
  RunnerNumbers runners_;
  std::unordered_set<RowKey, RowKeyHash> rows_;
};

struct Filter {
  std::optional<int64_t> submission_id;
  std::optional<std::string> problem;  // problem (leaderboard) name, exact
  std::optional<int64_t> leaderboard_id;
  std::optional<std::string> user_id;    // exact; legacy ids compare as their decimal text
  std::optional<std::string> user_name;  // exact
  std::optional<std::string> user;       // user_id or user_name equals it (exact); not pushed down
  std::optional<std::string> runner;     // trimmed, ignoring case (hardware.h same_runner)
  bool passed_only = false;              // passed is true
  bool scored_only = false;              // score is not null
  std::optional<int64_t> since;          // submission_time >= since (µs, UTC)
  std::optional<int64_t> until;          // submission_time < until (µs, UTC)
  // epoch_of(leaderboard_id, submission_time) equals it (dataset/epochs.h); not pushed down
  std::optional<int> epoch;
  // Rows left out whatever else they match (--exclude-flagged: the rows the audit flags); null
  // leaves none out. Not pushed down.
  std::shared_ptr<const RowSet> excluded;

  [[nodiscard]] bool empty() const;
};

// Whether `s` satisfies every condition of `filter`.
[[nodiscard]] bool matches(const Filter& filter, const Submission& s);

// The predicates that prune a file of `family` with this `schema` for `filter`, or nullopt when no
// row of the file can match (a user-name filter on a legacy file, which has none; a problem that
// `leaderboards` gives no id a legacy file could name it by). `runs_wanted`: legacy files push
// passed/scored down to their run rows only when the caller does not want every run. A runner is
// never pushed down: its spellings compare ignoring case, which statistics cannot.
[[nodiscard]] std::optional<std::vector<parquet::Predicate>> pushdown_predicates(
    const Filter& filter, SchemaFamily family, const parquet::Schema& schema, bool runs_wanted,
    const LeaderboardDirectory& leaderboards);

// Parses a UTC time: YYYY-MM-DD, or YYYY-MM-DD[T| ]HH:MM[:SS[.f...]] with an optional trailing
// "Z" (fractions beyond microseconds are cut). Returns µs since the epoch. Throws UsageError
// naming `what` (e.g. "--since") and the text when it does not parse or names no real date.
[[nodiscard]] int64_t parse_utc_time(const std::string& text, const std::string& what);

// Converts a stored timestamp to µs UTC: `unit` is the column's unit. Naive (not UTC-adjusted)
// timestamps are taken as UTC.
[[nodiscard]] int64_t to_micros(int64_t value, parquet::TimeUnit unit);

// An INT96 timestamp (8 bytes of nanoseconds in the day, then the Julian day, little-endian) as µs
// since the epoch; naive ones are taken as UTC. `bytes` holds at least 12 bytes.
[[nodiscard]] int64_t int96_to_micros(const uint8_t* bytes);

}  // namespace kbdata::dataset
