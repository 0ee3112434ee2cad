#include "analysis/ranking.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace kbdata::analysis {
namespace {

using dataset::Submission;

// The order of a user's rows, best first.
bool better(const Submission& a, const Submission& b) {
  return std::tie(*a.score, a.submission_time, a.submission_id) <
         std::tie(*b.score, b.submission_time, b.submission_id);
}

}  // namespace

void RankingBuilder::add(const Submission& s) {
  if (!qualifies(s)) return;
  auto& users = best_[SeriesKey{s.leaderboard_id, s.runner}];
  auto it = users.find(s.user_id);
  if (it == users.end()) {
    Submission kept = s;
    kept.code.reset();  // a ranking never shows code; do not hold it
    kept.runs.clear();
    users.emplace(s.user_id, std::move(kept));
  } else if (better(s, it->second)) {
    it->second = s;
    it->second.code.reset();
    it->second.runs.clear();
  }
}

std::vector<Ranking> RankingBuilder::finish(int64_t limit) const {
  std::vector<Ranking> out;
  for (const auto& [key, users] : best_) {
    std::vector<const Submission*> rows;
    rows.reserve(users.size());
    for (const auto& [user, row] : users) rows.push_back(&row);
    std::sort(rows.begin(), rows.end(), [](const Submission* a, const Submission* b) {
      if (*a->score != *b->score) return *a->score < *b->score;
      return std::tie(a->submission_time, a->submission_id, a->user_id) <
             std::tie(b->submission_time, b->submission_id, b->user_id);
    });
    Ranking ranking;
    ranking.leaderboard_id = key.leaderboard_id;
    ranking.runner = key.runner;
    ranking.problem_name = rows.front()->problem_name;
    for (size_t i = 0; i < rows.size(); ++i) {
      const Submission& s = *rows[i];
      const int64_t position = static_cast<int64_t>(i) + 1;
      const int64_t r = i > 0 && *s.score == ranking.entries.back().score
                            ? ranking.entries.back().rank
                            : position;
      if (limit > 0 && r > limit) break;
      ranking.entries.push_back(
          RankedEntry{r, s.user_id, s.user_name, *s.score, s.submission_id, s.submission_time});
    }
    out.push_back(std::move(ranking));
  }
  return out;
}

std::vector<Ranking> rank(const std::vector<Submission>& submissions, int64_t limit) {
  RankingBuilder builder;
  for (const Submission& s : submissions) builder.add(s);
  return builder.finish(limit);
}

}  // namespace kbdata::analysis
