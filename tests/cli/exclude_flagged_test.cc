// --exclude-flagged on top, records, fastest, extract and dedup, on a hand-made folder whose every
// value is spelled out: one leaderboard on one runner, two honest users, one cheat (a patched
// timer) and one suspicious row (a score more than 10x below the record it faced). The flagged
// rows leave every analysis as if the folder did not hold them; =cheat leaves the suspicious row
// in; the note on stderr counts them; stats --flagged counts them; the verdicts are those of
// `kbdata audit`, which a --user filter does not change.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "dataset/flat_file_writer.h"
#include "support/run_kbdata.h"

namespace kbdata {
namespace {

namespace fs = std::filesystem;
using testing::lines;
using testing::run;

constexpr int64_t kSecond = 1'000'000;  // µs

class ExcludeFlagged : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = (fs::temp_directory_path() / ("kbdata-exclude-flagged-" + std::to_string(::getpid())))
               .string();
    fs::remove_all(dir_);
    fs::create_directories(dir_ + "/data");
    struct Row {
      int64_t id;
      std::string user;
      double score;
      int64_t time;
      std::string code;
    };
    const std::string honest = "def custom_kernel(data):\n    a, b = data\n    return a @ b\n";
    // 1 and 4 are ann's, 2 is bob's: honest. 3 (cat) patches the timer: cheat. 5 (dan) scores
    // 20x below the record of its time (1e-5, row 1; row 3's 5e-6 is a cheat's): suspicious.
    const std::vector<Row> rows = {
        {1, "ann", 1e-5, 1, honest},
        {2, "bob", 2e-5, 2, honest},
        {3, "cat", 5e-6, 3, "import time\ntime.perf_counter = lambda: 0.0\n" + honest},
        {4, "ann", 9e-6, 4, honest + "# v2\n"},
        {5, "dan", 4e-7, 5, honest + "# fast\n"},
    };
    dataset::FlatFileWriter w(dir_ + "/data/toy_submissions.parquet", dataset::flat_file_columns(),
                              parquet::WriterOptions{}, {});
    for (const Row& r : rows) {
      dataset::Submission s;
      s.submission_id = r.id;
      s.leaderboard_id = 9001;
      s.problem_name = "toy_gemm";
      s.user_id = "id-" + r.user;
      s.user_name = r.user;
      s.code_id = 100 + r.id;
      s.file_name = "submission.py";
      s.submission_time = 1'750'000'000 * kSecond + r.time * 3600 * kSecond;
      s.status = "succeeded";
      s.score = r.score;
      s.passed = true;
      s.mode = "leaderboard";
      s.runner = "B200";
      s.code = r.code;
      w.write(s);
    }
    w.commit();
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }

  static std::string data() { return " --data " + dir_ + "/data "; }

  // The submission ids of a jsonl output, in order.
  static std::vector<int64_t> ids(const std::string& jsonl) {
    std::vector<int64_t> out;
    for (const std::string& line : lines(jsonl)) {
      out.push_back(nlohmann::json::parse(line)["submission_id"].get<int64_t>());
    }
    return out;
  }

  static std::string dir_;
};
std::string ExcludeFlagged::dir_;

TEST_F(ExcludeFlagged, TheAuditFlagsTheCheatAndTheJumpWhateverTheUserFilter) {
  const auto all = run("audit" + data() + "-f jsonl --min-verdict suspicious");
  ASSERT_EQ(all.exit_code, 0) << all.err;
  ASSERT_EQ(lines(all.out).size(), 2u) << all.out;
  const auto cheat = nlohmann::json::parse(lines(all.out)[0]);
  EXPECT_EQ(cheat["submission_id"], 3);
  EXPECT_EQ(cheat["verdict"], "cheat");
  const auto jump = nlohmann::json::parse(lines(all.out)[1]);
  EXPECT_EQ(jump["submission_id"], 5);
  EXPECT_EQ(jump["verdict"], "suspicious");
  EXPECT_NE(std::string(jump["rules"]).find("record-jump"), std::string::npos) << all.out;
  // The record dan's row faced is the leaderboard's, not dan's own (dan has no earlier row).
  const auto dan = run("audit" + data() + "-f jsonl --user dan");
  ASSERT_EQ(dan.exit_code, 0) << dan.err;
  ASSERT_EQ(lines(dan.out).size(), 1u) << dan.out;
  EXPECT_EQ(lines(dan.out)[0], lines(all.out)[1]);
}

TEST_F(ExcludeFlagged, TopRanksOnlyTheCleanRows) {
  const auto plain = run("top" + data() + "-p toy_gemm -f jsonl");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(ids(plain.out), (std::vector<int64_t>{5, 3, 4, 2}));
  const auto clean = run("top" + data() + "-p toy_gemm -f jsonl --exclude-flagged");
  ASSERT_EQ(clean.exit_code, 0) << clean.err;
  EXPECT_EQ(ids(clean.out), (std::vector<int64_t>{4, 2}));
  EXPECT_EQ(nlohmann::json::parse(lines(clean.out)[0])["rank"], 1);
  EXPECT_NE(clean.err.find("kbdata: --exclude-flagged: left out 2 of the 5 rows audited (1 cheat, "
                           "1 suspicious; kbdata audit --min-verdict suspicious lists them)"),
            std::string::npos)
      << clean.err;
  const auto no_cheat = run("top" + data() + "-p toy_gemm -f jsonl --exclude-flagged=cheat");
  ASSERT_EQ(no_cheat.exit_code, 0) << no_cheat.err;
  EXPECT_EQ(ids(no_cheat.out), (std::vector<int64_t>{5, 4, 2}));
  EXPECT_NE(no_cheat.err.find("left out 1 of the 5 rows audited (the cheats; 1 suspicious rows "
                              "stay"),
            std::string::npos)
      << no_cheat.err;
}

TEST_F(ExcludeFlagged, RecordsAreSetByCleanRowsOnly) {
  const auto plain = run("records" + data() + "-p toy_gemm -f jsonl");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(ids(plain.out), (std::vector<int64_t>{1, 3, 5}));
  // Without the cheat, ann's second row is a record.
  const auto clean = run("records" + data() + "-p toy_gemm -f jsonl --exclude-flagged");
  ASSERT_EQ(clean.exit_code, 0) << clean.err;
  EXPECT_EQ(ids(clean.out), (std::vector<int64_t>{1, 4}));
}

TEST_F(ExcludeFlagged, FastestIsTheFastestCleanRow) {
  const auto clean = run("fastest" + data() + "-p toy_gemm -f jsonl --exclude-flagged");
  ASSERT_EQ(clean.exit_code, 0) << clean.err;
  EXPECT_EQ(ids(clean.out), (std::vector<int64_t>{4}));
  const auto no_cheat = run("fastest" + data() + "-p toy_gemm -f jsonl --exclude-flagged=cheat");
  ASSERT_EQ(no_cheat.exit_code, 0) << no_cheat.err;
  EXPECT_EQ(ids(no_cheat.out), (std::vector<int64_t>{5}));
  // The user filter narrows what is audited, not the verdicts.
  const auto dan =
      run("fastest" + data() + "-p toy_gemm --user-name dan -f jsonl --exclude-flagged");
  ASSERT_EQ(dan.exit_code, 0) << dan.err;
  EXPECT_TRUE(lines(dan.out).empty()) << dan.out;
  EXPECT_NE(dan.err.find("left out 1 of the 1 rows audited"), std::string::npos) << dan.err;
}

TEST_F(ExcludeFlagged, ExtractWritesNoFlaggedCode) {
  const std::string out = dir_ + "/top";
  const auto r = run("extract" + data() + "-p toy_gemm --top 3 --exclude-flagged --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ids(testing::read_file(out + "/manifest.jsonl")), (std::vector<int64_t>{4, 2}));
}

TEST_F(ExcludeFlagged, DedupWritesNoFlaggedRowAndRecordsHowManyItLeftOut) {
  const std::string out = dir_ + "/dedup.parquet";
  const auto r =
      run("dedup " + dir_ + "/data/toy_submissions.parquet " + out + " --exact --exclude-flagged");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("rows in ", 0), 0u) << r.out;
  EXPECT_EQ(std::stoi(r.out.substr(8)), 3) << r.out;
  const auto rows = run("cat " + out + " --columns submission_id");
  ASSERT_EQ(rows.exit_code, 0) << rows.err;
  EXPECT_EQ(ids(rows.out), (std::vector<int64_t>{1, 2, 4}));
  const auto meta = run("inspect " + out);
  EXPECT_NE(meta.out.find("kbdata.dedup.rows_left_out"), std::string::npos) << meta.out;
}

TEST_F(ExcludeFlagged, StatsCountsTheFlaggedRowsWhenAsked) {
  const auto plain = run("stats" + data() + "-f jsonl");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  ASSERT_EQ(lines(plain.out).size(), 1u) << plain.out;
  EXPECT_FALSE(nlohmann::json::parse(lines(plain.out)[0]).contains("cheat")) << plain.out;
  const auto flagged = run("stats" + data() + "-f jsonl --flagged");
  ASSERT_EQ(flagged.exit_code, 0) << flagged.err;
  ASSERT_EQ(lines(flagged.out).size(), 1u) << flagged.out;
  const auto j = nlohmann::json::parse(lines(flagged.out)[0]);
  EXPECT_EQ(j["rows"], 5);
  EXPECT_EQ(j["suspicious"], 1);
  EXPECT_EQ(j["cheat"], 1);
}

TEST_F(ExcludeFlagged, ALevelOtherThanSuspiciousOrCheatIsAUsageError) {
  for (const std::string level : {"cheats", "clean", "all"}) {
    const auto r = run("top" + data() + "-p toy_gemm --exclude-flagged=" + level);
    EXPECT_EQ(r.exit_code, 2) << level;
    EXPECT_NE(r.err.find("--exclude-flagged"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
  const auto close = run("top" + data() + "-p toy_gemm --exclude-flagged=cheats");
  EXPECT_NE(close.err.find("did you mean 'cheat'?"), std::string::npos) << close.err;
  // A flag takes its level after '=' only: the next word stays an argument of its own.
  const auto apart = run("top" + data() + "-p toy_gemm --exclude-flagged cheat");
  EXPECT_EQ(apart.exit_code, 2) << apart.err;
}

}  // namespace
}  // namespace kbdata
