// kbdata techniques on a synthetic folder (synth --scale small --seed 3): one row per submission
// row with code, each with a known language and tags, the rows of the CUDA-file leaderboards
// cuda_file, the same bytes whatever the threads, a summary per leaderboard under a table, and
// one-line errors for wrong usage.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "support/run_kbdata.h"
#include "techniques/techniques.h"

namespace {

namespace fs = std::filesystem;
using kbdata::testing::lines;
using kbdata::testing::run;

class TechniquesCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = (fs::temp_directory_path() / ("kbdata-techniques-cli-" + std::to_string(::getpid())))
               .string();
    fs::remove_all(dir_);
    const auto r = run("synth --scale small --seed 3 --out " + dir_);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }
  static std::string dir_;
};
std::string TechniquesCli::dir_;

TEST_F(TechniquesCli, OneRowPerSubmissionWithItsLanguageAndTags) {
  const auto all = run("techniques --data " + dir_ + " -f jsonl");
  ASSERT_EQ(all.exit_code, 0) << all.err;
  const auto rows = run("submissions --data " + dir_ + " -f jsonl");
  ASSERT_EQ(rows.exit_code, 0);
  EXPECT_EQ(lines(all.out).size(), lines(rows.out).size());

  const std::set<std::string> languages = {
      "thunderkittens", "cute_dsl",  "helion",  "triton",  "hip",
      "cuda",           "cuda_file", "library", "pytorch", "python"};
  std::map<std::string, int> seen;
  for (const std::string& line : lines(all.out)) {
    const auto j = nlohmann::json::parse(line);
    const std::string language = j["language"];
    EXPECT_TRUE(languages.contains(language)) << line;
    ++seen[language];
    const std::string all_languages = j["languages_all"];
    EXPECT_NE(all_languages.find(language), std::string::npos) << line;
    EXPECT_GT(j["lines"].get<int64_t>(), 0) << line;
    // synth's CUDA-file problems (PMPP grayscale, histogram, vectoradd) are CUDA files.
    const std::string problem = j["problem_name"];
    if (problem == "grayscale_v2" || problem == "histogram_v2" || problem == "vectoradd_v2") {
      EXPECT_EQ(language, "cuda_file") << line;
      EXPECT_EQ(j["kernel_lines"], j["lines"]) << line;
    }
    if (language == "triton") {
      EXPECT_GE(j["kernels"].get<int64_t>(), 1) << line;
    }
  }
  // Every language synth writes.
  for (const char* l : {"triton", "cuda", "hip", "cute_dsl", "pytorch", "cuda_file"}) {
    EXPECT_GT(seen[l], 0) << l;
  }
}

TEST_F(TechniquesCli, TheSameBytesWhateverTheThreads) {
  const auto one = run("techniques --data " + dir_ + " -f csv --threads 1");
  const auto two = run("techniques --data " + dir_ + " -f csv --threads 2");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  ASSERT_EQ(two.exit_code, 0) << two.err;
  EXPECT_EQ(one.out, two.out);
}

TEST_F(TechniquesCli, TheTableEndsWithASummaryPerLeaderboard) {
  // The first example of --help.
  const auto r = run("techniques --data " + dir_ + " -p nvfp4_gemm");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("nvfp4_gemm (597): "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" rows; language "), std::string::npos) << r.out;
  const auto help = run("techniques --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("kbdata techniques -p nvfp4_gemm"), std::string::npos);
}

TEST_F(TechniquesCli, TrendPerWeekWithItsPlot) {
  const fs::path svg = fs::path(dir_) / "trend.svg";
  const auto r =
      run("techniques --data " + dir_ + " --trend -p nvfp4_gemm -f jsonl --plot " + svg.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::set<std::string> tags;
  int64_t weeks = 0;
  for (const std::string& line : lines(r.out)) {
    const auto j = nlohmann::json::parse(line);
    EXPECT_EQ(j["problem_name"], "nvfp4_gemm");
    weeks = std::max<int64_t>(weeks, j["week"].get<int64_t>());
    tags.insert(j["tag"].get<std::string>());
    EXPECT_LE(j["submissions"].get<int64_t>(), 1000000);
    if (!j["top_share"].is_null()) {
      EXPECT_GE(j["top_share"].get<double>(), 0.0);
      EXPECT_LE(j["top_share"].get<double>(), 1.0);
      EXPECT_LE(j["top_size"].get<int64_t>(), 12) << line;  // 10, or ties at the cut
    }
  }
  EXPECT_GT(weeks, 1);
  EXPECT_TRUE(tags.contains("cuda")) << r.out;
  // Every week has a row per tag.
  EXPECT_EQ(lines(r.out).size(), static_cast<size_t>(weeks) * tags.size());
  ASSERT_TRUE(fs::exists(svg)) << r.err;
  const std::string drawn = kbdata::testing::read_file(svg.string());
  EXPECT_NE(drawn.find("class=\"kbdata-small-multiples\""), std::string::npos);
  size_t panels = 0;
  for (size_t at = drawn.find("<g class=\"panel\""); at != std::string::npos;
       at = drawn.find("<g class=\"panel\"", at + 1)) {
    ++panels;
  }
  EXPECT_EQ(panels, tags.size());
  EXPECT_NE(r.err.find("kbdata: wrote "), std::string::npos) << r.err;
}

TEST_F(TechniquesCli, WinnersAgainstTheRest) {
  const auto r = run("techniques --data " + dir_ + " --winners -p nvfp4_gemm --top 5 -f jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_FALSE(lines(r.out).empty());
  double last_lead = 2;
  for (const std::string& line : lines(r.out)) {
    const auto j = nlohmann::json::parse(line);
    EXPECT_EQ(j["runner"], "NVIDIA");  // 597's on-premise B200 machines
    EXPECT_GE(j["top_kernels"].get<int64_t>(), 5);
    const double lead = j["top_share"].get<double>() - j["rest_share"].get<double>();
    EXPECT_LE(lead, last_lead + 1e-12) << line;  // the top's lead, largest first
    last_lead = lead;
    if (!j["median_with"].is_null() && !j["median_without"].is_null()) {
      EXPECT_NEAR(j["ratio"].get<double>(),
                  j["median_with"].get<double>() / j["median_without"].get<double>(), 1e-9);
    }
  }
}

TEST_F(TechniquesCli, SubmissionsShowsTheSameLanguageAndFeatures) {
  const auto tech = run("techniques --data " + dir_ + " -p nvfp4_gemm -f jsonl");
  ASSERT_EQ(tech.exit_code, 0) << tech.err;
  std::map<int64_t, std::pair<std::string, std::string>> expected;
  for (const std::string& line : lines(tech.out)) {
    const auto j = nlohmann::json::parse(line);
    expected[j["submission_id"]] = {j["language"], j["features"]};
  }
  const auto subs = run("submissions --data " + dir_ +
                        " -p nvfp4_gemm --columns submission_id,language,features,code -f jsonl");
  ASSERT_EQ(subs.exit_code, 0) << subs.err;
  ASSERT_EQ(lines(subs.out).size(), expected.size());
  for (const std::string& line : lines(subs.out)) {
    const auto j = nlohmann::json::parse(line);
    const auto& [language, features] = expected.at(j["submission_id"]);
    EXPECT_EQ(j["language"], language) << line.substr(0, 200);
    EXPECT_EQ(j["features"], features);
    EXPECT_FALSE(j["code"].get<std::string>().empty());  // still shown beside them
  }
  // In Parquet, as string columns after the flat schema's.
  const fs::path file = fs::path(dir_) / "with-language.parquet";
  const auto parquet = run(
      "submissions --data " + dir_ +
      " -p nvfp4_gemm --columns submission_id,language,features -f parquet -o " + file.string());
  ASSERT_EQ(parquet.exit_code, 0) << parquet.err;
  const auto back = run("cat " + file.string() + " -f jsonl");
  ASSERT_EQ(back.exit_code, 0) << back.err;
  ASSERT_EQ(lines(back.out).size(), expected.size());
  for (const std::string& line : lines(back.out)) {
    const auto j = nlohmann::json::parse(line);
    EXPECT_EQ(j["language"], expected.at(j["submission_id"]).first) << line;
  }
  fs::remove(file);
}

TEST_F(TechniquesCli, ExcludeFlaggedLeavesTheAuditsFlaggedRowsOut) {
  const auto all = run("techniques --data " + dir_ + " -f jsonl");
  const auto flagged = run("audit --data " + dir_ + " -f jsonl --min-verdict suspicious");
  const auto kept = run("techniques --data " + dir_ + " -f jsonl --exclude-flagged");
  ASSERT_EQ(all.exit_code, 0) << all.err;
  ASSERT_EQ(flagged.exit_code, 0) << flagged.err;
  ASSERT_EQ(kept.exit_code, 0) << kept.err;
  std::set<int64_t> out;
  for (const std::string& line : lines(flagged.out)) {
    out.insert(nlohmann::json::parse(line)["submission_id"].get<int64_t>());
  }
  ASSERT_FALSE(out.empty());  // synth plants cheats
  EXPECT_EQ(lines(kept.out).size() + out.size(), lines(all.out).size());
  for (const std::string& line : lines(kept.out)) {
    EXPECT_FALSE(out.contains(nlohmann::json::parse(line)["submission_id"].get<int64_t>()));
  }
  EXPECT_NE(kept.err.find("--exclude-flagged: left out"), std::string::npos) << kept.err;
  const auto winners =
      run("techniques --data " + dir_ + " --winners -p nvfp4_gemm --exclude-flagged=cheat -f csv");
  EXPECT_EQ(winners.exit_code, 0) << winners.err;
}

TEST_F(TechniquesCli, WrongUsageIsOneLineAndExitTwo) {
  for (const std::string args :
       {" --trend", " --winners", " --trend --winners -p nvfp4_gemm", " -p nvfp4_gemm --plot x.svg",
        " -p nvfp4_gemm --top 3", " --trend -p nvfp4_gemm --top 0",
        " --trend -p nvfp4_gemm --plot x.png"}) {
    const auto r = run("techniques --data " + dir_ + args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    EXPECT_EQ(lines(r.err).size(), 1U) << args << ": " << r.err;
  }
  const auto format = run("techniques --data " + dir_ + " -f xml");
  EXPECT_EQ(format.exit_code, 2);
  EXPECT_EQ(lines(format.err).size(), 1U) << format.err;
  const auto flag = run("techniques --data " + dir_ + " --feature tma");
  EXPECT_EQ(flag.exit_code, 2);
  const auto range = run("techniques --data " + dir_ + " --since 2026-01-02 --until 2026-01-01");
  EXPECT_EQ(range.exit_code, 2);
  EXPECT_NE(range.err.find("empty time range"), std::string::npos) << range.err;
  const auto missing = run("techniques --data " + dir_ + "/none");
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_EQ(lines(missing.err).size(), 1U) << missing.err;
}

// A file another writer made: the KernelBot-schema sample DuckDB wrote (tests/data), read as a data
// folder. Every row gets the techniques of its code as DuckDB reads that code
// (tests/data/expected/kernelbot_sample.parquet.json), classified in process.
TEST(TechniquesOnDuckDbsFile, EveryRowAsItsCodeAsDuckDbReadsIt) {
  const fs::path sample = fs::path(KBDATA_TEST_DATA) / "kernelbot_sample.parquet";
  const fs::path folder =
      fs::temp_directory_path() / ("kbdata-techniques-duckdb-" + std::to_string(::getpid()));
  fs::create_directories(folder);
  fs::copy_file(sample, folder / "kernelbot_sample.parquet", fs::copy_options::overwrite_existing);
  const auto r = run("techniques --data " + folder.string() + " -f jsonl");
  fs::remove_all(folder);
  ASSERT_EQ(r.exit_code, 0) << r.err;

  std::ifstream in(fs::path(KBDATA_TEST_DATA) / "expected" / "kernelbot_sample.parquet.json");
  const auto duckdb = nlohmann::json::parse(in);
  std::map<int64_t, kbdata::techniques::Techniques> expected;
  for (const auto& row : duckdb) {
    if (row["code"].is_null()) continue;
    expected[std::stoll(row["submission_id"].get<std::string>())] = kbdata::techniques::classify(
        row["code"].get<std::string>(),
        row["file_name"].is_null() ? "" : row["file_name"].get<std::string>());
  }
  ASSERT_EQ(lines(r.out).size(), expected.size());
  for (const std::string& line : lines(r.out)) {
    const auto j = nlohmann::json::parse(line);
    const kbdata::techniques::Techniques& t = expected.at(j["submission_id"].get<int64_t>());
    EXPECT_EQ(j["language"], std::string(kbdata::techniques::to_string(t.language))) << line;
    EXPECT_EQ(j["features"], kbdata::techniques::features_text(t)) << line;
    EXPECT_EQ(j["lines"], t.lines) << line;
    EXPECT_EQ(j["kernels"], t.kernels) << line;
  }
}

}  // namespace
