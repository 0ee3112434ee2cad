#include "analysis/progression.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "analysis/ranking.h"

namespace kbdata::analysis {

std::vector<Progression> progression(std::vector<const dataset::Submission*> rows) {
  std::sort(rows.begin(), rows.end(),
            [](const dataset::Submission* a, const dataset::Submission* b) {
              if (a->leaderboard_id != b->leaderboard_id)
                return a->leaderboard_id < b->leaderboard_id;
              if (a->submission_time != b->submission_time)
                return a->submission_time < b->submission_time;
              if (a->submission_id != b->submission_id) return a->submission_id < b->submission_id;
              if (a->runner.has_value() != b->runner.has_value()) return a->runner.has_value();
              return a->runner < b->runner;
            });
  std::vector<Progression> out;
  struct Best {
    double first;
    double best;
  };
  std::map<std::optional<std::string>, Best> best;  // per runner, of the current leaderboard
  for (size_t i = 0; i < rows.size(); ++i) {
    const dataset::Submission& s = *rows[i];
    if (out.empty() || out.back().leaderboard_id != s.leaderboard_id) {
      Progression p;
      p.leaderboard_id = s.leaderboard_id;
      p.problem_name = s.problem_name;
      p.user_id = s.user_id;
      p.user_name = s.user_name;
      // The leaderboard's rows are consecutive after the sort: reserve them all at once.
      size_t end = i;
      while (end < rows.size() && rows[end]->leaderboard_id == s.leaderboard_id) ++end;
      p.steps.reserve(end - i);
      out.push_back(std::move(p));
      best.clear();
    }
    ProgressionStep step;
    step.submission_id = s.submission_id;
    step.submission_time = s.submission_time;
    step.runner = s.runner;
    step.status = s.status;
    step.score = s.score;
    step.passed = s.passed;
    step.qualifies = qualifies(s);
    auto it = best.find(s.runner);
    if (step.qualifies) {
      const double score = *s.score;
      if (it == best.end()) {
        it = best.emplace(s.runner, Best{score, score}).first;
        step.improved = true;
        step.factor_first = 1.0;
      } else if (score < it->second.best) {
        step.improved = true;
        step.factor_previous = it->second.best / score;
        step.factor_first = it->second.first / score;
        it->second.best = score;
      }
    }
    if (it != best.end()) step.best = it->second.best;
    out.back().steps.push_back(std::move(step));
  }
  return out;
}

std::vector<Progression> progression(const std::vector<dataset::Submission>& rows) {
  std::vector<const dataset::Submission*> pointers;
  pointers.reserve(rows.size());
  for (const dataset::Submission& s : rows) pointers.push_back(&s);
  return progression(std::move(pointers));
}

}  // namespace kbdata::analysis
