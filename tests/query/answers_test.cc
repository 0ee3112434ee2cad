// The queries' answers as result tables, from rows built here (the commands' bytes are held by
// tests/golden; these hold the answers' shape and rules without a data folder).
#include <gtest/gtest.h>

#include <string>
#include <variant>
#include <vector>

#include "common/error.h"
#include "query/audit.h"
#include "query/progression.h"
#include "query/records.h"
#include "result/table.h"

namespace kbdata::query {
namespace {

dataset::Submission row(int64_t id, const std::string& user, int64_t time,
                        std::optional<double> score, const std::string& runner = "B200") {
  dataset::Submission s;
  s.submission_id = id;
  s.leaderboard_id = 597;
  s.problem_name = "nvfp4_gemm";
  s.user_id = user;
  s.user_name = "name-" + user;
  s.submission_time = time;
  s.status = score ? "succeeded" : "failed";
  s.score = score;
  s.passed = score.has_value();
  s.runner = runner;
  return s;
}

// The rows of a table, each as its cells.
std::vector<std::vector<result::Cell>> rows_of(result::ResultTable& table) {
  std::vector<std::vector<result::Cell>> out;
  table.visit([](const std::string&) {},
              [&](std::vector<result::Cell>&& cells, const result::ResultTable::Leaderboard*) {
                out.push_back(std::move(cells));
              });
  return out;
}

std::vector<std::string> names(const std::vector<result::Column>& columns) {
  std::vector<std::string> out;
  for (const result::Column& c : columns) out.push_back(c.name);
  return out;
}

size_t column(const result::ResultTable& table, const std::string& name) {
  for (size_t i = 0; i < table.columns().size(); ++i) {
    if (table.columns()[i].name == name) return i;
  }
  ADD_FAILURE() << "no column " << name;
  return 0;
}

TEST(RecordsQuery, OneSectionPerRunnerAndEachStrictlyBetterScore) {
  RecordsQuery q;
  q.add(row(1, "a", 10, 3e-5));
  q.add(row(2, "b", 20, 3e-5));  // equal: not a record
  q.add(row(3, "b", 30, 2e-5));
  q.add(row(4, "a", 40, 1e-5, "H100"));
  q.add(row(5, "c", 50, std::nullopt));  // never qualifies
  result::ResultTable t = q.finish();
  EXPECT_EQ(names(t.columns()), names(records_columns()));
  ASSERT_EQ(t.sections().size(), 2u);
  EXPECT_NE(t.sections()[0].title.find("2 records among 3 qualifying rows"), std::string::npos)
      << t.sections()[0].title;
  const auto rows = rows_of(t);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0][column(t, "submission_id")], result::Cell{int64_t{1}});
  EXPECT_EQ(rows[1][column(t, "submission_id")], result::Cell{int64_t{3}});
  EXPECT_EQ(rows[1][column(t, "previous")], result::Cell{3e-5});
  EXPECT_TRUE(std::holds_alternative<std::monostate>(rows[0][column(t, "factor")]));
  ASSERT_EQ(t.leaderboards().size(), 1u);
  EXPECT_EQ(q.series().size(), 2u);
}

TEST(ProgressionQuery, AnIdWinsOverANameAndANameOfSeveralUsersIsRefused) {
  ProgressionQuery by_id({.user = "u1"});
  by_id.add(row(1, "u1", 10, 2e-5));
  dataset::Submission named = row(2, "u9", 20, 1e-5);
  named.user_name = "u1";  // another user named like the id
  by_id.add(std::move(named));
  by_id.add(row(3, "u2", 30, 1e-5));  // neither
  result::ResultTable t = by_id.finish();
  const auto rows = rows_of(t);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0][column(t, "user_id")], result::Cell{std::string("u1")});
  EXPECT_EQ(rows[0][column(t, "improved")], result::Cell{true});

  ProgressionQuery by_name({.user = "same"});
  for (const char* user : {"x", "y"}) {
    dataset::Submission s = row(user[0], user, 10, 1e-5);
    s.user_name = "same";
    by_name.add(std::move(s));
  }
  EXPECT_THROW((void)by_name.finish(), UsageError);
}

TEST(ProgressionQuery, TheNamePassRunsOnlyWhenTheIdFindsNothing) {
  ProgressionQuery q({.user = "tonda"});
  std::vector<bool> passes_by_id;
  const dataset::LoadOptions last = q.load(
      {}, 1,
      [&](std::string_view, const dataset::LoadOptions& pass, const dataset::SubmissionSink& sink) {
        passes_by_id.push_back(pass.filter.user_id.has_value());
        if (pass.filter.user) {
          dataset::Submission s = row(1, "77", 10, 1e-5);
          s.user_name = "tonda";
          sink(std::move(s));
        }
      });
  EXPECT_EQ(passes_by_id, (std::vector<bool>{true, false}));
  EXPECT_EQ(last.filter.user, std::optional<std::string>("tonda"));
  EXPECT_FALSE(q.empty());
}

TEST(AuditQuery, RowsAtTheLeastVerdictAndASummaryOfEveryRow) {
  AuditQuery q({.min_verdict = audit::Verdict::SUSPICIOUS});
  q.add(row(1, "a", 10, 1e-5), {}, audit::Verdict::CLEAN);
  q.add(row(2, "b", 20, 1e-5), {}, audit::Verdict::CHEAT);
  EXPECT_EQ(q.audited(), 2u);
  result::ResultTable t = q.finish();
  EXPECT_EQ(names(t.columns()), names(audit_columns(false)));
  const auto rows = rows_of(t);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0][column(t, "verdict")], result::Cell{std::string("cheat")});
  ASSERT_EQ(t.summary_lines().size(), 1u);
  EXPECT_EQ(t.summary_lines()[0].rfind("nvfp4_gemm (597): 2 rows, 1 cheat, 0 suspicious", 0), 0u)
      << t.summary_lines()[0];
}

}  // namespace
}  // namespace kbdata::query
