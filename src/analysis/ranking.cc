#include "analysis/ranking.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

namespace kbdata::analysis {
namespace {

using dataset::Submission;

// The order of a user's rows, best first, and of a ranking's entries.
bool better(const Submission& a, const Submission& b) {
  return std::tie(*a.score, a.submission_time, a.submission_id) <
         std::tie(*b.score, b.submission_time, b.submission_id);
}

// Runner-less rankings sort after every named runner.
struct RankingKey {
  int64_t leaderboard_id;
  std::optional<std::string> runner;
  bool operator<(const RankingKey& other) const {
    if (leaderboard_id != other.leaderboard_id) return leaderboard_id < other.leaderboard_id;
    if (runner.has_value() != other.runner.has_value()) return runner.has_value();
    return runner < other.runner;
  }
};

}  // namespace

bool qualifies(const Submission& s) {
  return s.score.has_value() && s.passed.value_or(false) && s.status != "hacked";
}

std::vector<Ranking> rank(const std::vector<Submission>& submissions, int64_t limit) {
  // Best qualifying row per (leaderboard, runner, user).
  std::map<RankingKey, std::unordered_map<std::string, const Submission*>> best;
  for (const Submission& s : submissions) {
    if (!qualifies(s)) continue;
    const Submission*& slot = best[RankingKey{s.leaderboard_id, s.runner}][s.user_id];
    if (slot == nullptr || better(s, *slot)) slot = &s;
  }

  std::vector<Ranking> out;
  for (auto& [key, users] : best) {
    std::vector<const Submission*> rows;
    rows.reserve(users.size());
    for (const auto& [user, row] : users) rows.push_back(row);
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
      int64_t position = static_cast<int64_t>(i) + 1;
      int64_t r = i > 0 && *s.score == ranking.entries.back().score ? ranking.entries.back().rank
                                                                     : position;
      if (limit > 0 && r > limit) break;
      ranking.entries.push_back(
          RankedEntry{r, s.user_id, s.user_name, *s.score, s.submission_id, s.submission_time});
    }
    out.push_back(std::move(ranking));
  }
  return out;
}

}  // namespace kbdata::analysis
