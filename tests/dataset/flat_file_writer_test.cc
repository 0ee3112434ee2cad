// FlatFileWriter: submission rows to the flat schema (docs/dataset.md §4.1) and the columns kbdata
// adds, read back by kbdata's loader and by DuckDB (tools/peers).
#include "dataset/flat_file_writer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/error.h"
#include "dataset/loader.h"
#include "parquet/file_reader.h"
#include "support/oracle.h"
#include "support/temp_dir.h"

namespace kbdata::dataset {
namespace {

namespace fs = std::filesystem;
using testing::duckdb;
using testing::sql_path;

using testing::TempDir;

// Read into memory (a LocalFile would note the path as an input of the process).
std::unique_ptr<parquet::FileReader> open_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  return parquet::FileReader::open(std::make_unique<MemoryFile>(path, std::move(bytes)));
}

Submission make_submission(int64_t i) {
  Submission s;
  s.submission_id = 1000 + i;
  s.leaderboard_id = 597;
  s.problem_name = "nvfp4_gemm";
  s.user_id = std::to_string(7'000'000 + i % 13);
  if (i % 5 != 0) s.user_name = i % 7 == 0 ? "caf\xE9" : "user" + std::to_string(i % 13);
  s.code_id = 50 + i / 3;
  if (i % 6 != 0) s.file_name = "submission.py";
  s.submission_time = 1'760'000'000'000'000 + i * 60'000'000;
  s.status = i % 4 == 0 ? "failed" : "succeeded";
  if (i % 4 != 0) s.score = 1e-5 * static_cast<double>(i + 1);
  if (i % 3 != 0) s.passed = i % 4 != 0;
  if (i % 3 != 0) s.mode = "leaderboard";
  if (i % 3 != 0) s.runner = i % 2 == 0 ? "B200" : "H100";
  s.code = "def kernel_" + std::to_string(i) + "():\n    return " + std::to_string(i * i) + "\n";
  return s;
}

TEST(FlatFileWriter, SubmissionsReadBackThroughTheLoader) {
  TempDir dir;
  const std::string path = dir.file("flat.parquet");
  std::vector<Submission> written;
  {
    parquet::Provenance provenance;
    provenance.rule = "test rows";
    FlatFileWriter w(path, flat_file_columns(), {}, provenance, {.rows = 64});
    for (int64_t i = 0; i < 500; ++i) {
      written.push_back(make_submission(i));
      w.write(written.back());
    }
    w.commit();
    EXPECT_EQ(w.rows(), 500);
  }
  auto reader = open_file(path);
  std::vector<Submission> read;
  LoadOptions options;
  options.with_code = true;
  LoadStats stats;
  load_file(
      *reader, SchemaFamily::FLAT, options, [&](Submission&& s) { read.push_back(std::move(s)); },
      stats);
  ASSERT_EQ(read.size(), written.size());
  for (size_t i = 0; i < read.size(); ++i) {
    const Submission& a = written[i];
    const Submission& b = read[i];
    SCOPED_TRACE("row " + std::to_string(i));
    EXPECT_EQ(b.submission_id, a.submission_id);
    EXPECT_EQ(b.leaderboard_id, a.leaderboard_id);
    EXPECT_EQ(b.problem_name, a.problem_name);
    EXPECT_EQ(b.user_id, a.user_id);
    // Invalid UTF-8 in a string is written with U+FFFD.
    EXPECT_EQ(b.user_name, a.user_name == "caf\xE9" ? std::optional<std::string>("caf\xEF\xBF\xBD")
                                                    : a.user_name);
    EXPECT_EQ(b.code_id, a.code_id);
    EXPECT_EQ(b.file_name, a.file_name);
    EXPECT_EQ(b.submission_time, a.submission_time);
    EXPECT_EQ(b.status, a.status);
    EXPECT_EQ(b.score, a.score);
    EXPECT_EQ(b.passed, a.passed);
    EXPECT_EQ(b.mode, a.mode);
    EXPECT_EQ(b.runner, a.runner);
    EXPECT_EQ(b.code, a.code);
  }
  EXPECT_EQ(reader->metadata().key_value_metadata[1].value, "test rows");
}

TEST(FlatFileWriter, TheSchemaIsTheFlatSchemaThenTheAddedColumns) {
  TempDir dir;
  const std::string path = dir.file("dedup.parquet");
  {
    FlatFileWriter w(path, flat_file_columns({AddedColumn::CLUSTER_ID, AddedColumn::KEPT}), {}, {});
    for (int64_t i = 0; i < 10; ++i) {
      AddedValues added;
      added.cluster_id = i / 2;
      added.kept = i % 2 == 0;
      w.write(make_submission(i), added);
    }
    w.commit();
  }
  auto described = duckdb().rows("SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM " +
                                 sql_path(path) + ")");
  std::vector<std::string> columns;
  for (const auto& r : described) columns.push_back(*r[0] + " " + *r[1]);
  EXPECT_EQ(columns, (std::vector<std::string>{
                         "submission_id BIGINT", "leaderboard_id BIGINT", "problem_name VARCHAR",
                         "user_id VARCHAR", "user_name VARCHAR", "code_id BIGINT",
                         "file_name VARCHAR", "submission_time TIMESTAMP WITH TIME ZONE",
                         "status VARCHAR", "score DOUBLE", "passed BOOLEAN", "mode VARCHAR",
                         "runner VARCHAR", "code VARCHAR", "cluster_id BIGINT", "kept BOOLEAN"}));
  // Every flat column OPTIONAL; the added ones REQUIRED.
  auto repetition = duckdb().rows("SELECT name, repetition_type FROM parquet_schema(" +
                                  sql_path(path) + ") WHERE type IS NOT NULL");
  ASSERT_EQ(repetition.size(), 16u);
  for (size_t i = 0; i < repetition.size(); ++i) {
    EXPECT_EQ(repetition[i][1], i < 14 ? "OPTIONAL" : "REQUIRED") << *repetition[i][0];
  }
  EXPECT_EQ(
      duckdb().rows("SELECT sum(cluster_id), count(*) FILTER (kept) FROM " + sql_path(path))[0],
      (std::vector<std::optional<std::string>>{"20", "5"}));
}

TEST(FlatFileWriter, ChosenColumnsInTheirOrderWithBenchmarks) {
  TempDir dir;
  const std::string path = dir.file("chosen.parquet");
  {
    FlatFileWriter w(path, {FlatFileColumn(SCORE), AddedColumn::BENCHMARKS, SUBMISSION_ID}, {}, {});
    AddedValues added;
    added.benchmarks_json = "[{\"mean\":1.5}]";
    w.write(make_submission(1), added);
    w.write(make_submission(4), {});  // no score, no benchmarks
    w.commit();
  }
  auto rows = duckdb().rows("SELECT score, CAST(benchmarks AS VARCHAR), submission_id FROM " +
                            sql_path(path));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0],
            (std::vector<std::optional<std::string>>{"2e-05", "[{\"mean\":1.5}]", "1001"}));
  EXPECT_EQ(rows[1], (std::vector<std::optional<std::string>>{std::nullopt, std::nullopt, "1004"}));
  auto types = duckdb().rows("SELECT name, logical_type, converted_type FROM parquet_schema(" +
                             sql_path(path) + ") WHERE name = 'benchmarks'");
  ASSERT_EQ(types.size(), 1u);
  EXPECT_EQ(types[0][1], "JsonType()");
  EXPECT_EQ(types[0][2], "JSON");
}

TEST(FlatFileWriter, ColumnByColumnRowsHoldNullsTheModelCannot) {
  TempDir dir;
  const std::string path = dir.file("sql.parquet");
  {
    FlatFileWriter w(path, flat_file_columns(), {}, {});
    for (int c = 0; c < kFlatColumnCount; ++c) {
      const auto column = static_cast<FlatColumn>(c);
      if (column == SUBMISSION_ID) {
        w.column<int64_t>(column).value(9);
      } else {
        w.column(column).null();  // a null status, user_id, ... as SQL may give
      }
    }
    w.end_row();
    EXPECT_THROW((void)w.column<double>(FlatFileColumn(SUBMISSION_ID)), UsageError);
    EXPECT_THROW((void)w.column(FlatFileColumn(AddedColumn::KEPT)), UsageError);
    w.commit();
  }
  auto rows =
      duckdb().rows("SELECT submission_id, status IS NULL, user_id IS NULL FROM " + sql_path(path));
  EXPECT_EQ(rows[0], (std::vector<std::optional<std::string>>{"9", "true", "true"}));
}

TEST(FlatFileWriter, AColumnGivenTwiceIsRefusedBeforeAnythingIsCreated) {
  TempDir dir;
  EXPECT_THROW(FlatFileWriter(dir.file("x.parquet"), {FlatFileColumn(CODE), CODE}, {}, {}),
               UsageError);
  EXPECT_TRUE(dir.empty());
}

}  // namespace
}  // namespace kbdata::dataset
