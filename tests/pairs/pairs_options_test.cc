// PairsBuilder's checks of its options, as a library reports them: the option names and the
// values, never a flag (the CLI spells flags: pairs_cli_test; Python keywords: tests/python).
#include <gtest/gtest.h>

#include <string>

#include "common/error.h"
#include "pairs/pairs.h"

namespace kbdata::pairs {
namespace {

std::string message(const PairsOptions& options) {
  try {
    PairsBuilder builder(options);
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).find("--"), std::string::npos) << e.what();
    return e.what();
  }
  return "no UsageError";
}

PairsOptions rows_kept() {
  PairsOptions o;
  o.keep_rows = true;
  return o;
}

TEST(PairsOptions, ABadValueIsNamedByItsOptionName) {
  PairsOptions o = rows_kept();
  o.min_speedup = 0.5;
  EXPECT_EQ(message(o),
            "min_speedup 0.5: must be 1 or more (the baseline's score over the improved one's)");
  o = rows_kept();
  o.max_gap_days = 0;
  EXPECT_EQ(message(o), "max_gap_days 0: must be a positive number of days");
  o = rows_kept();
  o.lineage.link_similarity = 1.5;
  EXPECT_EQ(message(o), "link_similarity 1.5: must be in (0, 1]");
  o = rows_kept();
  o.lineage.lookback = 0;
  EXPECT_EQ(message(o), "lookback 0: must be at least 1");
}

TEST(PairsOptions, OptionsThatDoNotGoTogetherAreBothNamed) {
  PairsOptions o = rows_kept();
  o.trajectories = true;
  o.all_pairs = true;
  EXPECT_EQ(message(o), "all_pairs is for pairs; trajectories writes one row per lineage");
  o = rows_kept();
  o.out = "pairs.parquet";
  o.format = Format::CHAT;
  EXPECT_EQ(message(o),
            "out pairs.parquet names a Parquet file, but format chat writes JSON Lines (name it "
            ".jsonl)");
}

}  // namespace
}  // namespace kbdata::pairs
