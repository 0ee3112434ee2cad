#include "analysis/stats.h"

#include <algorithm>
#include <cmath>

#include "analysis/ranking.h"
#include "dataset/registry.h"
#include "dataset/run_result.h"

namespace kbdata::analysis {
namespace {}  // namespace

double quantile_cont(const std::vector<double>& sorted, double q) {
  const double h = static_cast<double>(sorted.size() - 1) * q;
  const double lo = std::floor(h);
  const double hi = std::ceil(h);
  const double low = sorted[static_cast<size_t>(lo)];
  if (lo == hi) return low;
  const double high = sorted[static_cast<size_t>(hi)];
  const double d = h - lo;
  return low * (1.0 - d) + high * d;  // DuckDB's form for DOUBLE (bit-identical results)
}

void StatsBuilder::add(const std::string& source, const dataset::Submission& s, bool legacy) {
  auto found = std::find(sources_.begin(), sources_.end(), source);
  const size_t index = static_cast<size_t>(found - sources_.begin());
  if (found == sources_.end()) sources_.push_back(source);
  auto [it, inserted] = by_key_.try_emplace({index, s.leaderboard_id});
  Accumulator& a = it->second;
  LeaderboardStats& st = a.stats;
  if (inserted) {
    st.source = source;
    st.leaderboard_id = s.leaderboard_id;
    st.problem_name = s.problem_name;
  }
  ++st.rows;
  a.submission_ids.push_back(s.submission_id);
  // Rows come in runs of one user (a file sorted by user or time): the set is asked on a change.
  if (a.last_user == nullptr || *a.last_user != s.user_id) {
    a.last_user = &*a.user_ids.insert(s.user_id).first;
  }
  if (s.passed == true) ++st.passing;
  if (s.score) ++st.scored;
  if (s.score && !valid_score(*s.score)) ++st.invalid_scores;
  if (legacy) {
    if (!st.legacy_scores) st.legacy_scores = st.scores_reproduced = 0;
    if (s.score) {
      ++*st.legacy_scores;
      // The registry's ranking_by, else geom (assumed: registry.h ranking_by_of).
      const dataset::RankingBy ranking = dataset::ranking_by_of(s.leaderboard_id);
      const std::optional<double> recomputed =
          s.benchmarks ? dataset::score_from_benchmarks(*s.benchmarks, ranking) : std::nullopt;
      if (recomputed && dataset::reproduces(*s.score, *recomputed)) ++*st.scores_reproduced;
    }
  }
  if (qualifies(s)) {
    ++st.qualifying;
    a.scores.push_back(*s.score);
  }
  if (!st.first_time || s.submission_time < *st.first_time) st.first_time = s.submission_time;
  if (!st.last_time || s.submission_time > *st.last_time) st.last_time = s.submission_time;
  if (s.code) {
    st.code_bytes += s.code->size();
  } else if (s.code_bytes) {
    st.code_bytes += *s.code_bytes;
  }
  if (s.runner && (a.last_runner == nullptr || *a.last_runner != *s.runner)) {
    a.last_runner = &*a.runners.insert(*s.runner).first;
  }
}

std::vector<LeaderboardStats> StatsBuilder::finish() const {
  std::vector<LeaderboardStats> out;
  out.reserve(by_key_.size());
  for (const auto& [key, a] : by_key_) {
    LeaderboardStats st = a.stats;
    std::vector<int64_t> ids = a.submission_ids;
    std::sort(ids.begin(), ids.end());
    st.submissions = static_cast<uint64_t>(std::unique(ids.begin(), ids.end()) - ids.begin());
    st.users = a.user_ids.size();
    if (!a.scores.empty()) {
      std::vector<double> sorted = a.scores;
      std::sort(sorted.begin(), sorted.end());
      st.score_min = sorted.front();
      st.score_p10 = quantile_cont(sorted, 0.1);
      st.score_median = quantile_cont(sorted, 0.5);
    }
    st.runners.assign(a.runners.begin(), a.runners.end());
    out.push_back(std::move(st));
  }
  return out;
}

}  // namespace kbdata::analysis
