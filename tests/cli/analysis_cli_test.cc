// `kbdata top`, `progression` and `records`, run as a user would, on a hand-built folder whose
// answers are worked out by hand below, and on the bundled sample (notes, formats, plots).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "support/run_kbdata.h"
#include "support/submission_files.h"
#include "support/temp_dir.h"

namespace {

namespace fs = std::filesystem;
using kbdata::testing::FlatRow;
using kbdata::testing::read_file;
using kbdata::testing::Result;
using kbdata::testing::run;

constexpr int64_t kDay = int64_t{86400} * 1000000;
constexpr int64_t kStart = int64_t{1764547200} * 1000000;  // 2025-12-01T00:00:00Z

FlatRow row(int64_t id, const std::string& user, std::optional<double> score,
            std::optional<std::string> runner = "B200", int64_t leaderboard = 597) {
  FlatRow r;
  r.submission_id = id;
  r.leaderboard_id = leaderboard;
  r.problem_name = leaderboard == 597   ? "nvfp4_gemm"
                   : leaderboard == 598 ? "nvfp4_dual_gemm"
                                        : "trimul";
  r.user_id = user;
  r.user_name = "name-" + user;
  r.code_id = id;
  r.submission_time = kStart + id * kDay;
  r.score = score;
  r.passed = score.has_value();
  r.mode = score ? std::optional<std::string>("leaderboard") : std::nullopt;
  r.status = score ? "succeeded" : "failed";
  r.runner = score ? runner : std::nullopt;
  return r;
}

// nvfp4_gemm on B200:
//   u1: 5e-5 (1), failed (2), 3e-5 (4), 3e-5 (6)   best 3e-5 at id 4
//   u2: 4e-5 (3), 2e-5 (5)                         best 2e-5 at id 5
//   u3: 3e-5 (7)                                   ties u1 at 3e-5, later
//   u4: 1e-5 (8) but hacked                         never ranks
// Ranking: u2 1, u1 2, u3 2. Records: u1 5e-5 (1), u2 4e-5 (3), u1 3e-5 (4), u2 2e-5 (5).
// nvfp4_dual_gemm (598, with a note): u1 on B200 7e-5 (9).
struct Folder {
  fs::path path = fs::temp_directory_path() / ("kbdata-analysis-cli-" + std::to_string(::getpid()));
  Folder() {
    fs::create_directories(path);
    FlatRow hacked = row(8, "u4", 1e-5);
    hacked.status = "hacked";
    std::vector<FlatRow> rows = {row(1, "u1", 5e-5),
                                 row(2, "u1", std::nullopt),
                                 row(3, "u2", 4e-5),
                                 row(4, "u1", 3e-5),
                                 row(5, "u2", 2e-5),
                                 row(6, "u1", 3e-5),
                                 row(7, "u3", 3e-5),
                                 hacked,
                                 row(9, "u1", 7e-5, "B200", 598)};
    kbdata::testing::write_bytes(path / "nvidia_nvfp4_submissions.parquet",
                                 kbdata::testing::flat_file(rows));
    // trimul on two runners.
    std::vector<FlatRow> trimul = {row(20, "u1", 2e-3, "H100", 496),
                                   row(21, "u2", 1e-3, "A100", 496),
                                   row(22, "u2", 3e-3, "H100", 496)};
    kbdata::testing::write_bytes(path / "trimul_submissions.parquet",
                                 kbdata::testing::flat_file(trimul));
  }
  ~Folder() { fs::remove_all(path); }
};

const Folder kFolder;

std::string data() { return " --data " + kFolder.path.string(); }

nlohmann::json jsonl(const std::string& text) {
  nlohmann::json rows = nlohmann::json::array();
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) rows.push_back(nlohmann::json::parse(line));
  }
  return rows;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The `data-points` of each series group of an SVG chart, in order.
std::vector<int> series_points(const std::string& svg) {
  std::vector<int> out;
  std::regex series(R"re(<g class="series"[^>]*data-points="(\d+)")re");
  for (std::sregex_iterator it(svg.begin(), svg.end(), series), end; it != end; ++it) {
    out.push_back(std::stoi((*it)[1]));
  }
  return out;
}

bool one_line(const std::string& err) { return !err.empty() && err.find('\n') == err.size() - 1; }

// ---- top ----

TEST(TopCli, RanksByTheRulesWithTiesSharingARank) {
  Result r = run("top -p nvfp4_gemm -f jsonl" + data());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json rows = jsonl(r.out);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0]["user_id"], "u2");
  EXPECT_EQ(rows[0]["rank"], 1);
  EXPECT_EQ(rows[0]["score"], 2e-5);
  EXPECT_EQ(rows[0]["submission_id"], 5);
  EXPECT_EQ(rows[1]["user_id"], "u1");
  EXPECT_EQ(rows[1]["rank"], 2);
  EXPECT_EQ(rows[1]["submission_id"], 4);  // the earlier of u1's two 3e-5
  EXPECT_EQ(rows[2]["user_id"], "u3");
  EXPECT_EQ(rows[2]["rank"], 2);
  // The keys the issue names, and no note (597 has none).
  std::vector<std::string> keys;
  for (const auto& [key, value] : rows[0].items()) keys.push_back(key);
  EXPECT_EQ(keys,
            (std::vector<std::string>{"leaderboard_id", "problem_name", "rank", "runner", "score",
                                      "submission_id", "submission_time", "user_id", "user_name"}));
  EXPECT_EQ(rows[0]["leaderboard_id"], 597);
  EXPECT_EQ(rows[0]["problem_name"], "nvfp4_gemm");
  EXPECT_EQ(rows[0]["submission_time"], "2025-12-06T00:00:00.000000Z");
  EXPECT_EQ(rows[0]["user_name"], "name-u2");
  EXPECT_EQ(rows[0]["runner"], "B200");
}

TEST(TopCli, TableShowsScoresForPeopleAndLimitKeepsTies) {
  Result r = run("top -p nvfp4_gemm -n 2" + data());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("nvfp4_gemm (597) on B200: 3 users with rank <= 2"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("20.00 µs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("name-u3"), std::string::npos) << r.out;  // tied at 2
  EXPECT_NE(r.out.find("2025-12-06 00:00:00"), std::string::npos) << r.out;
  Result one = run("top -p nvfp4_gemm -n 1 -f csv" + data());
  EXPECT_EQ(count(one.out, "\n"), 2u) << one.out;  // header and u2
}

TEST(TopCli, OneRankingPerRunner) {
  Result r = run("top -p trimul -f json" + data());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json rows = nlohmann::json::parse(r.out);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0]["runner"], "A100");
  EXPECT_EQ(rows[0]["rank"], 1);
  EXPECT_EQ(rows[1]["runner"], "H100");
  EXPECT_EQ(rows[1]["user_id"], "u1");
  EXPECT_EQ(rows[1]["rank"], 1);
  EXPECT_EQ(rows[2]["rank"], 2);
  EXPECT_EQ(rows[0]["note"], "scores compare only within one runner");
  Result table = run("top -p trimul" + data());
  EXPECT_EQ(count(table.out, "trimul (496) on "), 2u) << table.out;
  Result h100 = run("top -p trimul --runner H100 -f jsonl" + data());
  EXPECT_EQ(jsonl(h100.out).size(), 2u);
}

TEST(TopCli, ReliabilityNoteAboveTheTableInJsonAndOnStderr) {
  Result table = run("top -p nvfp4_dual_gemm" + data());
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_EQ(table.out.rfind("note: nvfp4_dual_gemm (598): 598's on-premise", 0), 0u) << table.out;
  Result json = run("top -p nvfp4_dual_gemm -f json" + data());
  EXPECT_NE(nlohmann::json::parse(json.out)[0]["note"].get<std::string>().find("unreliable"),
            std::string::npos);
  Result csv = run("top -p nvfp4_dual_gemm -f csv" + data());
  EXPECT_EQ(csv.out.rfind("leaderboard_id,problem_name,rank,user_id,user_name,score,", 0), 0u)
      << csv.out;
  EXPECT_NE(csv.err.find("note: nvfp4_dual_gemm (598)"), std::string::npos) << csv.err;
}

TEST(TopCli, ParquetOutputReadsBack) {
  // Outside the data folder: a Parquet file there would be read as data by the tests after this.
  const kbdata::testing::TempDir dir("top-parquet");
  const fs::path out = fs::path(dir.path()) / "top.parquet";
  Result r = run("top -p nvfp4_gemm -f parquet -o " + out.string() + data());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Result back = run("cat " + out.string() + " --columns rank,user_id,score");
  ASSERT_EQ(back.exit_code, 0) << back.err;
  EXPECT_EQ(back.out,
            "{\"rank\":1,\"user_id\":\"u2\",\"score\":2e-05}\n"
            "{\"rank\":2,\"user_id\":\"u1\",\"score\":3e-05}\n"
            "{\"rank\":2,\"user_id\":\"u3\",\"score\":3e-05}\n");
  Result meta = run("inspect " + out.string());
  EXPECT_NE(meta.out.find("submission_time"), std::string::npos);
  EXPECT_NE(meta.out.find("TIMESTAMP"), std::string::npos) << meta.out;
  EXPECT_NE(meta.out.find("created by:  kbdata version "), std::string::npos) << meta.out;
  EXPECT_NE(meta.out.find("kbdata.rule"), std::string::npos) << meta.out;
}

TEST(TopCli, UsageErrorsAreOneLineWithExitTwo) {
  for (const std::string& args :
       {std::string("top") + data(), "top -p nope" + data(), "top -p nvfp4_gemm -n -1" + data(),
        "top -p nvfp4_gemm -f parquet" + data(), "top -p nvfp4_gemm -f csv -o x.parquet" + data(),
        "top -p nvfp4_gemm -f xml" + data()}) {
    Result r = run(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << args;
    EXPECT_NE(r.err.find("kbdata: "), std::string::npos) << args << ": " << r.err;
  }
  Result r = run("top" + data());
  EXPECT_TRUE(one_line(r.err)) << r.err;
}

TEST(TopCli, ProgressOnlyWhenAsked) {
  // Not a terminal: no progress line.
  Result quiet = run("top -p nvfp4_gemm" + data());
  EXPECT_EQ(quiet.err.find('\r'), std::string::npos);
  ::setenv("KBDATA_PROGRESS", "always", 1);
  Result shown = run("top -p nvfp4_gemm" + data());
  ::unsetenv("KBDATA_PROGRESS");
  EXPECT_NE(shown.err.find("\rkbdata: ranking nvfp4_gemm: "), std::string::npos) << shown.err;
  EXPECT_EQ(shown.out, quiet.out);
}

// ---- progression ----

TEST(ProgressionCli, RunningBestAndImprovements) {
  Result r = run("progression --user u1 -p nvfp4_gemm -f jsonl" + data());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json rows = jsonl(r.out);
  ASSERT_EQ(rows.size(), 4u);
  std::vector<int64_t> ids;
  for (const auto& row : rows) ids.push_back(row["submission_id"].get<int64_t>());
  EXPECT_EQ(ids, (std::vector<int64_t>{1, 2, 4, 6}));
  EXPECT_EQ(rows[0]["improved"], true);
  EXPECT_EQ(rows[0]["factor_first"], 1.0);
  EXPECT_EQ(rows[1]["qualifies"], false);
  EXPECT_TRUE(rows[1]["best"].is_null());  // failed, no runner
  EXPECT_EQ(rows[2]["improved"], true);
  EXPECT_DOUBLE_EQ(rows[2]["factor_previous"].get<double>(), 5.0 / 3.0);
  EXPECT_EQ(rows[3]["improved"], false);  // equal to the best
  EXPECT_EQ(rows[3]["best"], 3e-5);
  // By name too.
  Result by_name = run("progression --user name-u1 -p nvfp4_gemm -f jsonl" + data());
  EXPECT_EQ(by_name.out, r.out);
}

TEST(ProgressionCli, AnIdWinsOverNamesAndANameOfSeveralUsersIsRefused) {
  // User "u9" is also the name of users "u7" and "u8"; "twin" names both u7 and u8.
  const fs::path dir =
      fs::temp_directory_path() / ("kbdata-progression-names-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::vector<FlatRow> rows = {row(1, "u9", 5e-5), row(2, "u7", 4e-5), row(3, "u8", 3e-5)};
  rows[1].user_name = rows[2].user_name = "u9";
  FlatRow twin_a = row(4, "u7", 2e-5), twin_b = row(5, "u8", 1e-5);
  twin_a.user_name = twin_b.user_name = "twin";
  rows.push_back(twin_a);
  rows.push_back(twin_b);
  kbdata::testing::write_bytes(dir / "nvidia_nvfp4_submissions.parquet",
                               kbdata::testing::flat_file(rows));
  const std::string data = " --data " + dir.string();
  Result by_id = run("progression --user u9 -p nvfp4_gemm -f jsonl" + data);
  ASSERT_EQ(by_id.exit_code, 0) << by_id.err;
  nlohmann::json got = jsonl(by_id.out);
  ASSERT_EQ(got.size(), 1u);  // u9's own row, not the rows of the users named u9
  EXPECT_EQ(got[0]["submission_id"], 1);
  Result twin = run("progression --user twin -p nvfp4_gemm -f jsonl" + data);
  EXPECT_EQ(twin.exit_code, 2);
  EXPECT_NE(twin.err.find("belongs to several users (ids u7, u8)"), std::string::npos) << twin.err;
  Result one_name = run("progression --user name-u9 -p nvfp4_gemm -f jsonl" + data);
  ASSERT_EQ(one_name.exit_code, 0) << one_name.err;
  EXPECT_EQ(one_name.out, by_id.out);
  fs::remove_all(dir);
}

TEST(ProgressionCli, TableAndNotesAcrossProblems) {
  Result r = run("progression --user u1" + data());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Notes first (trimul's and 598's), then one section per leaderboard.
  EXPECT_EQ(r.out.rfind("note: trimul (496)", 0), 0u) << r.out;
  EXPECT_LT(r.out.find("note: nvfp4_dual_gemm (598)"), r.out.find("name-u1 (id u1) on"));
  EXPECT_NE(r.out.find("name-u1 (id u1) on nvfp4_gemm (597): 4 submission rows, 3 qualifying, "
                       "best 30.00 µs (×1.67 over the first)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("on nvfp4_dual_gemm (598)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("×1.67"), std::string::npos);
}

TEST(ProgressionCli, PlotHasTheSeriesAndPoints) {
  fs::path svg = kFolder.path / "u1.svg";
  Result r = run("progression --user u1 -p nvfp4_gemm --plot " + svg.string() + data());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = read_file(svg.string());
  EXPECT_EQ(text.rfind("<?xml", 0), 0u);
  EXPECT_NE(text.find("<g class=\"axis x\""), std::string::npos);
  EXPECT_NE(text.find("<g class=\"axis y\" data-scale=\"log\" data-unit=\"µs\""), std::string::npos)
      << text.substr(0, 2000);
  EXPECT_NE(text.find("Progression of name-u1 on nvfp4_gemm (597)"), std::string::npos);
  EXPECT_NE(text.find("score (µs)"), std::string::npos);
  // scores (3 qualifying), running best (3), new best (2).
  EXPECT_EQ(series_points(text), (std::vector<int>{3, 3, 2}));
  EXPECT_NE(text.find("×1.67"), std::string::npos);
  // The note of 598 is the subtitle of its chart.
  fs::path dual = kFolder.path / "u1-598.svg";
  ASSERT_EQ(
      run("progression --user u1 -p nvfp4_dual_gemm --plot " + dual.string() + data()).exit_code,
      0);
  EXPECT_NE(read_file(dual.string()).find("class=\"subtitle\""), std::string::npos);
}

TEST(ProgressionCli, FailuresLeaveNoPlot) {
  fs::path svg = kFolder.path / "none.svg";
  Result several = run("progression --user u1 --plot " + svg.string() + data());
  EXPECT_EQ(several.exit_code, 2) << several.err;
  EXPECT_NE(several.err.find("add --problem"), std::string::npos) << several.err;
  EXPECT_FALSE(fs::exists(svg));
  Result png = run("progression --user u1 -p nvfp4_gemm --plot x.png" + data());
  EXPECT_EQ(png.exit_code, 2);
  EXPECT_TRUE(one_line(png.err)) << png.err;
  Result nobody = run("progression --user nobody -p nvfp4_gemm --plot " + svg.string() + data());
  EXPECT_EQ(nobody.exit_code, 1);
  EXPECT_TRUE(one_line(nobody.err)) << nobody.err;
  EXPECT_NE(nobody.err.find("'nobody'"), std::string::npos);
  EXPECT_FALSE(fs::exists(svg));
  for (const auto& entry : fs::directory_iterator(kFolder.path)) {
    EXPECT_EQ(entry.path().filename().string().find(".tmp"), std::string::npos) << entry.path();
  }
}

// ---- records ----

TEST(RecordsCli, EachNewBestAcrossUsers) {
  Result r = run("records -p nvfp4_gemm -f jsonl" + data());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json rows = jsonl(r.out);
  ASSERT_EQ(rows.size(), 4u);
  std::vector<int64_t> ids;
  for (const auto& row : rows) ids.push_back(row["submission_id"].get<int64_t>());
  EXPECT_EQ(ids, (std::vector<int64_t>{1, 3, 4, 5}));
  EXPECT_TRUE(rows[0]["previous"].is_null());
  EXPECT_EQ(rows[1]["previous"], 5e-5);
  EXPECT_DOUBLE_EQ(rows[1]["factor"].get<double>(), 1.25);
  EXPECT_EQ(rows[3]["user_id"], "u2");
}

TEST(RecordsCli, PlotPerRunnerWithNote) {
  fs::path svg = kFolder.path / "trimul.svg";
  Result r = run("records -p trimul --plot " + svg.string() + data());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = read_file(svg.string());
  // A100: one record; H100: u1 2e-3 only (u2's 3e-3 is slower). Curve and marks per runner.
  EXPECT_EQ(series_points(text), (std::vector<int>{1, 1, 1, 1}));
  EXPECT_NE(text.find("data-name=\"record, A100\""), std::string::npos);
  EXPECT_NE(text.find("class=\"subtitle\""), std::string::npos);  // trimul's note
  EXPECT_NE(text.find("name-u2"), std::string::npos);
  EXPECT_NE(r.out.find("note: trimul (496)"), std::string::npos);
}

// The bundled sample: every analysis answers in every format.
TEST(AnalysisCli, EveryFormatOnTheSample) {
  for (const std::string& command :
       {std::string("top -p nvfp4_dual_gemm"), std::string("records -p nvfp4_gemm"),
        std::string("progression --user tonda -p nvfp4_dual_gemm")}) {
    Result json = run(command + " -f json");
    ASSERT_EQ(json.exit_code, 0) << command << ": " << json.err;
    nlohmann::json rows = nlohmann::json::parse(json.out);
    EXPECT_GT(rows.size(), 0u) << command;
    Result jl = run(command + " -f jsonl");
    EXPECT_EQ(jsonl(jl.out), rows) << command;
    Result csv = run(command + " -f csv");
    EXPECT_EQ(count(csv.out, "\n"), rows.size() + 1) << command;
    Result table = run(command);
    EXPECT_NE(table.out.find(" µs"), std::string::npos) << command;
  }
}

}  // namespace
