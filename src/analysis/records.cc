#include "analysis/records.h"

#include <algorithm>
#include <tuple>

#include "analysis/ranking.h"

namespace kbdata::analysis {

bool RecordsBuilder::Key::operator<(const Key& other) const {
  if (leaderboard_id != other.leaderboard_id) return leaderboard_id < other.leaderboard_id;
  if (runner.has_value() != other.runner.has_value()) return runner.has_value();
  return runner < other.runner;
}

void RecordsBuilder::add(const dataset::Submission& s) {
  if (!qualifies(s)) return;
  auto& [problem, rows] = rows_[Key{s.leaderboard_id, s.runner}];
  if (problem.empty()) problem = s.problem_name;
  rows.push_back(Row{s.submission_time, s.submission_id, s.user_id, s.user_name, *s.score});
}

std::vector<RecordSeries> RecordsBuilder::finish() const {
  std::vector<RecordSeries> out;
  for (const auto& [key, entry] : rows_) {
    std::vector<const Row*> rows;
    rows.reserve(entry.second.size());
    for (const Row& r : entry.second) rows.push_back(&r);
    std::sort(rows.begin(), rows.end(), [](const Row* a, const Row* b) {
      return std::tie(a->submission_time, a->submission_id, a->user_id) <
             std::tie(b->submission_time, b->submission_id, b->user_id);
    });
    RecordSeries series;
    series.leaderboard_id = key.leaderboard_id;
    series.problem_name = entry.first;
    series.runner = key.runner;
    series.qualifying_rows = static_cast<int64_t>(rows.size());
    for (const Row* r : rows) {
      if (!series.records.empty() && !(r->score < series.records.back().score)) continue;
      Record record{r->submission_id, r->submission_time, r->user_id, r->user_name, r->score,
                    std::nullopt, std::nullopt};
      if (!series.records.empty()) {
        record.previous = series.records.back().score;
        record.factor = *record.previous / r->score;
      }
      series.records.push_back(std::move(record));
    }
    out.push_back(std::move(series));
  }
  return out;
}

}  // namespace kbdata::analysis
