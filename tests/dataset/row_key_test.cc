// The one row key, (submission_id, runner): what the loader's repeats, the rows a load leaves out
// (RowSet) and the audit's records faced all key rows by.
#include "dataset/row_key.h"

#include <gtest/gtest.h>

#include <string>
#include <unordered_set>

#include "dataset/filter.h"

namespace kbdata::dataset {
namespace {

TEST(RowKey, ARowIsItsSubmissionAndItsRunner) {
  RunnerNumbers runners;
  const RowKey h100 = runners.key(7, std::string("H100"));
  EXPECT_EQ(h100, runners.key(7, std::string("H100")));
  EXPECT_NE(h100, runners.key(7, std::string("B200")));
  EXPECT_NE(h100, runners.key(8, std::string("H100")));
  // No runner (a legacy row) is a runner of its own, never one spelled like a sentinel.
  EXPECT_NE(h100, runners.key(7, std::nullopt));
  EXPECT_NE(runners.key(7, std::string("\x1f")), runners.key(7, std::nullopt));
  EXPECT_NE(runners.key(7, std::string("")), runners.key(7, std::nullopt));
  // Spellings compare as bytes: the loader keeps what the file says.
  EXPECT_NE(runners.key(7, std::string("h100")), h100);
}

TEST(RowKey, FindGivesNoNumberToAnUnseenRunner) {
  RunnerNumbers runners;
  EXPECT_EQ(runners.find(std::string("H100")), std::nullopt);
  const int32_t h100 = runners.number(std::string("H100"));
  EXPECT_EQ(runners.find(std::string("H100")), h100);
  EXPECT_EQ(runners.find(std::nullopt), RowKey::kNoRunner);
  EXPECT_EQ(runners.find(std::string("B200")), std::nullopt);
  EXPECT_EQ(runners.number(std::string("B200")), h100 + 1);
}

TEST(RowKey, EqualKeysHashAlikeAndASetHoldsEachOnce) {
  RunnerNumbers runners;
  std::unordered_set<RowKey, RowKeyHash> rows;
  for (int64_t id = -3; id < 1000; ++id) {
    for (const char* runner : {"H100", "B200", "MI300"}) {
      rows.insert(runners.key(id, std::string(runner)));
      rows.insert(runners.key(id, std::string(runner)));
    }
    rows.insert(runners.key(id, std::nullopt));
    EXPECT_EQ(RowKeyHash()(runners.key(id, std::string("H100"))),
              RowKeyHash()(runners.key(id, std::string("H100"))));
  }
  EXPECT_EQ(rows.size(), 1003U * 4);
}

TEST(RowKey, ARowSetHoldsRowsByTheirKey) {
  RowSet set;
  set.insert(5, std::string("H100"));
  set.insert(5, std::string("H100"));
  set.insert(5, std::nullopt);
  set.insert(6, std::string("B200"));
  EXPECT_EQ(set.size(), 3U);
  EXPECT_TRUE(set.contains(5, std::string("H100")));
  EXPECT_TRUE(set.contains(5, std::nullopt));
  EXPECT_FALSE(set.contains(5, std::string("B200")));  // a runner the set has, another row's
  EXPECT_FALSE(set.contains(6, std::nullopt));
  EXPECT_FALSE(set.contains(5, std::string("A100")));  // a runner the set never saw
}

}  // namespace
}  // namespace kbdata::dataset
