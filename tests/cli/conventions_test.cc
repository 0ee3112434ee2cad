// The command line's conventions (docs/cli.md, "Errors, hints and empty results" and "Untrusted
// text on a terminal"): help without arguments, did-you-mean for every kind of name, conflicts and
// numbers reported as typed, empty results that explain themselves, --where and --columns checks,
// escaping of untrusted text in tables and in `show` on a terminal.
#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/cli_expect.h"
#include "support/run_kbdata.h"
#include "support/submission_files.h"

namespace {

namespace fs = std::filesystem;
using kbdata::testing::data;
using kbdata::testing::expect_one_line_error;
using kbdata::testing::lines;
using kbdata::testing::Result;
using kbdata::testing::run;

const std::string kSample = std::string(KBDATA_SOURCE_DIR) + "/data/sample";
const std::string kData = " --data " + kSample;

// A temporary folder, removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() /
            ("kbdata-conventions-" + std::to_string(::getpid()) + "-" + std::to_string(next_++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  [[nodiscard]] const fs::path& path() const { return path_; }

 private:
  static inline int next_ = 0;
  fs::path path_;
};

// ---- help and did-you-mean ----

TEST(Help, NoArgumentsPrintsTheHelp) {
  Result r = run("");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("Subcommands:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("progression"), std::string::npos) << r.out;
}

TEST(DidYouMean, UnknownCommandNamesTheClosest) {
  Result r = run("tpo");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "kbdata: unknown command 'tpo'; did you mean 'top'? (see 'kbdata --help')\n");
  // Two edits in three characters is no hint: nothing is suggested.
  r = run("foo");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "kbdata: unknown command 'foo' (see 'kbdata --help')\n");
  r = run("prgression --user x");
  EXPECT_EQ(r.err,
            "kbdata: unknown command 'prgression'; did you mean 'progression'? (see 'kbdata "
            "--help')\n");
  r = run("zzzzzzzz");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "kbdata: unknown command 'zzzzzzzz' (see 'kbdata --help')\n");
}

TEST(DidYouMean, UnknownOptionNamesTheClosestOptionOfItsCommand) {
  Result r = run("top -p nvfp4_gemm --limt 3" + kData);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "kbdata: unknown option '--limt'; did you mean '--limit'? (see 'kbdata top --help')\n");
  // The closest option of that command: cat has --columns, extract has no --colums neighbour.
  r = run("cat " + data("row_groups.parquet") + " --colums id");
  EXPECT_EQ(r.err,
            "kbdata: unknown option '--colums'; did you mean '--columns'? (see 'kbdata cat "
            "--help')\n");
  r = run("submissions --user_name x" + kData);
  EXPECT_EQ(r.err,
            "kbdata: unknown option '--user_name'; did you mean '--user-name'? (see 'kbdata "
            "submissions --help')\n");
  r = run("top -p nvfp4_gemm --frobnicate" + kData);
  EXPECT_EQ(r.err, "kbdata: unknown option '--frobnicate' (see 'kbdata top --help')\n");
  r = run("top -p nvfp4_gemm surplus" + kData);
  EXPECT_EQ(r.err, "kbdata: unexpected argument 'surplus' (see 'kbdata top --help')\n");
}

TEST(DidYouMean, MisspelledProblemNamesTheClosest) {
  Result r = run("top -p nvfp4_gem" + kData);
  expect_one_line_error(
      r, 2,
      "unknown problem 'nvfp4_gem' in " + kSample + "; did you mean 'nvfp4_gemm'? (its problems: ");
  EXPECT_NE(r.err.find(") (see 'kbdata top --help')\n"), std::string::npos) << r.err;
  expect_one_line_error(run("submissions -p trimull" + kData), 2, "did you mean 'trimul'?");
}

TEST(DidYouMean, MisspelledColumnOrFieldNamesTheClosest) {
  expect_one_line_error(run("cat " + data("kernelbot_sample.parquet") + " --columns user_nam"), 2,
                        "no column 'user_nam'; did you mean 'user_name'? (the columns: ");
  expect_one_line_error(run("cat " + data("kernelbot_sample.parquet") + " --where 'scroe < 1'"), 2,
                        "no column 'scroe'; did you mean 'score'?");
  expect_one_line_error(run("submissions --columns submission_id,scroe" + kData), 2,
                        "no field 'scroe'; did you mean 'score'? (the fields: submission_id, ");
}

TEST(DidYouMean, MisspelledConfigNamesTheClosest) {
  Result r = run("export --show-sql --config nvidia_nvfp4_submission=597");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(
      r.err,
      "kbdata: warning: config 'nvidia_nvfp4_submission' is not a published config; did you "
      "mean 'nvidia_nvfp4_submissions'? (it is written to nvidia_nvfp4_submission.parquet)\n");
  r = run("export --show-sql --config my_own_export=597");
  EXPECT_EQ(r.err, "");
}

TEST(Runner, MatchesCaseInsensitively) {
  Result upper = run("records -p trimul --runner H100 -f csv" + kData);
  Result lower = run("records -p trimul --runner h100 -f csv" + kData);
  ASSERT_EQ(upper.exit_code, 0) << upper.err;
  ASSERT_EQ(lower.exit_code, 0) << lower.err;
  EXPECT_GT(lines(upper.out).size(), 1u);
  EXPECT_EQ(lower.out, upper.out);
}

TEST(Runner, MisspelledRunnerIsExplainedWithTheClosest) {
  Result r = run("top -p trimul --runner H10" + kData);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("no file of " + kSample +
                       " holds runner 'H10' for trimul; did you mean 'H100'? (its runners: A100, "
                       "B200, H100, MI300)"),
            std::string::npos)
      << r.err;
}

// ---- conflicts and numbers ----

TEST(Conflicts, ProblemAndLeaderboardThatDisagreeAreAConflict) {
  Result r = run("submissions --leaderboard 597 -p trimul" + kData);
  expect_one_line_error(r, 2,
                        "--problem trimul and --leaderboard 597 conflict: leaderboard 597 is "
                        "nvfp4_gemm in the folder's files; give one of them (see 'kbdata "
                        "submissions --help')");
  EXPECT_EQ(r.err.find("unknown problem"), std::string::npos);
  expect_one_line_error(run("top --leaderboard 597 -p trimul" + kData), 2, "conflict");
  Result agree = run("top --leaderboard 597 -p nvfp4_gemm -f csv" + kData);
  EXPECT_EQ(agree.exit_code, 0) << agree.err;
}

TEST(Numbers, OutOfRangeIsReportedAsTypedNeverClamped) {
  Result r = run("show 99999999999999999999999" + kData);
  expect_one_line_error(r, 2, "'99999999999999999999999' is out of range");
  EXPECT_EQ(r.err.find("no submission"), std::string::npos) << r.err;
  expect_one_line_error(run("top -p nvfp4_gemm --limit -1" + kData), 2,
                        "--limit -1: must be 0 (everyone) or more");
  TempDir dir;
  expect_one_line_error(run("synth --seed -1 --out " + (dir.path() / "s").string()), 2,
                        "'-1' is negative");
  EXPECT_FALSE(fs::exists(dir.path() / "s"));
  expect_one_line_error(run("cat " + data("row_groups.parquet") + " --limit -1"), 2, "-1");
  expect_one_line_error(run("cat " + data("row_groups.parquet") + " --limit 0x10"), 2,
                        "'0x10' is not a whole number");
  // A leading zero is decimal, not octal.
  Result ten = run("cat " + data("row_groups.parquet") + " --limit 010");
  ASSERT_EQ(ten.exit_code, 0) << ten.err;
  EXPECT_EQ(lines(ten.out).size(), 10u);
}

TEST(Numbers, ThresholdSaysWhatWasTyped) {
  TempDir dir;
  Result r = run("dedup " + kSample + "/trimul_submissions.parquet " +
                 (dir.path() / "out.parquet").string() + " --fuzzy --threshold 1.0000001");
  expect_one_line_error(r, 2, "--threshold 1.0000001: must be in (0, 1]");
  EXPECT_FALSE(fs::exists(dir.path() / "out.parquet"));
}

// ---- empty results ----

TEST(EmptyResults, FiltersThatMatchNothingSaySo) {
  Result r = run("submissions -p nvfp4_gemm --user-name nobody-at-all" + kData);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err,
            "kbdata: no submissions match the filters (--problem nvfp4_gemm --user-name "
            "nobody-at-all) in " +
                kSample + "; no user 'nobody-at-all' (as id or name) among the rows selected\n");
}

TEST(EmptyResults, UnknownLeaderboardIdIsNamed) {
  Result r = run("submissions --leaderboard 123456" + kData);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "kbdata: no submissions match the filters (--leaderboard 123456) in " + kSample +
                       "; no file of " + kSample + " holds leaderboard 123456\n");
  r = run("top --leaderboard 123456" + kData);
  EXPECT_NE(r.err.find("; no file of " + kSample + " holds leaderboard 123456"), std::string::npos)
      << r.err;
}

// Legacy per-run files record their runs' machine, which gives the runner (MI300 for one MI300X):
// a --runner selects their rows, and one they do not have is explained with the runners they have.
TEST(EmptyResults, RunnerOnLegacyFilesIsTheirMachines) {
  Result r = run("top -p amd-fp8-mm --runner mi300 -f csv" + kData);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GT(lines(r.out).size(), 3u) << r.out;
  EXPECT_NE(r.out.find(",MI300\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.err, "");
  r = run("top -p amd-fp8-mm --runner H100" + kData);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("no file of " + kSample +
                       " holds runner 'H100' for amd-fp8-mm (its runners: MI300)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
}

TEST(EmptyResults, ExtractSelectingNothingCreatesNoFolder) {
  TempDir dir;
  Result r = run("extract -p nvfp4_gemm --user-name nobody-at-all --out " +
                 (dir.path() / "k").string() + kData);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("nothing selected"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir.path() / "k"));
}

// ---- --where and --columns ----

TEST(Where, AnUnbalancedQuoteIsAnError) {
  const std::string file = data("kernelbot_sample.parquet");
  expect_one_line_error(run("cat " + file + " --where \"user_name = 'alice\""), 2,
                        "--where 'user_name = 'alice': unbalanced quote in 'alice");
  expect_one_line_error(run("cat " + file + " --where \"user_name = alice'\""), 2,
                        "unbalanced quote");
  expect_one_line_error(run("cat " + file + " --where \"user_name = '\""), 2, "unbalanced quote");
  Result quoted = run("cat " + file + " --where \"user_name = 'x y'\"");
  EXPECT_EQ(quoted.exit_code, 0) << quoted.err;
}

TEST(Where, TimestampColumnsTakeIsoDatesAsSinceDoes) {
  const std::string file = data("kernelbot_sample.parquet");
  // 2025-11-01T00:00:00Z in µs.
  Result by_number =
      run("cat " + file + " --columns submission_id --where 'submission_time >= 1761955200000000'");
  Result by_date =
      run("cat " + file + " --columns submission_id --where 'submission_time >= 2025-11-01'");
  Result by_time =
      run("cat " + file +
          " --columns submission_id --where \"submission_time >= '2025-11-01T00:00Z'\"");
  ASSERT_EQ(by_number.exit_code, 0) << by_number.err;
  ASSERT_EQ(by_date.exit_code, 0) << by_date.err;
  ASSERT_EQ(by_time.exit_code, 0) << by_time.err;
  EXPECT_FALSE(by_number.out.empty());
  EXPECT_EQ(by_date.out, by_number.out);
  EXPECT_EQ(by_time.out, by_number.out);
  expect_one_line_error(run("cat " + file + " --where 'submission_time >= 2025-13-01'"), 2,
                        "2025-13-01");
}

TEST(Columns, ARepeatedColumnIsRefused) {
  expect_one_line_error(run("cat " + data("row_groups.parquet") + " --columns id,grp,id"), 2,
                        "--columns names 'id' twice (see 'kbdata cat --help')");
  expect_one_line_error(run("submissions --columns score,score" + kData), 2,
                        "--columns names 'score' twice");
}

// ---- top's machine formats name the leaderboard ----

TEST(Top, MachineRowsCarryLeaderboardAndProblem) {
  Result r = run("top -p trimul -f csv" + kData);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> rows = lines(r.out);
  ASSERT_GT(rows.size(), 1u);
  EXPECT_EQ(rows[0],
            "leaderboard_id,problem_name,rank,user_id,user_name,score,submission_id,"
            "submission_time,runner");
  EXPECT_EQ(rows[1].rfind("496,trimul,1,", 0), 0u) << rows[1];
}

// ---- untrusted text ----

class HostileText : public ::testing::Test {
 protected:
  void SetUp() override {
    kbdata::testing::FlatRow r;
    r.submission_id = 7;
    r.leaderboard_id = 597;
    r.problem_name = "nvfp4_gemm";
    r.user_id = "u1";
    r.user_name = "eve\x1b[31m\u202e";
    r.file_name = "a\u2066b.py";
    r.submission_time = 1'760'000'000'000'000;
    r.score = 1e-5;
    r.passed = true;
    r.mode = "leaderboard";
    r.runner = "B200";
    r.code = "if ok:\n\treturn 1 \u202e# comment\x1b[2J\n";
    kbdata::testing::write_bytes(dir_.path() / "nvidia_nvfp4_submissions.parquet",
                                 kbdata::testing::flat_file({r}));
    data_ = " --data " + dir_.path().string();
  }
  TempDir dir_;
  std::string data_;
};

// Runs kbdata with stdout on a pseudo-terminal and returns what it printed there.
std::string run_on_terminal(const std::string& args) {
  int master = -1;
  int slave = -1;
  if (::openpty(&master, &slave, nullptr, nullptr, nullptr) != 0) return "openpty failed";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(master);
    ::dup2(slave, STDOUT_FILENO);
    ::close(slave);
    const std::string command = std::string(KBDATA_BINARY) + " " + args + " 2>/dev/null";
    ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(slave);
  std::string out;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(master, buffer, sizeof buffer);
    if (n <= 0) break;  // EIO once the child has closed the terminal
    out.append(buffer, static_cast<size_t>(n));
  }
  ::close(master);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return out;
}

TEST_F(HostileText, TablesEscapeControlAndBidiCharacters) {
  Result r = run("submissions -c user_name,file_name,code" + data_);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("eve\\x1b[31m\\u202e"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("a\\u2066b.py"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos);
  EXPECT_EQ(r.out.find("\u202e"), std::string::npos);
  Result top = run("top -p nvfp4_gemm" + data_);
  ASSERT_EQ(top.exit_code, 0) << top.err;
  EXPECT_NE(top.out.find("eve\\x1b[31m\\u202e"), std::string::npos) << top.out;
  Result cat = run("cat " + (dir_.path() / "nvidia_nvfp4_submissions.parquet").string() +
                   " -c user_name,code -f table");
  ASSERT_EQ(cat.exit_code, 0) << cat.err;
  EXPECT_EQ(cat.out.find("\u202e"), std::string::npos) << cat.out;
  EXPECT_NE(cat.out.find("\\u202e"), std::string::npos) << cat.out;
}

TEST_F(HostileText, MachineFormatsKeepTheExactBytes) {
  Result r = run("submissions -c user_name,code -f csv" + data_);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("eve\x1b[31m\u202e"), std::string::npos);
  EXPECT_NE(r.out.find("return 1 \u202e# comment\x1b[2J"), std::string::npos);
  Result j = run("submissions -c user_name -f jsonl" + data_);
  EXPECT_EQ(nlohmann::json::parse(lines(j.out).at(0))["user_name"], "eve\x1b[31m\u202e");
}

TEST_F(HostileText, ShowEscapesOnATerminalAndKeepsTheCodeWhenPiped) {
  const std::string terminal = run_on_terminal("show 7" + data_);
  EXPECT_NE(terminal.find("eve\\x1b[31m\\u202e"), std::string::npos) << terminal;
  EXPECT_NE(terminal.find("return 1 \\u202e# comment\\x1b[2J"), std::string::npos) << terminal;
  EXPECT_EQ(terminal.find('\x1b'), std::string::npos) << terminal;
  EXPECT_EQ(terminal.find("\u202e"), std::string::npos) << terminal;
  Result piped = run("show 7" + data_);
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  // The fields stay escaped; the code is printed as stored, to be saved.
  EXPECT_NE(piped.out.find("eve\\x1b[31m\\u202e"), std::string::npos) << piped.out;
  EXPECT_NE(piped.out.find("code:\nif ok:\n\treturn 1 \u202e# comment\x1b[2J\n"), std::string::npos)
      << piped.out;
}

}  // namespace
