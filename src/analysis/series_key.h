// The unit every analysis compares scores within: a (leaderboard, runner) pair (docs/dataset.md
// §3). Ordered by leaderboard id, then runner, with runner-less series (legacy per-run files) after
// every named runner, which is the order rankings, fastest rows and records are printed in.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace kbdata::analysis {

struct SeriesKey {
  int64_t leaderboard_id = 0;
  std::optional<std::string> runner;

  bool operator<(const SeriesKey& other) const {
    if (leaderboard_id != other.leaderboard_id) return leaderboard_id < other.leaderboard_id;
    if (runner.has_value() != other.runner.has_value()) return runner.has_value();
    return runner < other.runner;
  }
};

}  // namespace kbdata::analysis
