// result::ResultTable: cells in, the same cells out, in Arrow's layout, batch by batch.
#include "result/table.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace kbdata::result {
namespace {

const std::vector<Column> kColumns = {{"id", ColumnType::INT64},
                                      {"name", ColumnType::STRING},
                                      {"score", ColumnType::SCORE},
                                      {"ok", ColumnType::BOOL},
                                      {"tags", ColumnType::STRING, false, true},
                                      {"at", ColumnType::TIMESTAMP}};

std::vector<Cell> row(int64_t i) {
  if (i % 3 == 2) return {i, Cell{}, Cell{}, Cell{}, Cell{}, Cell{}};
  List tags;
  for (int64_t k = 0; k < i % 4; ++k) tags.push_back(std::string(k + 1, 'a'));
  if (i % 4 == 3) tags.push_back(Value{});
  return {i,    "user " + std::to_string(i),       1e-6 * static_cast<double>(i), i % 2 == 0,
          tags, int64_t{1'760'000'000'000'000} + i};
}

TEST(ResultTable, CellsComeBackAsTheyWentIn) {
  ResultTable table(kColumns, "test rows", 4);
  for (int64_t i = 0; i < 11; ++i) table.add_row(row(i));
  const auto& batches = table.batches();
  ASSERT_EQ(batches.size(), 3u);  // 4 + 4 + 3
  int64_t i = 0;
  for (const auto& batch : batches) {
    for (int64_t r = 0; r < batch->rows; ++r, ++i) {
      for (size_t c = 0; c < kColumns.size(); ++c) {
        EXPECT_EQ(batch->columns[c].at(r), row(i)[c]) << "row " << i << " column " << c;
      }
    }
  }
  EXPECT_EQ(i, 11);
}

TEST(ResultTable, BuffersAreLaidOutAsArrowLaysThemOut) {
  ResultTable table(kColumns, "test rows");
  for (int64_t i = 0; i < 4; ++i) table.add_row(row(i));
  const Batch& b = *table.batches().at(0);
  const Values& names = b.columns[1].values();
  EXPECT_EQ(names.offsets(), (std::vector<int64_t>{0, 6, 12, 12, 18}));
  EXPECT_EQ(names.bytes(), "user 0user 1user 3");
  EXPECT_EQ(names.validity(), std::vector<uint8_t>{0b1011});
  EXPECT_EQ(names.null_count(), 1);
  EXPECT_EQ(b.columns[3].values().bits(), std::vector<uint8_t>{0b0001});  // 0 true, 1 false
  const ColumnData& tags = b.columns[4];
  EXPECT_EQ(tags.list_offsets(), (std::vector<int64_t>{0, 0, 1, 1, 5}));
  EXPECT_EQ(tags.list_validity(), std::vector<uint8_t>{0b1011});
  EXPECT_EQ(tags.null_count(), 1);
  EXPECT_EQ(tags.values().size(), 5);
  EXPECT_EQ(tags.values().null_count(), 1);  // row 3's last item
}

TEST(ResultTable, ASealedBatchNeverChanges) {
  ResultTable table(kColumns, "test rows");
  table.add_row(row(0));
  const auto first = table.batches();
  table.add_row(row(1));
  ASSERT_EQ(table.batches().size(), 2u);
  EXPECT_EQ(first.at(0)->rows, 1);
  EXPECT_EQ(first.at(0).get(), table.batches()[0].get());
}

TEST(ResultTable, SectionsLeaderboardsAndSummaryAreKeptInOrder) {
  ResultTable table({{"id", ColumnType::INT64}}, "test rows");
  table.section("first");
  table.leaderboard_shown(598, "nvfp4_dual_gemm");
  table.add_row({int64_t{1}}, 597, "nvfp4_gemm");
  table.section("empty");
  table.section("third");
  table.add_row({int64_t{2}}, 598, "nvfp4_dual_gemm");
  table.summary("done");
  ASSERT_EQ(table.sections().size(), 3u);
  EXPECT_EQ(table.sections()[1].first_row, 1);
  EXPECT_EQ(table.sections()[2].first_row, 1);
  ASSERT_EQ(table.leaderboards().size(), 2u);
  EXPECT_EQ(table.leaderboards()[0].id, 598);
  EXPECT_EQ(table.leaderboards()[1].id, 597);
  ASSERT_NE(table.row_leaderboard(0), nullptr);
  EXPECT_EQ(table.row_leaderboard(0)->id, 597);
  EXPECT_EQ(table.row_leaderboard(0)->problem_name, "nvfp4_gemm");
  EXPECT_EQ(table.summary_lines(), std::vector<std::string>{"done"});
}

// Another view of the same answer: rows mapped, sections (an empty one too), leaderboards in
// their order and summary lines kept.
TEST(ResultTable, MapRowsKeepsSectionsLeaderboardsAndSummary) {
  ResultTable in({{"id", ColumnType::INT64}, {"name", ColumnType::STRING}}, "rule", 1);
  in.leaderboard_shown(598, "nvfp4_dual_gemm");
  in.add_row({int64_t{0}, std::string("a")});
  in.section("first");
  in.add_row({int64_t{1}, std::string("b")}, 597, "nvfp4_gemm");
  in.section("empty");
  in.section("last");
  in.add_row({int64_t{2}, Cell{}}, 598, "nvfp4_dual_gemm");
  in.summary("done");
  ResultTable out = map_rows(in, {{"name", ColumnType::STRING}},
                             [](std::vector<Cell>&& cells) { return std::vector<Cell>{cells[1]}; });
  EXPECT_EQ(out.rule(), "rule");
  ASSERT_EQ(out.rows(), 3);
  ASSERT_EQ(out.sections().size(), 3u);
  EXPECT_EQ(out.sections()[0].first_row, 1);
  EXPECT_EQ(out.sections()[1].title, "empty");
  EXPECT_EQ(out.sections()[2].first_row, 2);
  ASSERT_EQ(out.leaderboards().size(), 2u);
  EXPECT_EQ(out.leaderboards()[0].id, 598);
  EXPECT_EQ(out.row_leaderboard(0), nullptr);
  EXPECT_EQ(out.row_leaderboard(1)->id, 597);
  EXPECT_EQ(out.summary_lines(), std::vector<std::string>{"done"});
  std::vector<Cell> names;
  out.visit([](const std::string&) {},
            [&](std::vector<Cell>&& cells, const ResultTable::Leaderboard*) {
              names.push_back(cells[0]);
            });
  EXPECT_EQ(names, (std::vector<Cell>{std::string("a"), std::string("b"), Cell{}}));
}

// A projection picks columns by name in the order named, may show one under another name, sees
// each full row before it is cut, and keeps the table's sections; a name the table lacks is a bug.
TEST(ResultTable, AProjectionPicksColumnsByNameInTheOrderNamed) {
  const std::vector<Column> all = {
      {"id", ColumnType::INT64}, {"name", ColumnType::STRING}, {"score", ColumnType::SCORE}};
  Projection people(all, {"score", "name"});
  people.rename("name", "user");
  ASSERT_EQ(people.columns().size(), 2u);
  EXPECT_EQ(people.columns()[0].name, "score");
  EXPECT_EQ(people.columns()[0].type, ColumnType::SCORE);
  EXPECT_EQ(people.columns()[1].name, "user");
  EXPECT_EQ(people.row({int64_t{7}, std::string("a"), 1.5}),
            (std::vector<Cell>{1.5, std::string("a")}));

  ResultTable in(all, "rule", 1);
  in.section("first");
  in.add_row({int64_t{1}, Cell{}, 2.5}, 597, "nvfp4_gemm");
  in.summary("done");
  ResultTable out = people.table(in, [](std::vector<Cell>& cells) {
    if (std::holds_alternative<std::monostate>(cells[1])) cells[1] = std::string("by id");
  });
  ASSERT_EQ(out.rows(), 1);
  ASSERT_EQ(out.sections().size(), 1u);
  EXPECT_EQ(out.row_leaderboard(0)->id, 597);
  EXPECT_EQ(out.summary_lines(), std::vector<std::string>{"done"});
  out.visit([](const std::string&) {},
            [&](std::vector<Cell>&& cells, const ResultTable::Leaderboard*) {
              EXPECT_EQ(cells, (std::vector<Cell>{2.5, std::string("by id")}));
            });

  EXPECT_THROW(Projection(all, {"nope"}), std::logic_error);
  EXPECT_THROW(people.rename("id", "x"), std::logic_error);
}

TEST(ResultTable, ACellOfTheWrongTypeIsABug) {
  ResultTable table(kColumns, "test rows");
  std::vector<Cell> bad = row(0);
  bad[0] = std::string("1");
  EXPECT_THROW(table.add_row(bad), std::logic_error);
  bad = row(0);
  bad[4] = std::string("not a list");
  EXPECT_THROW(table.add_row(bad), std::logic_error);
  bad = row(0);
  bad[4] = List{int64_t{1}};
  EXPECT_THROW(table.add_row(bad), std::logic_error);
  bad = row(0);
  bad[1] = List{};
  EXPECT_THROW(table.add_row(bad), std::logic_error);
  EXPECT_THROW(table.add_row({int64_t{1}}), std::logic_error);
  EXPECT_EQ(table.rows(), 0);
}

}  // namespace
}  // namespace kbdata::result
