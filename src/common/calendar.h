// The calendar, the one place: proleptic Gregorian dates to and from days since 1970-01-01 (Howard
// Hinnant's days_from_civil / civil_from_days, exact over the whole int64 range of days a Parquet
// DATE or timestamp can hold, where std::chrono's years stop at ±32767), and the floor division
// that splits a time into days.
#pragma once

#include <cstdint>

namespace kbdata {

inline constexpr int64_t kSecondsPerDay = 86'400;
inline constexpr int64_t kMicrosPerDay = kSecondsPerDay * 1'000'000;

// a / b rounded towards negative infinity. REQUIRES: b != 0.
[[nodiscard]] constexpr int64_t floor_div(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0);
}

struct CivilDate {
  int64_t year = 1970;  // astronomical: 0 is 1 BC
  int month = 1;        // 1..12
  int day = 1;          // 1..31
};

// Days since 1970-01-01 of a date. REQUIRES: month 1..12, day 1..31.
[[nodiscard]] constexpr int64_t days_from_civil(int64_t year, int month, int day) {
  year -= month <= 2 ? 1 : 0;
  const int64_t era = (year >= 0 ? year : year - 399) / 400;
  const int64_t year_of_era = year - era * 400;  // [0, 399]
  const int64_t day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;
}

// The date `days` after 1970-01-01.
[[nodiscard]] constexpr CivilDate civil_from_days(int64_t days) {
  const int64_t z = days + 719468;  // days since 0000-03-01
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t day_of_era = z - era * 146097;  // [0, 146096]
  const int64_t year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  const int64_t day_of_year =
      day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const int64_t shifted_month = (5 * day_of_year + 2) / 153;  // [0, 11], March first
  const int day = static_cast<int>(day_of_year - (153 * shifted_month + 2) / 5 + 1);
  const int month = static_cast<int>(shifted_month < 10 ? shifted_month + 3 : shifted_month - 9);
  return CivilDate{year_of_era + era * 400 + (month <= 2 ? 1 : 0), month, day};
}

}  // namespace kbdata
