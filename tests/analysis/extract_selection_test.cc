#include "analysis/extract_selection.h"

#include <gtest/gtest.h>

namespace kbdata::analysis {
namespace {

using dataset::Submission;

Submission row(int64_t id, const std::string& user, std::optional<double> score, int64_t code_id,
               std::optional<std::string> runner = "B200") {
  Submission s;
  s.submission_id = id;
  s.leaderboard_id = 597;
  s.user_id = user;
  s.submission_time = id * 10;
  s.code_id = code_id;
  s.status = score ? "succeeded" : "failed";
  s.score = score;
  s.passed = score.has_value();
  s.runner = std::move(runner);
  return s;
}

std::vector<int64_t> ids(const std::vector<ExtractEntry>& entries) {
  std::vector<int64_t> out;
  for (const auto& e : entries) out.push_back(e.row.submission_id);
  return out;
}

TEST(ExtractSelection, TopKUsersBestRowsPerRunner) {
  std::vector<Submission> rows = {row(1, "a", 3.0, 100),         row(2, "a", 1.0, 101),
                                  row(3, "b", 2.0, 102),         row(4, "c", 2.0, 103),
                                  row(5, "d", 5.0, 104),         row(6, "a", 9.0, 101, "H100"),
                                  row(7, "e", std::nullopt, 105)};
  auto top = select_for_extract(rows, {2, false});
  // B200: a (1.0) rank 1; b and c tie at 2.0, rank 2, both kept; H100: a rank 1.
  EXPECT_EQ(ids(top), (std::vector<int64_t>{2, 3, 4, 6}));
  EXPECT_EQ(top[0].rank, 1);
  EXPECT_EQ(top[1].rank, 2);
  EXPECT_EQ(top[2].rank, 2);
  EXPECT_EQ(top[3].row.runner, "H100");
  EXPECT_EQ(top[3].rank, 1);
}

TEST(ExtractSelection, EveryRowByRunnerThenTime) {
  std::vector<Submission> rows = {row(3, "a", 1.0, 1, std::nullopt), row(2, "a", 1.0, 1, "H100"),
                                  row(1, "a", std::nullopt, 2)};
  auto all = select_for_extract(rows, {0, false});
  EXPECT_EQ(ids(all), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_FALSE(all[0].rank.has_value());
}

TEST(ExtractSelection, ExactDedupKeepsTheBestRowPerCodeAndCountsTheOthers) {
  // code 7: rows 1 (unscored), 2 (2.0), 3 (1.0, kept); code 8: rows 4 and 5 at the same score,
  // 4 is earlier and kept; code 9 alone.
  std::vector<Submission> rows = {row(1, "a", std::nullopt, 7), row(2, "b", 2.0, 7),
                                  row(3, "c", 1.0, 7),          row(4, "d", 4.0, 8),
                                  row(5, "e", 4.0, 8),          row(6, "f", 0.5, 9)};
  auto kept = select_for_extract(rows, {0, true});
  EXPECT_EQ(ids(kept), (std::vector<int64_t>{3, 4, 6}));
  EXPECT_EQ(kept[0].duplicates_dropped, 2u);
  EXPECT_EQ(kept[1].duplicates_dropped, 1u);
  EXPECT_EQ(kept[2].duplicates_dropped, 0u);
  // Unscored rows only: the earliest stays.
  kept =
      select_for_extract({row(2, "a", std::nullopt, 7), row(1, "b", std::nullopt, 7)}, {0, true});
  EXPECT_EQ(ids(kept), (std::vector<int64_t>{1}));
}

}  // namespace
}  // namespace kbdata::analysis
