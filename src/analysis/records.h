// A leaderboard's record over time: each time the best qualifying score across all users
// improved, who set it and by how much.
//
// Per (leaderboard, runner), the qualifying rows (ranking.h qualifies()) in order of submission
// time, then submission id, then user id; a row sets a record when it is the first or its score
// is strictly below the record before it. `factor` = previous record / new record. Legacy
// per-run files have no runner: their rows form one runner-less series per leaderboard.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/series_key.h"
#include "dataset/submission.h"

namespace kbdata::analysis {

struct Record {
  int64_t submission_id = 0;
  int64_t submission_time = 0;  // µs since the epoch, UTC
  std::string user_id;
  std::optional<std::string> user_name;
  double score = 0;                // the new record, seconds
  std::optional<double> previous;  // the record it beat
  std::optional<double> factor;    // previous / score
};

struct RecordSeries {
  int64_t leaderboard_id = 0;
  std::string problem_name;
  std::optional<std::string> runner;
  int64_t qualifying_rows = 0;
  std::vector<Record> records;  // in time order
};

// Builds the series from a stream of submissions (any order). Holds the qualifying rows' keys and
// scores, and now and then drops the rows that can no longer be records: a row with an earlier
// (or equal-ordered) row of lower or equal score stays a non-record whatever rows come later, so
// memory follows the records, not the rows.
class RecordsBuilder {
 public:
  void add(const dataset::Submission& s);
  // One series per (leaderboard, runner), by leaderboard id then runner (runner-less last).
  [[nodiscard]] std::vector<RecordSeries> finish() const;

 private:
  struct Row {
    int64_t submission_time;
    int64_t submission_id;
    std::string user_id;
    std::optional<std::string> user_name;
    double score;
  };
  struct Series {
    std::string problem_name;
    int64_t qualifying_rows = 0;
    std::vector<Row> rows;     // in arrival order since the last compaction
    size_t compact_at = 1024;  // compact when rows reach this many
  };
  // Sorts the rows by time and keeps the records among them.
  static void compact(std::vector<Row>& rows);
  std::map<SeriesKey, Series> series_;
};

}  // namespace kbdata::analysis
