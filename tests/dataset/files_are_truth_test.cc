// The files are the truth (docs/data-model.md, "Leaderboards", "Runners and GPUs", "Spellings",
// "Repeated rows"): every problem, leaderboard, runner and config a folder's files hold is read,
// whether or not the registry knows it; the registry and a stale leaderboards file only add detail.
// Every file here is written by DuckDB, not by kbdata.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "common/error.h"
#include "dataset/loader.h"
#include "support/oracle.h"

namespace kbdata::dataset {
namespace {

namespace fs = std::filesystem;
using kbdata::testing::duckdb;
using kbdata::testing::sql_path;

class FilesAreTruth : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("kbdata-truth-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A flat file of `values`: SQL rows (submission_id, leaderboard_id, problem_name, user_id,
  // user_name, code_id, status, score, passed, runner), written by DuckDB as FILE.
  void flat(const std::string& file, const std::string& values,
            const std::string& code_id_type = "BIGINT") {
    duckdb().run(
        "COPY (SELECT submission_id::BIGINT AS submission_id, leaderboard_id::BIGINT AS "
        "leaderboard_id, problem_name, user_id, user_name, code_id::" +
        code_id_type +
        " AS code_id, 'submission.py' AS file_name, TIMESTAMPTZ '2026-01-01 00:00:00+00' + "
        "to_minutes(submission_id::BIGINT) AS submission_time, status, score::DOUBLE AS score, "
        "passed::BOOLEAN AS passed, 'leaderboard' AS mode, runner, 'print(1)' AS code FROM "
        "(VALUES " +
        values +
        ") t(submission_id, leaderboard_id, problem_name, user_id, user_name, code_id, status, "
        "score, passed, runner)) TO " +
        sql_path((dir_ / file).string()) + " (FORMAT PARQUET)");
  }

  // A legacy per-run file: rows (submission_id, leaderboard_id, user_id, run_id, run_mode,
  // run_score, run_passed, gpu, device_count), with pandas' index column.
  void legacy(const std::string& file, const std::string& values) {
    duckdb().run(
        "COPY (SELECT submission_id::BIGINT AS submission_id, leaderboard_id::BIGINT AS "
        "leaderboard_id, user_id::BIGINT AS user_id, TIMESTAMP '2025-06-01 00:00:00' + "
        "to_minutes(submission_id::BIGINT) AS submission_time, 'submission.py' AS file_name, "
        "'print(2)' AS code, submission_id::BIGINT AS code_id, run_id::BIGINT AS run_id, NULL::"
        "TIMESTAMP AS run_start_time, NULL::TIMESTAMP AS run_end_time, run_mode, "
        "run_score::DOUBLE AS run_score, run_passed::BOOLEAN AS run_passed, {'gpu': gpu, "
        "'device_count': device_count::BIGINT} AS run_system_info, (row_number() OVER () - 1)::"
        "BIGINT AS __index_level_0__ FROM (VALUES " +
        values +
        ") t(submission_id, leaderboard_id, user_id, run_id, run_mode, run_score, run_passed, gpu, "
        "device_count)) TO " +
        sql_path((dir_ / file).string()) + " (FORMAT PARQUET)");
  }

  // leaderboards.parquet: rows (id, name, gpu_types as a list literal).
  void leaderboards(const std::string& values) {
    duckdb().run(
        "COPY (SELECT id::BIGINT AS id, name, TIMESTAMPTZ '2026-02-01 00:00:00+00' AS deadline, "
        "'a description' AS description, gpu_types FROM (VALUES " +
        values + ") t(id, name, gpu_types)) TO " +
        sql_path((dir_ / "leaderboards.parquet").string()) + " (FORMAT PARQUET)");
  }

  std::vector<Submission> load(const Filter& filter, LoadStats* out_stats = nullptr) {
    DataDir d = scan_data_dir(dir_.string());
    LoadOptions options;
    options.filter = filter;
    LoadStats stats;
    std::vector<Submission> rows;
    load_dir(
        d, options, [&](Submission&& s) { rows.push_back(std::move(s)); }, stats);
    if (out_stats != nullptr) *out_stats = stats;
    return rows;
  }

  fs::path dir_;
};

// The PMPP names of the published file end in `_v2`; the registry once invented them without it and
// gated the config's problems on its list. A registered config holding problems the registry does
// not list must give them all.
TEST_F(FilesAreTruth, ARegisteredConfigGivesEveryProblemItHolds) {
  flat("pmpp_v2_submissions.parquet",
       "(1, 901, 'conv2d_v2', 'u1', 'a', 1, 'succeeded', 0.002, true, 'A100'),"
       "(2, 901, 'conv2d_v2', 'u2', 'b', 2, 'succeeded', 0.001, true, 'A100'),"
       "(3, 950, 'conv3d_v9', 'u1', 'a', 3, 'succeeded', 0.004, true, 'A100')");
  // trimul_submissions.parquet names a problem and a runner no registry lists.
  flat("trimul_submissions.parquet",
       "(10, 496, 'trimul', 'u1', 'a', 10, 'succeeded', 0.005, true, 'H200'),"
       "(11, 497, 'trimul_v2', 'u2', 'b', 11, 'succeeded', 0.006, true, 'H200')");
  Filter f;
  f.problem = "conv2d_v2";
  EXPECT_EQ(load(f).size(), 2u);
  f.problem = "conv3d_v9";
  EXPECT_EQ(load(f).size(), 1u);
  f.problem = "trimul_v2";
  std::vector<Submission> rows = load(f);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].runner, "H200");
  EXPECT_EQ(rows[0].leaderboard_id, 497);

  // What the files hold is what a folder lists; an unknown problem's message lists it.
  DataDir d = scan_data_dir(dir_.string());
  EXPECT_EQ(problems_in(read_contents(d)),
            (std::vector<std::string>{"conv2d_v2", "conv3d_v9", "trimul", "trimul_v2"}));
  try {
    require_problem(d, "conv2d");
    ADD_FAILURE() << "no error";
  } catch (const UsageError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("unknown problem 'conv2d'"), std::string::npos) << m;
    EXPECT_NE(m.find("did you mean 'conv2d_v2'?"), std::string::npos) << m;
    EXPECT_NE(m.find("(its problems: conv2d_v2, conv3d_v9, trimul, trimul_v2)"), std::string::npos)
        << m;
  }
  EXPECT_NO_THROW(require_problem(d, "trimul_v2"));
}

// A config no registry lists, with a problem and a runner no registry lists, and a legacy file of
// a leaderboard the registry does not know: read, named and noted.
TEST_F(FilesAreTruth, UnknownConfigsProblemsRunnersAndLeaderboardsAreData) {
  flat("nvidia_fp8_submissions.parquet",
       "(1, 801, 'fp8_gemm_v3', '1487256849525768244', 'Cookie 🍪', 1, 'succeeded', 3e-5, true, "
       "'GB300'),"
       "(2, 801, 'fp8_gemm_v3', 'u2', '南北绿豆糕', 2, 'succeeded', 2e-5, true, 'GB300')");
  legacy("amd_later_submissions.parquet",
         "(5, 999, 7, 50, 'leaderboard', 1e-4, true, 'AMD Instinct MI300X', 1),"
         "(5, 999, 7, 51, 'test', NULL, true, 'AMD Instinct MI300X', 1),"
         "(6, 999, 8, 52, 'leaderboard', 2e-4, true, 'AMD Instinct MI300X', 1)");
  DataDir d = scan_data_dir(dir_.string());
  ASSERT_EQ(d.files.size(), 2u);
  EXPECT_EQ(d.files[0].config, nullptr);
  EXPECT_EQ(d.files[0].family, SchemaFamily::LEGACY_RUNS);
  EXPECT_EQ(d.files[1].family, SchemaFamily::FLAT);

  LoadStats stats;
  std::vector<Submission> rows = load({}, &stats);
  ASSERT_EQ(rows.size(), 4u);
  std::map<std::string, int> per_problem;
  for (const Submission& s : rows) ++per_problem[s.problem_name];
  EXPECT_EQ(per_problem["fp8_gemm_v3"], 2);
  EXPECT_EQ(per_problem["leaderboard-999"], 2);  // neither a leaderboards file nor the registry
  // The legacy runs' machine, where no gpu_types say which runner: the device as written.
  for (const Submission& s : rows) {
    if (s.leaderboard_id == 999) {
      EXPECT_EQ(s.runner, "AMD Instinct MI300X");
    }
  }
  // One note per leaderboard the registry lacks.
  EXPECT_EQ(stats.unregistered.size(), 2u);

  Filter f;
  f.problem = "leaderboard-999";
  EXPECT_EQ(load(f).size(), 2u);
  f.problem.reset();
  f.runner = "gb300";  // runners compare ignoring case
  EXPECT_EQ(load(f).size(), 2u);

  // A leaderboards file names it, and its gpu_types give the runner on that GPU.
  leaderboards("(999, 'amd-future-mm', ['MI300'])");
  rows = load({});
  for (const Submission& s : rows) {
    if (s.leaderboard_id != 999) continue;
    EXPECT_EQ(s.problem_name, "amd-future-mm");
    EXPECT_EQ(s.runner, "MI300");
  }
  f = {};
  f.problem = "amd-future-mm";
  EXPECT_EQ(load(f).size(), 2u);
  f.runner = "MI300";
  EXPECT_EQ(load(f).size(), 2u);
}

// A stale leaderboards file (AMD rows only) adds detail to what it names and takes nothing from
// the rest; legacy runners come from its gpu_types, else the registry's.
TEST_F(FilesAreTruth, AStaleLeaderboardsFileOnlyAddsDetail) {
  leaderboards("(399, 'amd-fp8-mm', ['MI300']), (563, 'amd-all2all', ['MI300x8'])");
  flat("nvidia_nvfp4_submissions.parquet",
       "(1, 597, 'nvfp4_gemm', 'u1', 'a', 1, 'succeeded', 3e-5, true, 'NVIDIA'),"
       "(2, 730, 'nvfp4_group_gemm', 'u1', 'a', 2, 'succeeded', 4e-5, true, 'NVIDIA'),"
       "(3, 730, 'nvfp4_group_gemm', 'u2', 'b', 3, 'succeeded', 5e-5, true, 'B200')");
  legacy("submissions.parquet",
         "(5, 399, 7, 50, 'leaderboard', 1e-4, true, 'AMD Instinct MI300X', 1),"
         "(6, 563, 8, 51, 'leaderboard', 2e-4, true, 'AMD Instinct MI300X', 8),"
         "(7, 430, 9, 52, 'leaderboard', 3e-4, true, 'AMD Instinct MI300X', 1)");
  std::map<int64_t, std::vector<std::string>> runners;
  for (const Submission& s : load({})) runners[s.leaderboard_id].push_back(s.runner.value_or("-"));
  EXPECT_EQ(runners[597], std::vector<std::string>{"NVIDIA"});
  EXPECT_EQ(runners[730], (std::vector<std::string>{"NVIDIA", "B200"}));  // two runners
  EXPECT_EQ(runners[399], std::vector<std::string>{"MI300"});
  EXPECT_EQ(runners[563], std::vector<std::string>{"MI300x8"});
  EXPECT_EQ(runners[430], std::vector<std::string>{"MI300"});  // not in the file: the registry
  Filter f;
  f.problem = "amd-mixture-of-experts";  // named by the registry, the file lacks it
  EXPECT_EQ(load(f).size(), 1u);
}

// Runner and status as the platform means them: trimmed and case-folded, one canonical spelling,
// counted; a hacked status in capitals is hacked.
TEST_F(FilesAreTruth, HostileSpellingsAreOneRunnerAndOneStatus) {
  flat("trimul_submissions.parquet",
       "(1, 496, 'trimul', 'u1', 'a', 1, 'succeeded', 0.005, true, 'b200'),"
       "(2, 496, 'trimul', 'u2', 'b', 2, 'succeeded', 0.006, true, 'B200 '),"
       "(3, 496, 'trimul', 'u3', 'c', 3, 'HACKED', 0.001, true, 'B200'),"
       "(4, 496, 'trimul', 'u4', 'd', 4, 'succeeded', 0.007, true, 'gb300'),"
       "(5, 496, 'trimul', 'u5', 'e', 5, ' Succeeded', 0.008, true, 'GB300 ')");
  LoadStats stats;
  std::vector<Submission> rows = load({}, &stats);
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0].runner, "B200");
  EXPECT_EQ(rows[1].runner, "B200");
  EXPECT_EQ(rows[2].runner, "B200");
  EXPECT_EQ(rows[2].status, "hacked");
  EXPECT_FALSE(qualifies(rows[2]));
  EXPECT_EQ(rows[3].runner, "gb300");  // unknown: the first spelling met
  EXPECT_EQ(rows[4].runner, "gb300");
  EXPECT_EQ(rows[4].status, "succeeded");
  EXPECT_EQ(stats.respelled_runners, 3u);  // b200, "B200 ", "GB300 "
  EXPECT_EQ(stats.respelled_statuses, 2u);
  Filter f;
  f.runner = " b200";
  EXPECT_EQ(load(f).size(), 3u);
}

// Two spellings of one runner kbdata does not know are one runner in a row's identity too: the
// same submission under both is one row and a repeat (a regression: the key once took the spelling
// before it was made the load's).
TEST_F(FilesAreTruth, SpellingsOfAnUnknownRunnerAreOneRowIdentity) {
  flat("trimul_submissions.parquet",
       "(4, 496, 'trimul', 'u4', 'd', 4, 'succeeded', 0.007, true, 'gb300'),"
       "(4, 496, 'trimul', 'u4', 'd', 4, 'succeeded', 0.007, true, 'GB300 '),"
       "(5, 496, 'trimul', 'u5', 'e', 5, 'succeeded', 0.008, true, 'gb300')");
  LoadStats stats;
  const std::vector<Submission> rows = load({}, &stats);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].submission_id, 4);
  EXPECT_EQ(rows[1].submission_id, 5);
  ASSERT_EQ(stats.repeats.size(), 1u);
  EXPECT_EQ(stats.repeats[0].rows, 1u);
}

// A (submission_id, runner) repeated inside one file is counted once, and a copy that differs makes
// the file inconsistent, naming the id.
TEST_F(FilesAreTruth, RepeatsInsideAFileAreCountedOnceAndContradictionsNamed) {
  flat("trimul_submissions.parquet",
       "(1, 496, 'trimul', 'u1', 'a', 1, 'succeeded', 0.005, true, 'H100'),"
       "(1, 496, 'trimul', 'u1', 'a', 1, 'succeeded', 0.005, true, 'H100'),"
       "(1, 496, 'trimul', 'u1', 'a', 1, 'succeeded', 0.005, true, 'A100'),"
       "(2, 496, 'trimul', 'u2', 'b', 2, 'succeeded', 0.006, true, 'H100'),"
       "(2, 496, 'trimul', 'u9', 'b', 2, 'succeeded', 0.001, true, 'H100')");
  LoadStats stats;
  std::vector<Submission> rows = load({}, &stats);
  ASSERT_EQ(rows.size(), 3u);  // 1 on H100, 1 on A100, 2 on H100 (the first copy)
  EXPECT_EQ(rows[2].user_id, "u2");
  ASSERT_EQ(stats.repeats.size(), 1u);
  EXPECT_EQ(stats.repeats[0].file, stats.repeats[0].earlier_file);
  EXPECT_EQ(stats.repeats[0].rows, 2u);
  ASSERT_EQ(stats.inconsistent.size(), 1u);
  EXPECT_EQ(stats.inconsistent[0].submission_id, 2);
  EXPECT_EQ(stats.inconsistent[0].runner, "H100");
  EXPECT_EQ(stats.inconsistent_rows, 1u);
}

// What pandas writes for an integer column with a gap: DOUBLE with nulls. Integral values are ids,
// nulls are nulls; a fraction is an error naming the file, the column, the row and the value.
TEST_F(FilesAreTruth, PandasDoubleIdsWithGapsReadAsIdsAndNulls) {
  flat("trimul_submissions.parquet",
       "(1, 496, 'trimul', 'u1', 'a', 17, 'succeeded', 0.005, true, 'H100'),"
       "(2, 496, 'trimul', 'u2', 'b', NULL, 'succeeded', 0.006, true, 'H100')",
       "DOUBLE");
  std::vector<Submission> rows = load({});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].code_id, 17);
  EXPECT_EQ(rows[1].code_id, std::nullopt);

  flat("trimul_submissions.parquet",
       "(1, 496, 'trimul', 'u1', 'a', 17, 'succeeded', 0.005, true, 'H100'),"
       "(2, 496, 'trimul', 'u2', 'b', 2.5, 'succeeded', 0.006, true, 'H100')",
       "DOUBLE");
  try {
    (void)load({});
    ADD_FAILURE() << "no error";
  } catch (const FormatError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("trimul_submissions.parquet"), std::string::npos) << m;
    EXPECT_NE(m.find("code_id"), std::string::npos) << m;
    EXPECT_NE(m.find("row 1"), std::string::npos) << m;
    EXPECT_NE(m.find("2.5 is not an integer id"), std::string::npos) << m;
  }
}

// A user name with invalid UTF-8 is shown repaired (U+FFFD): the name shown is the name a filter
// finds, by --user-name and by --user.
TEST_F(FilesAreTruth, AUserNameIsFoundByTheTextShown) {
  duckdb().run(
      "COPY (SELECT 1::BIGINT AS submission_id, 496::BIGINT AS leaderboard_id, 'trimul' AS "
      "problem_name, 'u1' AS user_id, '\\xFFbob'::BLOB AS user_name, 1::BIGINT AS code_id, "
      "'submission.py' AS file_name, TIMESTAMPTZ '2026-01-01 00:00:00+00' AS submission_time, "
      "'succeeded' AS status, 0.005::DOUBLE AS score, true AS passed, 'leaderboard' AS mode, "
      "'H100' AS runner, 'print(1)' AS code) TO " +
      sql_path((dir_ / "trimul_submissions.parquet").string()) + " (FORMAT PARQUET)");
  const std::string shown =
      "\xEF\xBF\xBD"
      "bob";
  std::vector<Submission> rows = load({});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].user_name, shown);
  Filter f;
  f.user_name = shown;
  EXPECT_EQ(load(f).size(), 1u);
  f = {};
  f.user = shown;
  EXPECT_EQ(load(f).size(), 1u);
  f = {};
  f.user_name =
      "\xFF"
      "bob";  // the raw bytes are not a name anyone is shown
  EXPECT_EQ(load(f).size(), 0u);
}

// A problem the folder lacks but a registry config holds: the message names the config's file, and
// for a folder a command fetched, the command that fetches it.
TEST_F(FilesAreTruth, AnUnknownProblemNamesTheConfigTheFolderLacks) {
  flat("trimul_submissions.parquet",
       "(1, 496, 'trimul', 'u1', 'a', 1, 'succeeded', 0.005, true, 'H100')");
  DataDir d = scan_data_dir(dir_.string());
  d.pull_command = "kbdata pull GPUMODE/kernelbot-data --revision abc --config {config}";
  try {
    require_problem(d, "nvfp4_gemm");
    ADD_FAILURE() << "no error";
  } catch (const UsageError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("the registry places it in nvidia_nvfp4_submissions.parquet (`kbdata pull "
                     "GPUMODE/kernelbot-data --revision abc --config nvidia_nvfp4_submissions` "
                     "fetches it), which the folder lacks"),
              std::string::npos)
        << m;
  }
}

}  // namespace
}  // namespace kbdata::dataset
