#include "dataset/epochs.h"

#include <gtest/gtest.h>

#include "dataset/filter.h"

namespace kbdata::dataset {
namespace {

constexpr int64_t kDay = 86'400'000'000LL;
// 2025-11-30T00:00:00Z: 20422 days after 1970-01-01.
constexpr int64_t kNov30 = 20422 * kDay;

TEST(Epochs, TheNvidiaProblemsShareTheKnownChanges) {
  for (int64_t id : {595, 597, 598, 697, 730}) {
    const auto changes = epoch_changes(id);
    ASSERT_EQ(changes.size(), 6u) << id;
    EXPECT_EQ(changes[0].time_us, kNov30);
    EXPECT_EQ(changes[0].kind, EpochChangeKind::EVALUATION);
    EXPECT_EQ(changes[1].time_us, kNov30 + 2 * kDay);  // 2025-12-02
    EXPECT_EQ(changes[2].time_us, kNov30 + 3 * kDay);  // 2025-12-03
    EXPECT_EQ(changes[2].kind, EpochChangeKind::INPUT_GENERATORS);
    EXPECT_EQ(changes[3].time_us, kNov30 + 23 * kDay);         // 2025-12-23
    EXPECT_EQ(changes[4].time_us, kNov30 + (31 + 13) * kDay);  // 2026-01-13
    EXPECT_EQ(changes[4].kind, EpochChangeKind::EVALUATION);
    EXPECT_EQ(changes[5].time_us, kNov30 + (31 + 25) * kDay);  // 2026-01-25
  }
  EXPECT_TRUE(epoch_changes(399).empty());
  EXPECT_TRUE(epoch_changes(496).empty());
  EXPECT_TRUE(epoch_changes(12345).empty());
  EXPECT_EQ(to_string(EpochChangeKind::INPUT_GENERATORS), "input generators");
}

TEST(Epochs, AnEpochStartsAtItsChangeInclusive) {
  EXPECT_EQ(epoch_of(598, kNov30 - 1), 0);
  EXPECT_EQ(epoch_of(598, kNov30), 1);
  EXPECT_EQ(epoch_of(598, kNov30 + 2 * kDay - 1), 1);
  EXPECT_EQ(epoch_of(598, kNov30 + 2 * kDay), 2);
  EXPECT_EQ(epoch_of(598, kNov30 + 3 * kDay + 5), 3);
  EXPECT_EQ(epoch_of(598, kNov30 + 60 * kDay), 6);
  EXPECT_EQ(epoch_of(399, kNov30 + 60 * kDay), 0);  // no changes: always epoch 0
}

TEST(Epochs, TheFilterKeepsOneEpochOfEachLeaderboard) {
  Filter f;
  f.epoch = 3;
  EXPECT_FALSE(f.empty());
  Submission s;
  s.leaderboard_id = 598;
  s.submission_time = kNov30 + 10 * kDay;  // after 2025-12-03, before 2025-12-23
  EXPECT_TRUE(matches(f, s));
  s.submission_time = kNov30 + 23 * kDay;
  EXPECT_FALSE(matches(f, s));
  s.leaderboard_id = 399;  // epoch 0 whatever the time
  EXPECT_FALSE(matches(f, s));
  f.epoch = 0;
  EXPECT_TRUE(matches(f, s));
}

}  // namespace
}  // namespace kbdata::dataset
