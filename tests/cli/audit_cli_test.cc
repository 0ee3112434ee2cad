// kbdata audit on a synthetic folder (synth --scale small --seed 3): one row per submission row,
// the planted cheats flagged by their rules, every other kernel clean, the score rules silent on
// honest scores, --min-verdict selecting, the same bytes with any number of threads.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "support/run_kbdata.h"

namespace {

namespace fs = std::filesystem;
using kbdata::testing::lines;
using kbdata::testing::run;

class AuditCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ =
        (fs::temp_directory_path() / ("kbdata-audit-cli-" + std::to_string(::getpid()))).string();
    fs::remove_all(dir_);
    const auto r = run("synth --scale small --seed 3 --out " + dir_);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }
  static std::string dir_;
};
std::string AuditCli::dir_;

TEST_F(AuditCli, PlantedCheatsAreFlaggedAndEveryOtherRowIsClean) {
  const auto all = run("audit --data " + dir_ + " -f jsonl --with-evidence");
  ASSERT_EQ(all.exit_code, 0) << all.err;
  const auto rows = run("submissions --data " + dir_ + " -f jsonl");
  ASSERT_EQ(rows.exit_code, 0);
  EXPECT_EQ(lines(all.out).size(), lines(rows.out).size());  // one row per submission row

  // The planted kinds' rules (synth/code_generator.h), and the platform's hacked mark.
  const std::set<std::string> planted = {
      "cached-output-replay", "timer-patch",         "result-pipe",  "unsynced-stream",
      "obfuscated-exec",      "fake-benchmark-line", "status-hacked"};
  int code_flagged = 0, hacked = 0;
  for (const std::string& line : lines(all.out)) {
    const auto j = nlohmann::json::parse(line);
    const std::string verdict = j["verdict"];
    const std::string rules = j["rules"];
    EXPECT_EQ(rules.find("below-physical-floor"), std::string::npos) << line;
    EXPECT_EQ(rules.find("record-jump"), std::string::npos) << line;
    if (verdict == "clean") continue;
    bool known = false;
    for (const std::string& r : planted)
      known = known || rules.find(r + ":hard") != std::string::npos;
    EXPECT_TRUE(known) << line;
    if (j["status"] == "hacked") {
      ++hacked;
      EXPECT_NE(rules.find("status-hacked:hard"), std::string::npos);
    }
    if (rules.find("status-hacked") == std::string::npos) ++code_flagged;
    EXPECT_FALSE(std::string(j["evidence"]).empty()) << line;
  }
  EXPECT_GT(code_flagged, 0);
  // About one code in 200, over some 2,000 rows.
  EXPECT_LT(code_flagged, 40);
  std::printf("audit: %d rows flagged by code rules, %d hacked\n", code_flagged, hacked);

  const auto cheats = run("audit --data " + dir_ + " -f jsonl --min-verdict cheat");
  ASSERT_EQ(cheats.exit_code, 0);
  for (const std::string& line : lines(cheats.out)) {
    EXPECT_EQ(nlohmann::json::parse(line)["verdict"], "cheat");
  }
  EXPECT_EQ(static_cast<int>(lines(cheats.out).size()), code_flagged + hacked);
}

TEST_F(AuditCli, TheTableEndsWithASummaryPerLeaderboard) {
  const auto r = run("audit --data " + dir_ + " -p nvfp4_dual_gemm --min-verdict suspicious");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("nvfp4_dual_gemm (598): "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" rows, "), std::string::npos);
}

TEST_F(AuditCli, SameBytesWithAnyThreads) {
  const auto one = run("audit --data " + dir_ + " -f csv --with-evidence --threads 1");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  for (int t : {2, 5}) {
    const auto many =
        run("audit --data " + dir_ + " -f csv --with-evidence --threads " + std::to_string(t));
    EXPECT_EQ(one.out, many.out) << t;
  }
}

TEST_F(AuditCli, ABadVerdictIsAUsageError) {
  const auto r = run("audit --data " + dir_ + " --min-verdict awful");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--min-verdict awful"), std::string::npos) << r.err;
}

}  // namespace
