// `kbdata submissions`, `show` and `configs`, run as a user would: on the bundled sample and on
// folders of hand-built flat and legacy files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli_expect.h"
#include "support/run_kbdata.h"
#include "support/submission_files.h"

namespace {

namespace fs = std::filesystem;
using kbdata::testing::Result;
using kbdata::testing::run;

// The DuckDB-written KernelBot file of tests/data, copied alone into a folder of its own under the
// name of the config whose problems it holds (a file of another name is read too, with a note on
// stderr, which these tests of the model do not want), and these tests know its contents.
const std::string kSampleFile = std::string(KBDATA_TEST_DATA) + "/kernelbot_sample.parquet";

struct SampleFolder {
  fs::path path = fs::temp_directory_path() / ("kbdata-model-sample-" + std::to_string(::getpid()));
  SampleFolder() {
    fs::create_directories(path);
    if (fs::exists(kSampleFile)) {
      fs::copy_file(kSampleFile, path / "nvidia_nvfp4_submissions.parquet",
                    fs::copy_options::overwrite_existing);
    }
  }
  ~SampleFolder() { fs::remove_all(path); }
};

const SampleFolder kSampleFolder;
const std::string kSample = kSampleFolder.path.string();
const std::string kData = " --data " + kSample;

// The DuckDB-written KernelBot file of tests/data must be there (it is part of the repository).
#define REQUIRE_SAMPLE() ASSERT_TRUE(fs::exists(kSampleFile)) << kSampleFile

using kbdata::testing::expect_one_line_error;
using kbdata::testing::lines;

TEST(ConfigsCommand, ListsRegistryAndFilesWithRows) {
  REQUIRE_SAMPLE();
  Result r = run("configs" + kData);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("nvidia_nvfp4_submissions"), std::string::npos);
  Result j = run("configs --format json" + kData);
  ASSERT_EQ(j.exit_code, 0) << j.err;
  auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["configs"].size(), 9u);
  EXPECT_EQ(doc["configs"][0]["config"], "amd_submissions");
  EXPECT_EQ(doc["configs"][0]["present"], false);
  EXPECT_EQ(doc["configs"][2]["config"], "nvidia_nvfp4_submissions");
  EXPECT_EQ(doc["configs"][2]["rows"], 300);
  EXPECT_EQ(doc["configs"][2]["leaderboards_found"], 3);
  EXPECT_TRUE(doc["other_files"].empty());
  // What the file holds, from its rows: the problems DuckDB wrote, each on its runners.
  int64_t rows = 0;
  std::set<std::string> problems;
  for (const auto& c : doc["contents"]) {
    EXPECT_EQ(c["file"], "nvidia_nvfp4_submissions.parquet");
    rows += c["rows"].get<int64_t>();
    problems.insert(c["problem_name"].get<std::string>());
  }
  EXPECT_EQ(rows, 300);
  EXPECT_EQ(problems, (std::set<std::string>{"modal_nvfp4_dual_gemm", "nvfp4_gemm", "nvfp4_gemv"}));

  // The same file under a name no registry lists: read as its columns say, with a note.
  const fs::path other =
      fs::temp_directory_path() / ("kbdata-model-other-" + std::to_string(::getpid()));
  fs::create_directories(other);
  fs::copy_file(kSampleFile, other / "kernelbot_sample.parquet",
                fs::copy_options::overwrite_existing);
  Result o = run("configs --format json --data " + other.string());
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.err.find("kernelbot_sample.parquet is not a config kbdata knows; read as the flat "
                       "schema its columns have"),
            std::string::npos)
      << o.err;
  doc = nlohmann::json::parse(o.out);
  ASSERT_EQ(doc["other_files"].size(), 1u);
  EXPECT_EQ(doc["other_files"][0]["rows"], 300);
  EXPECT_EQ(doc["other_files"][0]["family"], "flat");
  EXPECT_EQ(doc["contents"].size(),
            j.out.empty() ? 0u : nlohmann::json::parse(j.out)["contents"].size());
  fs::remove_all(other);
}

TEST(SubmissionsCommand, FormatsAgree) {
  REQUIRE_SAMPLE();
  Result table = run("submissions" + kData);
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_EQ(lines(table.out).back(), "(300 rows)");
  EXPECT_EQ(table.out.rfind("submission_id", 0), 0u);
  EXPECT_EQ(table.err, "");

  Result json = run("submissions --format json" + kData);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  auto array = nlohmann::json::parse(json.out);
  ASSERT_EQ(array.size(), 300u);
  EXPECT_FALSE(array[0].contains("code"));
  EXPECT_TRUE(array[0].contains("runner"));

  Result jsonl = run("submissions --format jsonl" + kData);
  ASSERT_EQ(lines(jsonl.out).size(), 300u);
  EXPECT_EQ(nlohmann::json::parse(lines(jsonl.out)[0]), array[0]);

  Result csv = run("submissions --format csv --columns submission_id,score" + kData);
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  auto csv_lines = lines(csv.out);
  ASSERT_EQ(csv_lines.size(), 301u);
  EXPECT_EQ(csv_lines[0], "submission_id,score");
}

TEST(SubmissionsCommand, FiltersAndScoresInSeconds) {
  REQUIRE_SAMPLE();
  Result r = run("submissions -p nvfp4_gemm --scored --runner B200 -f json --with-code" + kData);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto array = nlohmann::json::parse(r.out);
  ASSERT_FALSE(array.empty());
  for (const auto& s : array) {
    EXPECT_EQ(s["problem_name"], "nvfp4_gemm");
    ASSERT_TRUE(s["score"].is_number());
    EXPECT_LT(s["score"].get<double>(), 0.01);  // seconds
    EXPECT_NE(s["code"].get<std::string>().find("SYNTHETIC"), std::string::npos);
  }
  Result t = run("submissions -p nvfp4_gemm --scored" + kData);
  EXPECT_NE(t.out.find(" µs"), std::string::npos) << t.out;

  Result since = run("submissions --since 2025-11-01 -f jsonl -c submission_time" + kData);
  ASSERT_EQ(since.exit_code, 0) << since.err;
  for (const auto& line : lines(since.out)) {
    EXPECT_GE(nlohmann::json::parse(line)["submission_time"].get<std::string>(), "2025-11-01");
  }
  Result none = run("submissions --user-name nobody-at-all" + kData);
  EXPECT_EQ(none.exit_code, 0);
  EXPECT_EQ(lines(none.out).back(), "(no rows)");
}

TEST(SubmissionsCommand, Errors) {
  REQUIRE_SAMPLE();
  expect_one_line_error(run("submissions -p nope" + kData), 2, "unknown problem 'nope'");
  Result r = run("submissions -p nope" + kData);
  EXPECT_NE(r.err.find("nvfp4_gemv"), std::string::npos) << r.err;  // lists the known ones
  expect_one_line_error(run("submissions --since 2025-02-30" + kData), 2, "--since '2025-02-30'");
  expect_one_line_error(run("submissions --since 2025-11-01 --until 2025-10-01" + kData), 2,
                        "empty time range");
  expect_one_line_error(run("submissions --columns nope" + kData), 2, "no field 'nope'");
  expect_one_line_error(run("submissions --format parquet" + kData), 2, "--out");
  expect_one_line_error(run("submissions --data /nonexistent/folder"), 2, "not a folder");
}

TEST(ShowCommand, OneSubmissionWithCode) {
  REQUIRE_SAMPLE();
  Result list = run("submissions -f jsonl -c submission_id --scored" + kData);
  const std::string id =
      std::to_string(nlohmann::json::parse(lines(list.out)[0])["submission_id"].get<int64_t>());
  Result r = run("show " + id + kData);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("submission " + id + "\n", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("\ncode:\n"), std::string::npos);
  EXPECT_NE(r.out.find("SYNTHETIC"), std::string::npos);
  Result j = run("show " + id + " --format json" + kData);
  auto array = nlohmann::json::parse(j.out);
  ASSERT_EQ(array.size(), 1u);
  EXPECT_TRUE(array[0]["code"].is_string());

  expect_one_line_error(run("show 1" + kData), 1, "no submission 1 in");
  Result bad = run("show notanumber" + kData);  // a parse error: the message and a usage hint
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(lines(bad.err).at(0).find("SUBMISSION_ID"), std::string::npos) << bad.err;
}

TEST(DataFolder, BundledSampleIsSaidOnceAndEnvironmentIsUsed) {
  // Whatever the bundled sample holds: it is found, said once, and loads.
  ::unsetenv("KBDATA_DATA");
  Result r = run("submissions -f jsonl -c submission_id");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find("using the bundled sample in "), std::string::npos) << r.err;
  EXPECT_FALSE(r.out.empty());
  Result configs = run("configs");
  EXPECT_EQ(configs.exit_code, 0) << configs.err;

  ::setenv("KBDATA_DATA", kSample.c_str(), 1);
  Result env = run("submissions -f jsonl -c submission_id");
  ::unsetenv("KBDATA_DATA");
  EXPECT_EQ(env.exit_code, 0) << env.err;
  EXPECT_EQ(env.err, "");
  EXPECT_EQ(lines(env.out).size(), 300u);
}

class FixtureFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("kbdata-model-cli-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    using kbdata::testing::FlatRow;
    using kbdata::testing::LegacyRow;
    std::vector<FlatRow> flat;
    for (int i = 0; i < 3; ++i) {
      FlatRow r;
      r.submission_id = 500 + i;
      r.leaderboard_id = 598;
      r.problem_name = "nvfp4_dual_gemm";
      r.user_id = "u" + std::to_string(i);
      r.user_name = "name" + std::to_string(i);
      r.submission_time = 1'760'000'000'000'000 + i;
      r.score = 2e-3 * (i + 1);
      r.passed = true;
      r.mode = "leaderboard";
      r.runner = "B200";
      r.code = "flat code";
      if (i == 1) r.file_name = std::nullopt;  // issue 15 item 13
      flat.push_back(r);
    }
    kbdata::testing::write_bytes(dir_ / "nvidia_nvfp4_submissions.parquet",
                                 kbdata::testing::flat_file(flat));
    std::vector<LegacyRow> legacy;
    for (int run = 0; run < 3; ++run) {
      LegacyRow r;
      r.submission_id = 10;
      r.leaderboard_id = 399;
      r.user_id = 5;
      r.submission_time_ms = 1'700'000'000'000;
      r.code = "\\x7072696e74282268692229";
      r.run_id = run + 1;
      r.run_mode = run == 0 ? "test" : "leaderboard";
      r.run_score = run == 0 ? std::nullopt : std::optional<double>(run * 0.5);
      r.run_passed = true;
      // Run 2 (score 0.5): means 0.25 s and 1 s, geometric mean 0.5 s; run 3 (score 1): 1 s.
      if (run == 1) r.benchmark_means = {"250000000", "1000000000.0"};
      if (run == 2) r.benchmark_means = {"1000000000"};
      legacy.push_back(r);
    }
    kbdata::testing::write_bytes(dir_ / "submissions.parquet",
                                 kbdata::testing::legacy_file(legacy, true, {}, true));
    data_ = " --data " + dir_.string();
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
  std::string data_;
};

TEST_F(FixtureFolder, NotesTravelWithScores) {
  Result table = run("submissions -p nvfp4_dual_gemm" + data_);
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_EQ(table.out.rfind("note: nvfp4_dual_gemm (598): 598's on-premise", 0), 0u) << table.out;
  Result json = run("submissions -p nvfp4_dual_gemm -f json" + data_);
  auto array = nlohmann::json::parse(json.out);
  ASSERT_EQ(array.size(), 3u);
  EXPECT_NE(array[0]["note"].get<std::string>().find("unreliable"), std::string::npos);
  Result csv = run("submissions -p nvfp4_dual_gemm -f csv" + data_);
  EXPECT_EQ(csv.out.rfind("submission_id,", 0), 0u);
  EXPECT_EQ(lines(csv.err).size(), 1u);
  EXPECT_NE(csv.err.find("note: nvfp4_dual_gemm (598)"), std::string::npos);
}

TEST_F(FixtureFolder, LegacySubmissionsInTheSameModel) {
  Result r = run("submissions -f jsonl --with-code -p amd-fp8-mm --verbose" + data_);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto rows = lines(r.out);
  ASSERT_EQ(rows.size(), 1u);
  auto s = nlohmann::json::parse(rows[0]);
  EXPECT_EQ(s["submission_id"], 10);
  EXPECT_EQ(s["problem_name"], "amd-fp8-mm");
  EXPECT_EQ(s["user_id"], "5");
  EXPECT_TRUE(s["user_name"].is_null());
  EXPECT_TRUE(s["runner"].is_null());
  EXPECT_EQ(s["score"], 0.5);
  EXPECT_EQ(s["status"], "succeeded");
  EXPECT_EQ(s["code"], "print(\"hi\")");
  EXPECT_NE(r.err.find("1 \\x hex escape(s) decoded"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("1 from a binary column"), std::string::npos) << r.err;

  Result show = run("show 10" + data_);
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find("runs (3):"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("print(\"hi\")"), std::string::npos);

  // A runner filter cannot match a legacy file: only the flat rows remain.
  Result runner = run("submissions --runner B200 -f jsonl -c submission_id" + data_);
  EXPECT_EQ(lines(runner.out).size(), 3u);
}

TEST_F(FixtureFolder, ParquetOutputReadsBack) {
  const std::string out = (dir_ / "out").string() + ".parquet";
  Result r = run("submissions --with-code -f parquet -o " + out + data_);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("note: nvfp4_dual_gemm (598)"), std::string::npos) << r.err;
  Result cat = run("cat " + out + " --columns submission_id,runner,code");
  ASSERT_EQ(cat.exit_code, 0) << cat.err;
  auto rows = lines(cat.out);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(nlohmann::json::parse(rows[3])["code"], "print(\"hi\")");
  Result inspect = run("inspect " + out);
  EXPECT_NE(inspect.out.find("submission_time (TIMESTAMP(MICROS,UTC))"), std::string::npos)
      << inspect.out;
  // kbdata's provenance, as every file kbdata writes (parquet::Provenance).
  EXPECT_NE(inspect.out.find("created by:  kbdata version "), std::string::npos) << inspect.out;
  EXPECT_NE(inspect.out.find("kbdata.rule"), std::string::npos) << inspect.out;
}

// Issue 15 item 13: a null file_name is null in every format, never "".
TEST_F(FixtureFolder, NullFileNameStaysNullInEveryFormat) {
  Result json = run("submissions -p nvfp4_dual_gemm -f json -c submission_id,file_name" + data_);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  auto array = nlohmann::json::parse(json.out);
  ASSERT_EQ(array.size(), 3u);
  EXPECT_EQ(array[0]["file_name"], "submission.py");
  EXPECT_TRUE(array[1]["file_name"].is_null()) << json.out;
  Result csv = run("submissions -p nvfp4_dual_gemm -f csv -c submission_id,file_name" + data_);
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  auto rows = lines(csv.out);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[2], "501,");  // an empty field: null ("" would be the empty string)
  Result table = run("submissions -p nvfp4_dual_gemm -c submission_id,file_name" + data_);
  EXPECT_NE(table.out.find("501  null"), std::string::npos) << table.out;
  const std::string out = (dir_ / "names").string() + ".parquet";
  Result parquet = run("submissions -p nvfp4_dual_gemm -f parquet -o " + out +
                       " -c submission_id,file_name" + data_);
  ASSERT_EQ(parquet.exit_code, 0) << parquet.err;
  Result cat = run("cat " + out + " --columns file_name");
  EXPECT_EQ(lines(cat.out)[1], "{\"file_name\":null}") << cat.out;
  Result show = run("show 501" + data_);
  EXPECT_NE(show.out.find("file_name        null"), std::string::npos) << show.out;
  Result show_json = run("show 501 -f json" + data_);
  EXPECT_TRUE(nlohmann::json::parse(show_json.out)[0]["file_name"].is_null()) << show_json.out;
}

// Issue 16 §5: run_result's benchmarks in show, in submissions --columns benchmarks, and the
// scores recomputed from them in stats.
TEST_F(FixtureFolder, LegacyRunResultsInShowSubmissionsAndStats) {
  Result show = run("show 10" + data_);
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find("benchmarks of run 2:"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("benchmarks of run 3:"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("250000000"), std::string::npos) << show.out;
  Result show_json = run("show 10 -f json" + data_);
  ASSERT_EQ(show_json.exit_code, 0) << show_json.err;
  auto runs = nlohmann::json::parse(show_json.out)[0]["runs"];
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_FALSE(runs[0].contains("benchmarks"));
  ASSERT_EQ(runs[1]["benchmarks"].size(), 2u);
  EXPECT_EQ(runs[1]["benchmarks"][1]["mean"], 1e9);
  EXPECT_EQ(runs[1]["benchmarks"][0]["std"], 1.5);
  EXPECT_EQ(runs[1]["benchmarks"][0]["runs"], 100);

  Result sub = run("submissions -f jsonl -c submission_id,benchmarks" + data_);
  ASSERT_EQ(sub.exit_code, 0) << sub.err;
  auto rows = lines(sub.out);
  ASSERT_EQ(rows.size(), 4u);
  auto legacy = nlohmann::json::parse(rows[3]);
  EXPECT_EQ(legacy["submission_id"], 10);
  ASSERT_EQ(legacy["benchmarks"].size(), 2u);  // those of run 2, which gave the score
  EXPECT_EQ(legacy["benchmarks"][0]["mean"], 2.5e8);
  EXPECT_EQ(legacy["benchmarks"][0]["worst"], 5.5);
  EXPECT_TRUE(nlohmann::json::parse(rows[0])["benchmarks"].is_null());  // flat: no results
  Result csv = run("submissions -f csv -c submission_id,benchmarks -p amd-fp8-mm" + data_);
  EXPECT_NE(csv.out.find("10,\"[{\"\"mean\"\":2.5e+08,\"\"std\"\":1.5,"), std::string::npos)
      << csv.out;
  const std::string out = (dir_ / "bench").string() + ".parquet";
  Result parquet = run("submissions -f parquet -o " + out + " -c submission_id,benchmarks" + data_);
  ASSERT_EQ(parquet.exit_code, 0) << parquet.err;
  Result cat = run("cat " + out + " --columns benchmarks");
  EXPECT_NE(cat.out.find("mean"), std::string::npos) << cat.out;

  Result stats = run("stats -f json" + data_);
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  bool seen_legacy = false;
  for (const auto& g : nlohmann::json::parse(stats.out)) {
    if (g["config"] == "amd_submissions") {
      seen_legacy = true;
      EXPECT_EQ(g["legacy_scores"], 1);
      EXPECT_EQ(g["scores_reproduced"], 1);
    } else {
      EXPECT_TRUE(g["legacy_scores"].is_null());
      EXPECT_TRUE(g["scores_reproduced"].is_null());
    }
  }
  EXPECT_TRUE(seen_legacy) << stats.out;
}

// Issue 15 item 11: NaN, infinite and negative scores never qualify; stats counts them apart.
TEST(InvalidScores, NeverRankAndStatsCountsThem) {
  const fs::path dir = fs::temp_directory_path() / ("kbdata-invalid-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::vector<kbdata::testing::FlatRow> flat;
  const double scores[] = {std::nan(""),
                           std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity(),
                           -1e-3,
                           3e-3,
                           1e-3,
                           2e-3};
  for (int i = 0; i < 7; ++i) {
    kbdata::testing::FlatRow r;
    r.submission_id = 700 + i;
    r.leaderboard_id = 597;
    r.problem_name = "nvfp4_gemm";
    r.user_id = "u" + std::to_string(i);
    r.submission_time = 1'760'000'000'000'000 + i;
    r.score = scores[i];
    r.passed = true;
    r.mode = "leaderboard";
    r.runner = "B200";
    flat.push_back(r);
  }
  kbdata::testing::write_bytes(dir / "nvidia_nvfp4_submissions.parquet",
                               kbdata::testing::flat_file(flat));
  const std::string data = " --data " + dir.string();
  Result top = run("top -p nvfp4_gemm -f jsonl" + data);
  ASSERT_EQ(top.exit_code, 0) << top.err;
  auto ranking = lines(top.out);
  ASSERT_EQ(ranking.size(), 3u) << top.out;
  EXPECT_EQ(nlohmann::json::parse(ranking[0])["score"], 1e-3);
  EXPECT_EQ(nlohmann::json::parse(ranking[2])["score"], 3e-3);
  Result stats = run("stats -f json" + data);
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  auto g = nlohmann::json::parse(stats.out)[0];
  EXPECT_EQ(g["scored"], 7);
  EXPECT_EQ(g["qualifying"], 3);
  EXPECT_EQ(g["invalid_scores"], 4);
  EXPECT_EQ(g["score_min"], 1e-3);
  EXPECT_LE(g["score_p10"].get<double>(), g["score_median"].get<double>());
  EXPECT_EQ(g["score_median"], 2e-3);
  fs::remove_all(dir);
}

}  // namespace

namespace {

// cat's rows and every report print a string in a table by one rule (common/text.h
// append_table_cell): the same hostile user name reads the same in `cat -f table` and in
// `submissions -f table`.
TEST(Tables, CatAndSubmissionsPrintAStringTheSameWay) {
  const fs::path dir =
      fs::temp_directory_path() / ("kbdata-one-rule-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  kbdata::testing::FlatRow r;
  r.submission_id = 1;
  r.leaderboard_id = 597;
  r.problem_name = "nvfp4_gemm";
  r.user_id = "u1";
  r.user_name = "evil\x1b[2J\r\xe2\x80\xae\t" + std::string(50, 'x') + "\xc3\xa9";
  r.submission_time = 1'760'000'000'000'000;
  r.score = 1e-3;
  r.passed = true;
  r.runner = "B200";
  r.code = "code";
  const fs::path file = dir / "nvidia_nvfp4_submissions.parquet";
  kbdata::testing::write_bytes(file, kbdata::testing::flat_file({r}));
  const Result cat = run("cat " + file.string() + " --columns user_name -f table");
  const Result listed = run("submissions --data " + dir.string() + " --columns user_name -f table");
  fs::remove_all(dir);
  ASSERT_EQ(cat.exit_code, 0) << cat.err;
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  // Header, dashes, the row: the row's cell is the third line of both.
  const auto cat_lines = kbdata::testing::lines(cat.out);
  const auto listed_lines = kbdata::testing::lines(listed.out);
  ASSERT_GE(cat_lines.size(), 3u) << cat.out;
  ASSERT_GE(listed_lines.size(), 3u) << listed.out;
  EXPECT_EQ(cat_lines[2], listed_lines[2]);
  EXPECT_NE(cat_lines[2].find("evil\\x1b[2J\\r\\u202e\\t"), std::string::npos) << cat_lines[2];
  EXPECT_NE(cat_lines[2].find("…"), std::string::npos) << cat_lines[2];
}

}  // namespace
