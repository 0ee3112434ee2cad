#include "analysis/records.h"

#include <algorithm>
#include <tuple>

#include "analysis/ranking.h"

namespace kbdata::analysis {

void RecordsBuilder::compact(std::vector<Row>& rows) {
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return std::tie(a.submission_time, a.submission_id, a.user_id) <
           std::tie(b.submission_time, b.submission_id, b.user_id);
  });
  size_t kept = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (kept > 0 && !(rows[i].score < rows[kept - 1].score)) continue;
    if (kept != i) rows[kept] = std::move(rows[i]);
    ++kept;
  }
  rows.resize(kept);
}

void RecordsBuilder::add(const dataset::Submission& s) {
  if (!qualifies(s)) return;
  Series& series = series_[SeriesKey{s.leaderboard_id, s.runner}];
  if (series.problem_name.empty()) series.problem_name = s.problem_name;
  ++series.qualifying_rows;
  series.rows.push_back(Row{s.submission_time, s.submission_id, s.user_id, s.user_name, *s.score});
  if (series.rows.size() >= series.compact_at) {
    compact(series.rows);
    series.compact_at = std::max<size_t>(1024, 2 * series.rows.size());
  }
}

std::vector<RecordSeries> RecordsBuilder::finish() const {
  std::vector<RecordSeries> out;
  for (const auto& [key, entry] : series_) {
    std::vector<Row> rows = entry.rows;
    compact(rows);
    RecordSeries series;
    series.leaderboard_id = key.leaderboard_id;
    series.problem_name = entry.problem_name;
    series.runner = key.runner;
    series.qualifying_rows = entry.qualifying_rows;
    for (Row& r : rows) {
      Record record{
          r.submission_id, r.submission_time, std::move(r.user_id), std::move(r.user_name),
          r.score,         std::nullopt,      std::nullopt};
      if (!series.records.empty()) {
        record.previous = series.records.back().score;
        record.factor = *record.previous / r.score;
      }
      series.records.push_back(std::move(record));
    }
    out.push_back(std::move(series));
  }
  return out;
}

}  // namespace kbdata::analysis
