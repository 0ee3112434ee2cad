// Filters: time parsing, exact matching on the model, and the predicates pushed down per family.
#include "dataset/filter.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "dataset/leaderboard_directory.h"
#include "parquet/file_reader.h"
#include "parquet/schema.h"
#include "support/submission_files.h"

namespace kbdata::dataset {
namespace {

TEST(ParseUtcTime, Forms) {
  EXPECT_EQ(parse_utc_time("1970-01-01", "--since"), 0);
  EXPECT_EQ(parse_utc_time("1970-01-02", "--since"), 86'400'000'000LL);
  EXPECT_EQ(parse_utc_time("2025-10-01T12:30", "--since"), 1759321800'000000LL);
  EXPECT_EQ(parse_utc_time("2025-10-01 12:30:15Z", "--since"), 1759321815'000000LL);
  EXPECT_EQ(parse_utc_time("2025-10-01T12:30:15.5", "--since"), 1759321815'500000LL);
  EXPECT_EQ(parse_utc_time("2025-10-01T12:30:15.1234567", "--since"), 1759321815'123456LL);
  EXPECT_EQ(parse_utc_time("2024-02-29", "--since"), 1709164800'000000LL);
}

TEST(ParseUtcTime, RejectsBadText) {
  for (const char* bad :
       {"", "yesterday", "2025-1-01", "2025-13-01", "2025-02-30", "2023-02-29", "2025-10-01T25:00",
        "2025-10-01T12", "2025-10-01T12:30:15.", "2025-10-01+02:00"}) {
    try {
      (void)parse_utc_time(bad, "--until");
      ADD_FAILURE() << bad;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("--until '"), std::string::npos) << e.what();
    }
  }
}

Submission sample() {
  Submission s;
  s.submission_id = 7;
  s.leaderboard_id = 595;
  s.problem_name = "nvfp4_gemv";
  s.user_id = "42";
  s.user_name = "alice";
  s.submission_time = 1000;
  s.score = 1e-4;
  s.passed = true;
  s.runner = "B200";
  return s;
}

TEST(FilterMatches, EveryCondition) {
  Submission s = sample();
  EXPECT_TRUE(matches(Filter{}, s));
  auto check = [&](auto set, bool expected) {
    Filter f;
    set(f);
    EXPECT_EQ(matches(f, s), expected);
  };
  check([](Filter& f) { f.submission_id = 7; }, true);
  check([](Filter& f) { f.submission_id = 8; }, false);
  check([](Filter& f) { f.problem = "nvfp4_gemv"; }, true);
  check([](Filter& f) { f.problem = "nvfp4_gemm"; }, false);
  check([](Filter& f) { f.leaderboard_id = 597; }, false);
  check([](Filter& f) { f.user_id = "42"; }, true);
  check([](Filter& f) { f.user_id = "4"; }, false);
  check([](Filter& f) { f.user_name = "bob"; }, false);
  check([](Filter& f) { f.user = "42"; }, true);     // by id
  check([](Filter& f) { f.user = "alice"; }, true);  // by name
  check([](Filter& f) { f.user = "bob"; }, false);
  check([](Filter& f) { f.runner = "B200"; }, true);
  check([](Filter& f) { f.runner = " b200 "; }, true);  // trimmed, ignoring case
  check([](Filter& f) { f.runner = "H100"; }, false);
  check([](Filter& f) { f.runner = "B200_Nebius"; }, false);
  check([](Filter& f) { f.passed_only = true; }, true);
  check([](Filter& f) { f.scored_only = true; }, true);
  check([](Filter& f) { f.since = 1000; }, true);  // inclusive
  check([](Filter& f) { f.since = 1001; }, false);
  check([](Filter& f) { f.until = 1000; }, false);  // exclusive
  check([](Filter& f) { f.until = 1001; }, true);
  s.runner.reset();
  s.score.reset();
  s.passed.reset();
  check([](Filter& f) { f.runner = "B200"; }, false);
  check([](Filter& f) { f.passed_only = true; }, false);
  check([](Filter& f) { f.scored_only = true; }, false);
}

// The schema of a legacy fixture file, read back from its footer.
parquet::Schema legacy_schema() {
  testing::LegacyRow row;
  auto reader = parquet::FileReader::open(
      std::make_unique<MemoryFile>("legacy", testing::legacy_file({row}, false)));
  return reader->schema();
}

TEST(Pushdown, FlatUsesEveryColumnButTheRunner) {
  auto schema = parquet::Schema::from_elements(testing::flat_schema());
  Filter f;
  f.problem = "p";
  f.user_id = "1";
  f.user_name = "n";
  f.runner = "B200";  // spellings compare ignoring case, which statistics cannot
  f.passed_only = true;
  f.scored_only = true;
  f.since = 5;
  f.until = 10;
  f.leaderboard_id = 3;
  auto p = pushdown_predicates(f, SchemaFamily::FLAT, schema, false, LeaderboardDirectory());
  ASSERT_TRUE(p);
  EXPECT_EQ(p->size(), 8u);
  for (const parquet::Predicate& predicate : *p) EXPECT_NE(predicate.column, "runner");
}

TEST(Pushdown, LegacyProblemsAreTheIdsThatHaveTheirName) {
  auto schema = legacy_schema();
  const LeaderboardDirectory registry;
  Filter f;
  f.runner = "MI300";  // a legacy run's runner is its machine's: tested once runs are grouped
  auto runner = pushdown_predicates(f, SchemaFamily::LEGACY_RUNS, schema, false, registry);
  ASSERT_TRUE(runner);
  EXPECT_TRUE(runner->empty());
  f.runner.reset();
  f.user_name = "alice";
  EXPECT_FALSE(pushdown_predicates(f, SchemaFamily::LEGACY_RUNS, schema, false, registry));
  f.user_name.reset();
  f.problem = "conv2d_v2";  // PMPP v2: no published leaderboard id to match
  EXPECT_FALSE(pushdown_predicates(f, SchemaFamily::LEGACY_RUNS, schema, false, registry));
  f.problem = "nope";
  EXPECT_FALSE(pushdown_predicates(f, SchemaFamily::LEGACY_RUNS, schema, false, registry));
  // A leaderboard of a flat config: a legacy-format file may hold it too (issue 15 item 10).
  f.problem = "nvfp4_gemv";
  auto flat_problem = pushdown_predicates(f, SchemaFamily::LEGACY_RUNS, schema, false, registry);
  ASSERT_TRUE(flat_problem);
  ASSERT_EQ(flat_problem->size(), 1u);
  EXPECT_EQ(std::get<int64_t>((*flat_problem)[0].value), 595);
  f.problem = "amd-fp8-mm";
  auto p = pushdown_predicates(f, SchemaFamily::LEGACY_RUNS, schema, false, registry);
  ASSERT_TRUE(p);
  ASSERT_EQ(p->size(), 1u);
  EXPECT_EQ((*p)[0].column, "leaderboard_id");
  EXPECT_EQ(std::get<int64_t>((*p)[0].value), 399);
  // A leaderboard no registry and no leaderboards file names, by its unnamed spelling; and a name
  // a leaderboards file gives.
  f.problem = "leaderboard-999";
  p = pushdown_predicates(f, SchemaFamily::LEGACY_RUNS, schema, false, registry);
  ASSERT_TRUE(p);
  EXPECT_EQ(std::get<int64_t>((*p)[0].value), 999);
  LeaderboardEntry named;
  named.id = 999;
  named.name = "amd-future";
  f.problem = "amd-future";
  p = pushdown_predicates(f, SchemaFamily::LEGACY_RUNS, schema, false,
                          LeaderboardDirectory({named}));
  ASSERT_TRUE(p);
  EXPECT_EQ(std::get<int64_t>((*p)[0].value), 999);
}

}  // namespace
}  // namespace kbdata::dataset
