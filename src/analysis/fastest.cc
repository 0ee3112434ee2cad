#include "analysis/fastest.h"

#include <tuple>

#include "analysis/ranking.h"

namespace kbdata::analysis {

bool faster(const dataset::Submission& a, const dataset::Submission& b) {
  return std::tie(*a.score, a.submission_time, a.submission_id) <
         std::tie(*b.score, b.submission_time, b.submission_id);
}

void FastestBuilder::add(const dataset::Submission& s) {
  if (!qualifies(s)) return;
  auto [it, inserted] = best_.try_emplace(SeriesKey{s.leaderboard_id, s.runner}, s);
  if (!inserted && faster(s, it->second)) it->second = s;
}

std::vector<Fastest> FastestBuilder::finish() const {
  std::vector<Fastest> out;
  out.reserve(best_.size());
  for (const auto& [key, row] : best_) out.push_back(Fastest{key.leaderboard_id, key.runner, row});
  return out;
}

std::vector<Fastest> fastest(const std::vector<dataset::Submission>& submissions) {
  FastestBuilder builder;
  for (const dataset::Submission& s : submissions) builder.add(s);
  return builder.finish();
}

}  // namespace kbdata::analysis
