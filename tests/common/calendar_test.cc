// common/calendar.h: the one calendar every date and time in kbdata goes through.
#include "common/calendar.h"

#include <gtest/gtest.h>

namespace kbdata {
namespace {

TEST(Calendar, KnownDates) {
  EXPECT_EQ(days_from_civil(1970, 1, 1), 0);
  EXPECT_EQ(days_from_civil(2000, 3, 1), 11017);
  EXPECT_EQ(days_from_civil(1969, 12, 31), -1);
  EXPECT_EQ(days_from_civil(2024, 2, 29), 19782);
  EXPECT_EQ(days_from_civil(0, 3, 1), -719468);
  const CivilDate d = civil_from_days(20'422);  // 2025-11-30
  EXPECT_EQ(d.year, 2025);
  EXPECT_EQ(d.month, 11);
  EXPECT_EQ(d.day, 30);
}

TEST(Calendar, RoundTripsEveryDayOfFourCenturiesAndTheInt32Ends) {
  for (int64_t days = -146'097 * 2; days <= 146'097 * 2; ++days) {
    const CivilDate d = civil_from_days(days);
    ASSERT_EQ(days_from_civil(d.year, d.month, d.day), days) << days;
    ASSERT_GE(d.month, 1);
    ASSERT_LE(d.month, 12);
    ASSERT_GE(d.day, 1);
    ASSERT_LE(d.day, 31);
  }
  for (int64_t days : {int64_t{-2'147'483'648}, int64_t{2'147'483'647}}) {
    const CivilDate d = civil_from_days(days);
    EXPECT_EQ(days_from_civil(d.year, d.month, d.day), days);
  }
}

TEST(Calendar, FloorDivisionRoundsDown) {
  EXPECT_EQ(floor_div(-1, kMicrosPerDay), -1);
  EXPECT_EQ(floor_div(0, kMicrosPerDay), 0);
  EXPECT_EQ(floor_div(kMicrosPerDay, kMicrosPerDay), 1);
  EXPECT_EQ(floor_div(-kMicrosPerDay, kMicrosPerDay), -1);
  EXPECT_EQ(floor_div(7, -2), -4);
}

}  // namespace
}  // namespace kbdata
