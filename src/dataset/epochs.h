// Harness epochs: the dates on which a problem's evaluation harness or its input generators
// changed while the competition was live (docs/dataset.md §2, "How a score is measured"). Scores
// of one leaderboard taken in different epochs are not strictly comparable, so analyses can keep
// one epoch (Filter::epoch) and plots mark the changes.
//
// Epoch 0 of a leaderboard is everything before its first change; epoch k starts at its k-th
// change (inclusive) and ends at the next. A leaderboard with no recorded change has epoch 0 only.
// The changes are known to the day: each takes effect at 00:00 UTC of its date.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace kbdata::dataset {

enum class EpochChangeKind { EVALUATION, INPUT_GENERATORS };

struct EpochChange {
  int64_t time_us = 0;  // 00:00 UTC of the day, µs since the Unix epoch
  EpochChangeKind kind = EpochChangeKind::EVALUATION;
};

// The changes of leaderboard `leaderboard_id`, ascending by time; empty when none is recorded (or
// the id is unknown). The NVIDIA NVFP4 problems (595, 597, 598, 697, 730) share theirs.
[[nodiscard]] std::span<const EpochChange> epoch_changes(int64_t leaderboard_id);

// The epoch of a submission to `leaderboard_id` made at `time_us`: the number of its changes at or
// before that time.
[[nodiscard]] int epoch_of(int64_t leaderboard_id, int64_t time_us);

// "evaluation" or "input generators".
[[nodiscard]] std::string_view to_string(EpochChangeKind kind);

}  // namespace kbdata::dataset
