#include "dataset/epochs.h"

#include <algorithm>
#include <string>
#include <vector>

#include "dataset/registry.h"

namespace kbdata::dataset {
namespace {

// Days since 1970-01-01 of a civil date (proleptic Gregorian), H. Hinnant's algorithm.
constexpr int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

constexpr int64_t day_us(int64_t y, int64_t m, int64_t d) {
  return days_from_civil(y, m, d) * 86'400'000'000LL;
}

// The NVIDIA problems' harness changes: evaluation on 2025-11-30, 2025-12-02 and 2026-01-13,
// input generators on 2025-12-03, 2025-12-23 and 2026-01-25.
constexpr EpochChange kNvidia[] = {
    {day_us(2025, 11, 30), EpochChangeKind::EVALUATION},
    {day_us(2025, 12, 2), EpochChangeKind::EVALUATION},
    {day_us(2025, 12, 3), EpochChangeKind::INPUT_GENERATORS},
    {day_us(2025, 12, 23), EpochChangeKind::INPUT_GENERATORS},
    {day_us(2026, 1, 13), EpochChangeKind::EVALUATION},
    {day_us(2026, 1, 25), EpochChangeKind::INPUT_GENERATORS},
};

// Which configs' leaderboards share which changes.
struct ConfigEpochs {
  std::string_view config;
  std::span<const EpochChange> changes;
};
constexpr ConfigEpochs kByConfig[] = {{"nvidia_nvfp4_submissions", kNvidia}};

}  // namespace

std::span<const EpochChange> epoch_changes(int64_t leaderboard_id) {
  for (const LeaderboardRef& ref : find_leaderboard(leaderboard_id)) {
    for (const ConfigEpochs& e : kByConfig) {
      if (ref.config->name == e.config) return e.changes;
    }
  }
  return {};
}

int epoch_of(int64_t leaderboard_id, int64_t time_us) {
  const std::span<const EpochChange> changes = epoch_changes(leaderboard_id);
  return static_cast<int>(
      std::upper_bound(changes.begin(), changes.end(), time_us,
                       [](int64_t t, const EpochChange& c) { return t < c.time_us; }) -
      changes.begin());
}

std::string_view to_string(EpochChangeKind kind) {
  return kind == EpochChangeKind::EVALUATION ? "evaluation" : "input generators";
}

}  // namespace kbdata::dataset
