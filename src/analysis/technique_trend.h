// What the kernels of a problem use over its competition, and what the winners do differently
// (kbdata techniques --trend / --winners; docs/techniques.md): the technique of each submission
// (techniques/techniques.h) joined with the platform's ranking rules (analysis/ranking.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dataset/submission.h"
#include "techniques/techniques.h"

namespace kbdata::analysis {

// One submission row with what its code uses (the row as loaded; its code is not kept).
struct TechniqueRow {
  dataset::Submission row;
  techniques::Techniques techniques;
};

// A language (the hot loop's: Techniques::language) or a feature tag.
struct TechniqueTag {
  bool feature = false;
  size_t index = 0;  // techniques::Language or techniques::Feature
  [[nodiscard]] std::string_view kind() const { return feature ? "feature" : "language"; }
  [[nodiscard]] std::string_view name() const;
  [[nodiscard]] bool of(const techniques::Techniques& t) const;
};

// The runner a leaderboard's rows rank on: the one with the most qualifying rows (ties: the first
// by name; runner-less rows last). nullopt when no row qualifies, or only runner-less ones do.
[[nodiscard]] std::optional<std::string> ranking_runner(const std::vector<TechniqueRow>& rows);

// Per leaderboard, per week of its competition and per tag present in its rows: how many of the
// week's submissions and users use the tag, and how many of the best kernels of the top `top`
// users of the ranking at the week's end (their rows up to then, on ranking_runner) do.
//
// The competition is the leaderboard's largest run of rows (in time order) in which no two
// consecutive rows are more than kTrendGapWeeks weeks apart (ties: the earliest run); week 1
// starts at its first row. Rows outside it (a clock's 1900-01-01 or 9999-12-31, a lone row a year
// after the rest) are outliers: left out of the weeks, their counts and their tops, and returned
// so that the caller can name them. The weeks are therefore bounded by the data's real span, at
// most kTrendGapWeeks per row, never by the dates' range.
inline constexpr int64_t kTrendGapWeeks = 26;
struct TrendRow {
  int64_t leaderboard_id = 0;
  std::string problem_name;
  std::optional<std::string> runner;  // the ranking's
  int64_t week = 0;                   // 1-based
  int64_t week_start = 0;             // µs since the epoch, UTC
  TechniqueTag tag;
  uint64_t submissions = 0;  // the week's submissions using the tag
  uint64_t week_submissions = 0;
  uint64_t users = 0;  // the week's users with a submission using it
  uint64_t week_users = 0;
  uint64_t top = 0;       // of the top's best kernels at the week's end, those using it
  uint64_t top_size = 0;  // kernels in that top (fewer than `top` early on)
};
// A row left out of the trend: its time lies apart from its leaderboard's competition.
struct TrendOutlier {
  int64_t leaderboard_id = 0;
  std::string problem_name;
  int64_t submission_id = 0;
  std::string user_id;
  int64_t submission_time = 0;  // µs since the epoch, UTC
};
struct TechniqueTrend {
  // By leaderboard, week, then tag (languages, then features, in docs/techniques.md's order).
  std::vector<TrendRow> rows;
  std::vector<TrendOutlier> outliers;  // by leaderboard, then time (then submission id)
};
[[nodiscard]] TechniqueTrend technique_trend(const std::vector<TechniqueRow>& rows,
                                             size_t top = 10);

// Per leaderboard and tag present among the users' best kernels (the final ranking on
// ranking_runner): its share among the best kernels of the users ranked at most `top` (ties at
// the cut stay) against the rest, and the median score of the best kernels with it against those
// without it.
struct WinnersRow {
  int64_t leaderboard_id = 0;
  std::string problem_name;
  std::optional<std::string> runner;
  TechniqueTag tag;
  uint64_t top_kernels = 0;
  uint64_t top_with = 0;
  uint64_t rest_kernels = 0;
  uint64_t rest_with = 0;
  std::optional<double> median_with;  // seconds
  std::optional<double> median_without;
};
// Rows by leaderboard, then by how much more the top uses the tag than the rest (share
// difference, largest first), then in the tags' order.
[[nodiscard]] std::vector<WinnersRow> technique_winners(const std::vector<TechniqueRow>& rows,
                                                        size_t top = 10);

}  // namespace kbdata::analysis
