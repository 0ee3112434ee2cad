// --exclude-flagged on top, records, fastest, extract and dedup, on a hand-made folder whose every
// value is spelled out: one leaderboard on one runner where seven users compete over ten days,
// among them one cheat (a patched timer) and one suspicious row (a score more than 10x below the
// established record it faced); and a second leaderboard where an honest kernel beats a first
// day's PyTorch baseline 24x (no record is established yet: it stays clean). Bare
// --exclude-flagged leaves out the cheats, =suspicious every flagged row; the flagged rows leave
// every analysis as if the folder did not hold them; the note on stderr counts them and names
// the users whose best rows went; stats --flagged counts them; the verdicts are those of
// `kbdata audit`, which a --user filter does not change.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
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
      int64_t time;  // hours
      std::string code;
      int64_t leaderboard;
    };
    const std::string honest = "def custom_kernel(data):\n    a, b = data\n    return a @ b\n";
    const std::string cheat =
        "import sys\nimport time\ntime.perf_counter = lambda: 0.0\nmode = sys.argv\n" + honest;
    constexpr int64_t kDay = 24;  // hours
    // toy_gemm (9001): ann, bob, cat, eve, fay, gus compete from day 0; cat patches the timer
    // (cheat); by day 9 the record (cat's 5 µs) is established, and dan's 0.4 µs beats it 12.5x
    // (suspicious). toy_mm (9002): a 600 µs baseline on day 0, kim's honest 25 µs on day 1.
    const std::vector<Row> rows = {
        {1, "ann", 1e-5, 0, honest, 9001},
        {2, "bob", 2e-5, kDay, honest, 9001},
        {3, "cat", 5e-6, 2 * kDay, cheat, 9001},
        {4, "eve", 3e-5, 3 * kDay, honest + "# e\n", 9001},
        {5, "fay", 4e-5, 4 * kDay, honest + "# f\n", 9001},
        {6, "gus", 5e-5, 5 * kDay, honest + "# g\n", 9001},
        {7, "ann", 9e-6, 8 * kDay, honest + "# v2\n", 9001},
        {8, "dan", 4e-7, 9 * kDay, honest + "# fast\n", 9001},
        {9, "base", 600e-6, 0, honest + "# baseline\n", 9002},
        {10, "kim", 25e-6, kDay, honest + "# tiled\n", 9002},
    };
    dataset::FlatFileWriter w(dir_ + "/data/toy_submissions.parquet", dataset::flat_file_columns(),
                              parquet::WriterOptions{}, {});
    for (const Row& r : rows) {
      dataset::Submission s;
      s.submission_id = r.id;
      s.leaderboard_id = r.leaderboard;
      s.problem_name = r.leaderboard == 9001 ? "toy_gemm" : "toy_mm";
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
  EXPECT_EQ(jump["submission_id"], 8);
  EXPECT_EQ(jump["verdict"], "suspicious");  // a score alone is never a cheat
  EXPECT_NE(std::string(jump["rules"]).find("record-jump"), std::string::npos) << all.out;
  // The record dan's row faced is the leaderboard's, not dan's own (dan has no earlier row).
  const auto dan = run("audit" + data() + "-f jsonl --user dan");
  ASSERT_EQ(dan.exit_code, 0) << dan.err;
  ASSERT_EQ(lines(dan.out).size(), 1u) << dan.out;
  EXPECT_EQ(lines(dan.out)[0], lines(all.out)[1]);
}

TEST_F(ExcludeFlagged, AnHonestKernelBeatingAFirstDaysBaselineIsNoJump) {
  const auto r = run("audit" + data() + "-p toy_mm -f jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const std::string& line : lines(r.out)) {
    EXPECT_EQ(nlohmann::json::parse(line)["verdict"], "clean") << line;
  }
  const auto top = run("top" + data() + "-p toy_mm -f jsonl --exclude-flagged");
  ASSERT_EQ(top.exit_code, 0) << top.err;
  EXPECT_EQ(ids(top.out), (std::vector<int64_t>{10, 9}));  // kim leads
}

TEST_F(ExcludeFlagged, TopRanksOnlyTheCleanRowsAndNamesWhoseBestRowsWent) {
  const auto plain = run("top" + data() + "-p toy_gemm -f jsonl");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(ids(plain.out), (std::vector<int64_t>{8, 3, 7, 2, 4, 5, 6}));
  // Bare: the cheats.
  const auto clean = run("top" + data() + "-p toy_gemm -f jsonl --exclude-flagged");
  ASSERT_EQ(clean.exit_code, 0) << clean.err;
  EXPECT_EQ(ids(clean.out), (std::vector<int64_t>{8, 7, 2, 4, 5, 6}));
  EXPECT_EQ(nlohmann::json::parse(lines(clean.out)[0])["rank"], 1);
  EXPECT_NE(clean.err.find("kbdata: --exclude-flagged: left out 1 of the 8 rows audited (the "
                           "cheats; 1 suspicious rows stay; kbdata audit --min-verdict cheat "
                           "lists them)"),
            std::string::npos)
      << clean.err;
  EXPECT_NE(clean.err.find("the best rows of these users are left out: cat (toy_gemm on B200, "
                           "5.00 µs, cheat)"),
            std::string::npos)
      << clean.err;
  const auto every = run("top" + data() + "-p toy_gemm -f jsonl --exclude-flagged=suspicious");
  ASSERT_EQ(every.exit_code, 0) << every.err;
  EXPECT_EQ(ids(every.out), (std::vector<int64_t>{7, 2, 4, 5, 6}));
  EXPECT_NE(every.err.find("left out 2 of the 8 rows audited (1 cheat, 1 suspicious; kbdata "
                           "audit --min-verdict suspicious lists them)"),
            std::string::npos)
      << every.err;
  EXPECT_NE(every.err.find("dan (toy_gemm on B200, 0.40 µs, suspicious); cat (toy_gemm on B200, "
                           "5.00 µs, cheat)"),
            std::string::npos)
      << every.err;
}

TEST_F(ExcludeFlagged, RecordsAreSetByCleanRowsOnly) {
  const auto plain = run("records" + data() + "-p toy_gemm -f jsonl");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(ids(plain.out), (std::vector<int64_t>{1, 3, 8}));
  // Without the cheat, ann's second row is a record.
  const auto clean = run("records" + data() + "-p toy_gemm -f jsonl --exclude-flagged");
  ASSERT_EQ(clean.exit_code, 0) << clean.err;
  EXPECT_EQ(ids(clean.out), (std::vector<int64_t>{1, 7, 8}));
  const auto every = run("records" + data() + "-p toy_gemm -f jsonl --exclude-flagged=suspicious");
  ASSERT_EQ(every.exit_code, 0) << every.err;
  EXPECT_EQ(ids(every.out), (std::vector<int64_t>{1, 7}));
}

TEST_F(ExcludeFlagged, FastestIsTheFastestCleanRow) {
  const auto clean = run("fastest" + data() + "-p toy_gemm -f jsonl --exclude-flagged");
  ASSERT_EQ(clean.exit_code, 0) << clean.err;
  EXPECT_EQ(ids(clean.out), (std::vector<int64_t>{8}));
  const auto every = run("fastest" + data() + "-p toy_gemm -f jsonl --exclude-flagged=suspicious");
  ASSERT_EQ(every.exit_code, 0) << every.err;
  EXPECT_EQ(ids(every.out), (std::vector<int64_t>{7}));
  // The user filter narrows what is audited, not the verdicts.
  const auto dan =
      run("fastest" + data() + "-p toy_gemm --user-name dan -f jsonl --exclude-flagged=suspicious");
  ASSERT_EQ(dan.exit_code, 0) << dan.err;
  EXPECT_TRUE(lines(dan.out).empty()) << dan.out;
  EXPECT_NE(dan.err.find("left out 1 of the 1 rows audited"), std::string::npos) << dan.err;
}

TEST_F(ExcludeFlagged, ExtractWritesNoFlaggedCode) {
  const std::string out = dir_ + "/top";
  const auto r = run("extract" + data() + "-p toy_gemm --top 3 --exclude-flagged --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ids(testing::read_file(out + "/manifest.jsonl")), (std::vector<int64_t>{8, 7, 2}));
}

TEST_F(ExcludeFlagged, DedupWritesNoFlaggedRowAndRecordsHowManyItLeftOut) {
  const std::string out = dir_ + "/dedup.parquet";
  const auto r =
      run("dedup " + dir_ + "/data/toy_submissions.parquet " + out + " --exact --exclude-flagged");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("rows in ", 0), 0u) << r.out;
  EXPECT_EQ(std::stoi(r.out.substr(8)), 9) << r.out;
  const auto rows = run("cat " + out + " --columns submission_id");
  ASSERT_EQ(rows.exit_code, 0) << rows.err;
  std::vector<int64_t> kept = ids(rows.out);
  std::sort(kept.begin(), kept.end());
  EXPECT_EQ(kept, (std::vector<int64_t>{1, 2, 4, 5, 6, 7, 8, 9, 10}));
  const auto meta = run("inspect " + out);
  EXPECT_NE(meta.out.find("kbdata.dedup.rows_left_out"), std::string::npos) << meta.out;
}

TEST_F(ExcludeFlagged, StatsCountsTheFlaggedRowsWhenAsked) {
  const auto flagged = run("stats" + data() + "-f jsonl --flagged");
  ASSERT_EQ(flagged.exit_code, 0) << flagged.err;
  int64_t rows = 0, suspicious = 0, cheat = 0;
  for (const std::string& line : lines(flagged.out)) {
    const auto j = nlohmann::json::parse(line);
    rows += j["rows"].get<int64_t>();
    suspicious += j["suspicious"].get<int64_t>();
    cheat += j["cheat"].get<int64_t>();
  }
  EXPECT_EQ(rows, 10);
  EXPECT_EQ(suspicious, 1);
  EXPECT_EQ(cheat, 1);
  const auto plain = run("stats" + data() + "-f jsonl");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_FALSE(nlohmann::json::parse(lines(plain.out)[0]).contains("cheat")) << plain.out;
}

TEST_F(ExcludeFlagged, ALevelOtherThanCheatOrSuspiciousIsAUsageError) {
  for (const std::string level : {"cheats", "clean", "all"}) {
    const auto r = run("top" + data() + "-p toy_gemm --exclude-flagged=" + level);
    EXPECT_EQ(r.exit_code, 2) << level;
    EXPECT_NE(r.err.find("--exclude-flagged"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
  const auto close = run("top" + data() + "-p toy_gemm --exclude-flagged=cheats");
  EXPECT_NE(close.err.find("did you mean 'cheat'?"), std::string::npos) << close.err;
  // A flag takes its level after '=' only: the word apart is named, with the spelling meant.
  const auto apart = run("top" + data() + "-p toy_gemm --exclude-flagged suspicious");
  EXPECT_EQ(apart.exit_code, 2) << apart.err;
  EXPECT_NE(apart.err.find("unexpected argument 'suspicious': --exclude-flagged takes its value "
                           "after '='; did you mean '--exclude-flagged=suspicious'?"),
            std::string::npos)
      << apart.err;
}

// The rules and their evidence are shown whole in a table: a cut list hides what fired.
TEST_F(ExcludeFlagged, TheAuditTableShowsEveryRuleThatFired) {
  const auto r = run("audit" + data() + "-p toy_gemm --min-verdict cheat --with-evidence");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("timer-patch:hard,argv-check:support"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("argv-check@4: mode = sys.argv"), std::string::npos) << r.out;
}

// A user no row has: the closest user named, as other names are.
TEST_F(ExcludeFlagged, AnUnknownUserIsNamedWithTheClosest) {
  const auto r = run("audit" + data() + "-u dab");
  EXPECT_NE(r.err.find("no user 'dab'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("did you mean 'dan'?"), std::string::npos) << r.err;
  const auto verdict = run("audit" + data() + "--min-verdict cheats");
  EXPECT_EQ(verdict.exit_code, 2);
  EXPECT_NE(verdict.err.find("did you mean 'cheat'?"), std::string::npos) << verdict.err;
}

}  // namespace
}  // namespace kbdata
