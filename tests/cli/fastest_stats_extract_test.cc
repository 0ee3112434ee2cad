// `kbdata fastest`, `stats` and `extract`, run as a user would: on a hand-built folder (one flat
// config, one legacy per-run file) whose results are computed by hand below, and on the medium
// synthetic data against DuckDB SQL written independently of kbdata (support/oracle.h).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli_expect.h"
#include "support/oracle.h"
#include "support/run_kbdata.h"
#include "support/submission_files.h"

namespace {

namespace fs = std::filesystem;
using kbdata::testing::FlatRow;
using kbdata::testing::LegacyRow;
using kbdata::testing::Result;
using kbdata::testing::run;
using nlohmann::json;

constexpr int64_t kT0 = 1'760'000'000'000'000;  // 2025-10-09T08:53:20Z, in µs

using kbdata::testing::expect_one_line_error;
using kbdata::testing::lines;

FlatRow flat(int64_t id, int64_t lb, const std::string& user, std::optional<double> score,
             int64_t code_id, const std::string& code, int64_t dt) {
  FlatRow r;
  r.submission_id = id;
  r.leaderboard_id = lb;
  r.problem_name = lb == 597 ? "nvfp4_gemm" : "nvfp4_dual_gemm";
  r.user_id = "u-" + user;
  r.user_name = user;
  r.code_id = code_id;
  r.code = code;
  r.submission_time = kT0 + dt;
  r.score = score;
  r.passed = score ? std::optional<bool>(true) : std::nullopt;
  r.mode = score ? std::optional<std::string>("leaderboard") : std::nullopt;
  r.runner = score ? std::optional<std::string>("B200") : std::nullopt;
  r.status = score ? "succeeded" : "failed";
  return r;
}

const std::string kTriton =
    "import torch\nimport triton\nimport triton.language as tl\n# alice v1\n\n@triton.jit\n"
    "def k(a, b):\n    c = tl.dot(tl.load(a), tl.load(b))\n";
const std::string kCuda = "__global__ void k(float* x) { __shared__ float s[32]; x[0] = s[0]; }\n";
const std::string kHacked = "import torch\n# cheat\n";
const std::string kFailed = "def custom_kernel(x):\n    return x\n";
const std::string kDual1 =
    "from torch.utils.cpp_extension import load_inline\n\nm = load_inline(name='k', "
    "cpp_sources='', cuda_sources='__global__ void k(float* x) { x[0] = 1; }')\n";
const std::string kDual2 =
    "import cutlass\nimport cutlass.cute as cute\n\n@cute.kernel\ndef k(a):\n    pass\n";

// The hand-built folder, made once per test program.
//
// nvidia_nvfp4_submissions.parquet (flat):
//   597 nvfp4_gemm: 101 alice 2e-5 code 1 (t+1); 102 bob 1e-5 code 2 .cu (t+2); 103 alice 1e-5
//     code 1 again (t+3); 104 carol 5e-6 hacked (t+4); 105 carol failed, no score (t+5)
//   598 nvfp4_dual_gemm: 201 alice 3e-5 (t+10); 202 bob 4e-5 (t+11)
// submissions.parquet (legacy, 399 amd-fp8-mm):
//   301 user 7: test run, leaderboard runs 0.002 and 0.0015 (both passed): score 0.0015; code a
//     hex escape of "import torch\n" (13 bytes decoded); 302 user 8: a failing leaderboard run;
//     code "abc"
struct HandFolder {
  fs::path path = fs::temp_directory_path() / ("kbdata-fse-" + std::to_string(::getpid()));
  HandFolder() {
    fs::create_directories(path);
    std::vector<FlatRow> rows = {flat(101, 597, "alice", 2e-5, 1, kTriton, 1),
                                 flat(102, 597, "bob", 1e-5, 2, kCuda, 2),
                                 flat(103, 597, "alice", 1e-5, 1, kTriton, 3),
                                 flat(104, 597, "carol", 5e-6, 3, kHacked, 4),
                                 flat(105, 597, "carol", std::nullopt, 4, kFailed, 5),
                                 flat(201, 598, "alice", 3e-5, 5, kDual1, 10),
                                 flat(202, 598, "bob", 4e-5, 6, kDual2, 11)};
    rows[1].file_name = "submission.cu";
    rows[3].status = "hacked";
    kbdata::testing::write_bytes(path / "nvidia_nvfp4_submissions.parquet",
                                 kbdata::testing::flat_file(rows));
    std::vector<LegacyRow> legacy;
    auto add = [&](int64_t id, int64_t user, const std::string& code, int64_t run_id,
                   const std::string& mode, std::optional<double> score, bool passed) {
      LegacyRow r;
      r.submission_id = id;
      r.leaderboard_id = 399;
      r.user_id = user;
      r.submission_time_ms = 1'700'000'000'000 + id;
      r.code = code;
      r.code_id = id + 1000;
      r.run_id = run_id;
      r.run_mode = mode;
      r.run_score = score;
      r.run_passed = passed;
      legacy.push_back(r);
    };
    const std::string hex = "\\x696d706f727420746f7263680a";  // "import torch\n"
    add(301, 7, hex, 1, "test", std::nullopt, true);
    add(301, 7, hex, 2, "leaderboard", 0.002, true);
    add(301, 7, hex, 3, "leaderboard", 0.0015, true);
    add(302, 8, "abc", 4, "leaderboard", std::nullopt, false);
    kbdata::testing::write_bytes(path / "submissions.parquet",
                                 kbdata::testing::legacy_file(legacy, true));
  }
  ~HandFolder() { fs::remove_all(path); }
};

const HandFolder kHand;
const std::string kData = " --data " + kHand.path.string();

// A scratch folder for outputs, removed at the end of each test.
struct Scratch {
  fs::path path = fs::temp_directory_path() / ("kbdata-fse-out-" + std::to_string(::getpid()) +
                                               "-" + std::to_string(std::rand()));
  Scratch() { fs::create_directories(path); }
  ~Scratch() { fs::remove_all(path); }
};

// "2025-10-09T08:53:20.000001Z" -> µs since the epoch.
int64_t micros(const std::string& text) {
  std::tm tm{};
  EXPECT_NE(::strptime(text.substr(0, 19).c_str(), "%Y-%m-%dT%H:%M:%S", &tm), nullptr) << text;
  int64_t us = static_cast<int64_t>(::timegm(&tm)) * 1'000'000;
  if (text.size() > 20 && text[19] == '.') {
    std::string frac = text.substr(20, text.find('Z') - 20);
    while (frac.size() < 6) frac += '0';
    us += std::stoll(frac.substr(0, 6));
  }
  return us;
}

std::string sha256sum(const fs::path& file) {
  FILE* pipe = ::popen(("sha256sum '" + file.string() + "'").c_str(), "r");
  char buffer[128] = {};
  std::string out = std::fgets(buffer, sizeof buffer, pipe) != nullptr ? buffer : "";
  ::pclose(pipe);
  return out.substr(0, 64);
}

// ---------------------------------------------------------------------------------------------
// fastest

TEST(Fastest, OneRowPerLeaderboardAndRunnerByHand) {
  Result r = run("fastest -f json" + kData);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json a = json::parse(r.out);
  ASSERT_EQ(a.size(), 3u) << r.out;
  // 399 (legacy, no runner): 301 with its best passed leaderboard run.
  EXPECT_EQ(a[0]["leaderboard_id"], 399);
  EXPECT_EQ(a[0]["problem_name"], "amd-fp8-mm");
  EXPECT_TRUE(a[0]["runner"].is_null());
  EXPECT_EQ(a[0]["user_id"], "7");
  EXPECT_TRUE(a[0]["user_name"].is_null());
  EXPECT_EQ(a[0]["score"].get<double>(), 0.0015);
  EXPECT_EQ(a[0]["submission_id"], 301);
  // 597: 104 (5e-6) is hacked; 102 and 103 tie at 1e-5, 102 is earlier.
  EXPECT_EQ(a[1]["leaderboard_id"], 597);
  EXPECT_EQ(a[1]["runner"], "B200");
  EXPECT_EQ(a[1]["submission_id"], 102);
  EXPECT_EQ(a[1]["user_name"], "bob");
  EXPECT_EQ(a[1]["score"].get<double>(), 1e-5);
  EXPECT_EQ(a[1]["submission_time"], "2025-10-09T08:53:20.000002Z");
  EXPECT_FALSE(a[1].contains("note"));
  EXPECT_EQ(a[2]["submission_id"], 201);
  EXPECT_NE(a[2]["note"].get<std::string>().find("unreliable"), std::string::npos);
}

TEST(Fastest, OfOneUser) {
  Result r = run("fastest -p nvfp4_gemm --user-name alice -f jsonl" + kData);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto out = lines(r.out);
  ASSERT_EQ(out.size(), 1u) << r.out;
  EXPECT_EQ(json::parse(out[0])["submission_id"], 103);
  r = run("fastest --user-id 7 -f jsonl" + kData);  // the legacy anonymised id
  ASSERT_EQ(r.exit_code, 0) << r.err;
  out = lines(r.out);
  ASSERT_EQ(out.size(), 1u) << r.out;
  EXPECT_EQ(json::parse(out[0])["submission_id"], 301);
}

TEST(Fastest, TableWithCodeBelowAndTheNote) {
  Result r = run("fastest --with-code" + kData);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("note: nvfp4_dual_gemm (598): ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("10.00 µs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("code of submission 102 (nvfp4_gemm, B200):\n" + kCuda), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("code of submission 301 (amd-fp8-mm, runner not recorded):\nimport torch\n"),
            std::string::npos)
      << r.out;
  // Code comes after the table.
  EXPECT_LT(r.out.find("submission_id"), r.out.find("code of submission"));
  Result j = run("fastest -p nvfp4_gemm --with-code -f json" + kData);
  ASSERT_EQ(j.exit_code, 0) << j.err;
  EXPECT_EQ(json::parse(j.out)[0]["code"], kCuda);
}

TEST(Fastest, NothingQualifiesIsAnEmptyResult) {
  Result r = run("fastest -p nvfp4_gemm --user-name nobody -f json" + kData);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out).size(), 0u);
  EXPECT_NE(r.err.find("no qualifying"), std::string::npos) << r.err;
}

TEST(Fastest, UsageErrors) {
  expect_one_line_error(run("fastest --user-id a --user-name b" + kData), 2, "not both");
  expect_one_line_error(run("fastest -f parquet" + kData), 2, "--out");
  expect_one_line_error(run("fastest -p no_such_problem" + kData), 2, "no_such_problem");
}

// ---------------------------------------------------------------------------------------------
// stats

TEST(Stats, CountsByHand) {
  Result r = run("stats -f json" + kData);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json a = json::parse(r.out);
  ASSERT_EQ(a.size(), 3u) << r.out;
  const json& g = a[0];
  EXPECT_EQ(g["config"], "nvidia_nvfp4_submissions");
  EXPECT_EQ(g["leaderboard_id"], 597);
  EXPECT_EQ(g["problem_name"], "nvfp4_gemm");
  EXPECT_EQ(g["runners"], "B200");
  EXPECT_EQ(g["rows"], 5);
  EXPECT_EQ(g["submissions"], 5);
  EXPECT_EQ(g["users"], 3);
  EXPECT_EQ(g["passing"], 4);
  EXPECT_EQ(g["scored"], 4);
  EXPECT_EQ(g["qualifying"], 3);  // 104 is hacked
  // Qualifying scores 1e-5, 1e-5, 2e-5: p10 at h = 0.2 and the median at h = 1 are both 1e-5.
  EXPECT_EQ(g["score_min"].get<double>(), 1e-5);
  EXPECT_DOUBLE_EQ(g["score_p10"].get<double>(), 1e-5);
  EXPECT_DOUBLE_EQ(g["score_median"].get<double>(), 1e-5);
  EXPECT_EQ(g["first_submission"], "2025-10-09T08:53:20.000001Z");
  EXPECT_EQ(g["last_submission"], "2025-10-09T08:53:20.000005Z");
  // Every row's code, 101 and 103 each (same code, two rows).
  EXPECT_EQ(g["code_bytes"], 2 * kTriton.size() + kCuda.size() + kHacked.size() + kFailed.size());
  EXPECT_FALSE(g.contains("note"));

  const json& d = a[1];
  EXPECT_EQ(d["leaderboard_id"], 598);
  EXPECT_EQ(d["rows"], 2);
  // Scores 3e-5, 4e-5: p10 = 3e-5 + 0.1 * 1e-5, the median their mean.
  EXPECT_NEAR(d["score_p10"].get<double>(), 3.1e-5, 1e-18);
  EXPECT_NEAR(d["score_median"].get<double>(), 3.5e-5, 1e-18);
  EXPECT_EQ(d["code_bytes"], kDual1.size() + kDual2.size());
  EXPECT_NE(d["note"].get<std::string>().find("unreliable"), std::string::npos);

  const json& l = a[2];
  EXPECT_EQ(l["config"], "amd_submissions");
  EXPECT_EQ(l["leaderboard_id"], 399);
  EXPECT_TRUE(l["runners"].is_null());
  EXPECT_EQ(l["rows"], 2);  // one per submission, not per run
  EXPECT_EQ(l["submissions"], 2);
  EXPECT_EQ(l["users"], 2);
  EXPECT_EQ(l["passing"], 1);
  EXPECT_EQ(l["scored"], 1);
  EXPECT_EQ(l["qualifying"], 1);
  EXPECT_EQ(l["score_min"].get<double>(), 0.0015);
  EXPECT_EQ(l["code_bytes"], 13 + 3);  // decoded hex escape, each submission's code once
}

TEST(Stats, EveryFormatParses) {
  Result table = run("stats" + kData);
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_EQ(table.out.rfind("note: nvfp4_dual_gemm (598): ", 0), 0u) << table.out;
  EXPECT_NE(table.out.find("\nnvidia_nvfp4_submissions\n"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("\namd_submissions\n"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("10.00 µs"), std::string::npos) << table.out;

  Result csv = run("stats -f csv" + kData);
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  auto csv_lines = lines(csv.out);
  ASSERT_EQ(csv_lines.size(), 4u) << csv.out;
  EXPECT_EQ(csv_lines[0],
            "config,leaderboard_id,problem_name,runners,rows,submissions,users,passing,scored,"
            "qualifying,invalid_scores,score_min,score_p10,score_median,first_submission,"
            "last_submission,code_bytes,legacy_scores,scores_reproduced");
  EXPECT_EQ(csv_lines[3].rfind("amd_submissions,399,amd-fp8-mm,,2,2,2,1,1,1,0,0.0015,", 0), 0u)
      << csv_lines[3];
  // The legacy fixture's runs hold no run_result: its one score is not reproduced.
  EXPECT_EQ(csv_lines[3].substr(csv_lines[3].size() - 4), ",1,0") << csv_lines[3];
  EXPECT_EQ(csv_lines[1].substr(csv_lines[1].size() - 2), ",,") << csv_lines[1];
  EXPECT_NE(csv.err.find("kbdata: note: nvfp4_dual_gemm (598)"), std::string::npos) << csv.err;

  Result jsonl = run("stats -f jsonl" + kData);
  ASSERT_EQ(jsonl.exit_code, 0) << jsonl.err;
  json array = json::parse(run("stats -f json" + kData).out);
  auto jl = lines(jsonl.out);
  ASSERT_EQ(jl.size(), 3u);
  for (size_t i = 0; i < jl.size(); ++i) EXPECT_EQ(json::parse(jl[i]), array[i]);

  Scratch scratch;
  const std::string file = (scratch.path / "stats.parquet").string();
  Result pq = run("stats -f parquet -o " + file + kData);
  ASSERT_EQ(pq.exit_code, 0) << pq.err;
  EXPECT_NE(pq.err.find("kbdata: note: nvfp4_dual_gemm (598)"), std::string::npos) << pq.err;
  Result back = run("cat " + file + " --format jsonl");
  ASSERT_EQ(back.exit_code, 0) << back.err;
  auto rows = lines(back.out);
  ASSERT_EQ(rows.size(), 3u);
  for (size_t i = 0; i < rows.size(); ++i) {
    json row = json::parse(rows[i]);
    EXPECT_EQ(row["config"], array[i]["config"]);
    EXPECT_EQ(row["rows"], array[i]["rows"]);
    EXPECT_EQ(row["code_bytes"], array[i]["code_bytes"]);
    EXPECT_EQ(row["score_median"], array[i]["score_median"]);
    EXPECT_EQ(row["first_submission"], array[i]["first_submission"]);
  }
}

TEST(Stats, OneProblemAndUsageErrors) {
  Result r = run("stats -p nvfp4_dual_gemm -f json" + kData);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json a = json::parse(r.out);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0]["leaderboard_id"], 598);
  expect_one_line_error(run("stats -p nope" + kData), 2, "nope");
  expect_one_line_error(run("stats -f csv -o x.parquet" + kData), 2, "--out");
}

TEST(Stats, QuietOnAPipe) {
  // Progress is for terminals: a pipe sees only the result (the notes go to a table's stdout).
  Result r = run("stats" + kData);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

// ---------------------------------------------------------------------------------------------
// extract

std::vector<json> manifest(const fs::path& dir) {
  std::vector<json> out;
  for (const std::string& line :
       lines(kbdata::testing::read_file((dir / "manifest.jsonl").string()))) {
    out.push_back(json::parse(line));
  }
  return out;
}

TEST(Extract, AllOfAProblemWithManifest) {
  Scratch scratch;
  const fs::path out = scratch.path / "export";
  Result r = run("extract -p nvfp4_gemm --all --out " + out.string() + kData);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("5 file(s)"), std::string::npos) << r.err;
  auto m = manifest(out);
  ASSERT_EQ(m.size(), 5u);
  // By runner (B200 first, runner-less last), then time.
  std::vector<int64_t> ids;
  for (const json& e : m) ids.push_back(e["submission_id"]);
  EXPECT_EQ(ids, (std::vector<int64_t>{101, 102, 103, 104, 105}));
  EXPECT_EQ(m[0]["path"], "nvfp4_gemm/B200/user-u-alice_101.py");
  // What each kernel uses (docs/techniques.md).
  EXPECT_EQ(m[0]["language"], "triton");
  EXPECT_EQ(m[0]["languages_all"], json({"triton", "pytorch"}));
  EXPECT_EQ(m[0]["features"], json({"tensor_cores"}));
  EXPECT_EQ(m[0]["kernels"], 1);
  EXPECT_EQ(m[1]["path"], "nvfp4_gemm/B200/user-u-bob_102.cu");
  EXPECT_EQ(m[1]["language"], "cuda_file");
  EXPECT_EQ(m[1]["features"], json({"shared_memory"}));
  EXPECT_EQ(m[1]["lines"], 1);
  EXPECT_EQ(m[1]["kernel_lines"], 1);
  EXPECT_EQ(m[4]["path"], "nvfp4_gemm/no-runner/user-u-carol_105.py");
  EXPECT_EQ(m[4]["language"], "pytorch");  // custom_kernel: the harness hands it tensors
  EXPECT_TRUE(m[4]["score"].is_null());
  EXPECT_TRUE(m[4]["runner"].is_null());
  const json& e = m[1];
  EXPECT_EQ(e["problem_name"], "nvfp4_gemm");
  EXPECT_EQ(e["leaderboard_id"], 597);
  EXPECT_EQ(e["user_id"], "u-bob");
  EXPECT_EQ(e["user_name"], "bob");
  EXPECT_EQ(e["score"].get<double>(), 1e-5);
  EXPECT_EQ(e["passed"], true);
  EXPECT_EQ(e["runner"], "B200");
  EXPECT_EQ(e["submission_time"], "2025-10-09T08:53:20.000002Z");
  EXPECT_EQ(e["code_id"], 2);
  EXPECT_EQ(e["bytes"], kCuda.size());
  for (const json& f : m) {
    const fs::path file = out / f["path"].get<std::string>();
    ASSERT_TRUE(fs::exists(file)) << file;
    EXPECT_EQ(f["bytes"].get<uint64_t>(), fs::file_size(file));
    EXPECT_EQ(f["sha256"], sha256sum(file)) << file;
  }
  EXPECT_EQ(kbdata::testing::read_file((out / m[1]["path"].get<std::string>()).string()), kCuda);
  // Nothing else beside the export.
  EXPECT_EQ(std::distance(fs::directory_iterator(scratch.path), fs::directory_iterator()), 1);
}

TEST(Extract, TopUsersAndNotes) {
  Scratch scratch;
  const fs::path out = scratch.path / "top";
  Result r = run("extract -p nvfp4_gemm --top 1 --out " + out.string() + kData);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto m = manifest(out);
  // bob (102) and alice (103) tie at 1e-5: both rank 1.
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0]["path"], "nvfp4_gemm/B200/rank0001_102.cu");
  EXPECT_EQ(m[1]["path"], "nvfp4_gemm/B200/rank0001_103.py");
  EXPECT_EQ(m[1]["rank"], 1);
  EXPECT_FALSE(m[0].contains("duplicates_dropped"));

  const fs::path dual = scratch.path / "dual";
  r = run("extract -p nvfp4_dual_gemm --top 5 --out " + dual.string() + kData);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  m = manifest(dual);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0]["language"], "cuda");
  EXPECT_EQ(m[1]["language"], "cute_dsl");
  EXPECT_NE(m[0]["note"].get<std::string>().find("unreliable"), std::string::npos);
  EXPECT_NE(r.err.find("kbdata: note: nvfp4_dual_gemm (598)"), std::string::npos) << r.err;
}

TEST(Extract, DedupExactKeepsTheBestOfEachCode) {
  Scratch scratch;
  const fs::path out = scratch.path / "dedup";
  Result r =
      run("extract -p nvfp4_gemm --user-name alice --dedup exact --out " + out.string() + kData);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto m = manifest(out);
  // 101 and 103 are the same code (code_id 1): 103 has the lower score.
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0]["submission_id"], 103);
  EXPECT_EQ(m[0]["duplicates_dropped"], 1);
  EXPECT_NE(r.err.find("1 duplicate(s) dropped"), std::string::npos) << r.err;
}

TEST(Extract, LegacyCodeIsDecoded) {
  Scratch scratch;
  const fs::path out = scratch.path / "legacy";
  Result r = run("extract -p amd-fp8-mm --user-id 7 --out " + out.string() + kData);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto m = manifest(out);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0]["path"], "amd-fp8-mm/no-runner/user-7_301.py");
  EXPECT_EQ(m[0]["language"], "pytorch");
  EXPECT_EQ(kbdata::testing::read_file((out / "amd-fp8-mm/no-runner/user-7_301.py").string()),
            "import torch\n");
}

TEST(Extract, UsageErrors) {
  Scratch scratch;
  const std::string out = " --out " + (scratch.path / "x").string();
  expect_one_line_error(run("extract -p nvfp4_gemm" + out + kData), 2, "exactly one of");
  expect_one_line_error(run("extract -p nvfp4_gemm --all --top 3" + out + kData), 2,
                        "exactly one of");
  expect_one_line_error(run("extract --all" + out + kData), 2, "--problem");
  expect_one_line_error(run("extract -p nvfp4_gemm --top 0" + out + kData), 2, "--top");
  expect_one_line_error(run("extract -p nvfp4_gemm --all --dedup fuzzy" + out + kData), 2,
                        "--dedup");
  expect_one_line_error(run("extract -p nvfp4_gemm --all" + kData), 2, "--out");
  expect_one_line_error(run("extract -p nope --all" + out + kData), 2, "nope");
  fs::create_directories(scratch.path / "full");
  kbdata::testing::write_bytes(scratch.path / "full" / "keep.txt", {'k'});
  expect_one_line_error(
      run("extract -p nvfp4_gemm --all --out " + (scratch.path / "full").string() + kData), 2,
      "not empty");
  EXPECT_TRUE(fs::exists(scratch.path / "full" / "keep.txt"));
  // --force does not replace a folder extract did not make (tests/safety covers the rules) ...
  expect_one_line_error(
      run("extract -p nvfp4_gemm --all --force --out " + (scratch.path / "full").string() + kData),
      2, "not made by kbdata extract");
  EXPECT_TRUE(fs::exists(scratch.path / "full" / "keep.txt"));
  // ... and replaces one it made.
  const std::string made = (scratch.path / "made").string();
  ASSERT_EQ(run("extract -p nvfp4_gemm --top 1 --out " + made + kData).exit_code, 0);
  Result forced = run("extract -p nvfp4_gemm --all --force --out " + made + kData);
  ASSERT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_TRUE(fs::exists(fs::path(made) / "manifest.jsonl"));
  EXPECT_FALSE(fs::exists(scratch.path / "x"));
}

TEST(Extract, UnsafeNamesStayInsideTheExport) {
  Scratch scratch;
  const fs::path data = scratch.path / "data";
  fs::create_directories(data);
  FlatRow row = flat(1, 597, "../../evil", 1e-3, 1, kTriton, 0);
  row.problem_name = "../up";
  row.runner = "../../r";
  kbdata::testing::write_bytes(data / "mine.parquet", kbdata::testing::flat_file({row}));
  const fs::path out = scratch.path / "out";
  Result r = run("extract -p ../up --all --out " + out.string() + " --data " + data.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto m = manifest(out);
  ASSERT_EQ(m.size(), 1u);
  // "../up" -> ".._up" ('/' replaced) -> "_._up" (no leading dot).
  EXPECT_EQ(m[0]["path"], "_._up/_._.._r/user-u-.._.._evil_1.py");
  EXPECT_TRUE(fs::exists(out / m[0]["path"].get<std::string>()));
  EXPECT_EQ(std::distance(fs::directory_iterator(scratch.path), fs::directory_iterator()), 2);
}

// Empty code is no code: no 0-byte file, and counted among the skipped.
TEST(Extract, EmptyCodeIsSkippedAndCounted) {
  Scratch scratch;
  const fs::path data = scratch.path / "data";
  fs::create_directories(data);
  kbdata::testing::write_bytes(data / "nvidia_nvfp4_submissions.parquet",
                               kbdata::testing::flat_file({flat(1, 597, "a", 1e-3, 1, kTriton, 0),
                                                           flat(2, 597, "b", 2e-3, 2, "", 1)}));
  const fs::path out = scratch.path / "out";
  Result r = run("extract -p nvfp4_gemm --all --out " + out.string() + " --data " + data.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("1 file(s), " + std::to_string(kTriton.size()) +
                       " bytes of code, 1 skipped (no code)"),
            std::string::npos)
      << r.err;
  const auto m = manifest(out);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0]["submission_id"], 1);
  for (const auto& e : fs::recursive_directory_iterator(out)) {
    if (e.is_regular_file()) {
      EXPECT_GT(e.file_size(), 0u) << e.path();
    }
  }
}

// SIGINT and SIGTERM while extract writes (a real signal to a running kbdata): the process ends by
// the signal, and neither the export nor its temporary folder is left.
TEST(Extract, AnInterruptRemovesTheTemporaryFolder) {
  Scratch scratch;
  const std::string data = kbdata::testing::medium_data();
  for (const int signal_number : {SIGINT, SIGTERM}) {
    SCOPED_TRACE(signal_number);
    const fs::path out = scratch.path / ("out-" + std::to_string(signal_number));
    const pid_t child = ::fork();
    if (child == 0) {
      ::execl(KBDATA_BINARY, KBDATA_BINARY, "extract", "-p", "nvfp4_dual_gemm", "--all", "--out",
              out.c_str(), "--data", data.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    // Wait until the temporary folder holds a file (the writing has begun), then interrupt.
    auto temporary_with_files = [&] {
      for (const auto& e : fs::directory_iterator(scratch.path)) {
        const std::string name = e.path().filename().string();
        if (name.find(".kbdata-") == std::string::npos) continue;
        std::error_code ec;
        for (auto it = fs::recursive_directory_iterator(e.path(), ec);
             !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
          if (it->is_regular_file(ec)) return true;
        }
      }
      return false;
    };
    bool seen = false;
    for (int i = 0; i < 6000 && !seen; ++i) {
      seen = temporary_with_files();
      if (!seen) ::usleep(5000);
    }
    ::kill(child, signal_number);
    int status = 0;
    ::waitpid(child, &status, 0);
    ASSERT_TRUE(seen) << "extract never began writing";
    EXPECT_TRUE(WIFSIGNALED(status)) << status;
    if (WIFSIGNALED(status)) {
      EXPECT_EQ(WTERMSIG(status), signal_number);
    }
    EXPECT_FALSE(fs::exists(out));
    for (const auto& e : fs::directory_iterator(scratch.path)) {
      ADD_FAILURE() << "left behind: " << e.path();
    }
  }
}

TEST(Extract, AFailureLeavesNoExport) {
  Scratch scratch;
  const fs::path data = scratch.path / "data";
  fs::create_directories(data);
  // The code column is corrupt, the metadata columns are not: choosing the rows succeeds, reading
  // their code fails midway.
  const std::string marker = "CORRUPT-ME-0123456789-CORRUPT-ME";
  std::vector<FlatRow> rows = {flat(1, 597, "a", 1e-3, 1, kTriton, 0),
                               flat(2, 597, "b", 2e-3, 2, marker, 1)};
  std::vector<uint8_t> bytes = kbdata::testing::flat_file(rows);
  const std::string text(bytes.begin(), bytes.end());
  const size_t at = text.find(marker);
  ASSERT_NE(at, std::string::npos);
  ASSERT_GE(at, 4u);
  for (size_t i = at - 4; i < at; ++i) bytes[i] = 0xFF;  // its length (or page header) broken
  kbdata::testing::write_bytes(data / "nvidia_nvfp4_submissions.parquet", bytes);
  const fs::path out = scratch.path / "out";
  Result r = run("extract -p nvfp4_gemm --all --out " + out.string() + " --data " + data.string());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
  EXPECT_FALSE(fs::exists(out));
  // Only the data folder is left: no temporary folder either.
  EXPECT_EQ(std::distance(fs::directory_iterator(scratch.path), fs::directory_iterator()), 1);
}

// ---------------------------------------------------------------------------------------------
// The medium synthetic data against DuckDB.
//
// Flat configs: DuckDB reads each file with read_parquet and computes every column of `stats`
// and `fastest` in SQL. Legacy: the SQL groups runs per submission_id (score = best passed
// leaderboard run) as docs/data-model.md says, for every column but code_bytes (the hex-escape and
// UTF-8 decoding is tested by hand above).

using Rows = std::vector<std::vector<std::optional<std::string>>>;

// Rows of `sql` with every column cast to VARCHAR by DuckDB itself (its text of a DOUBLE is the
// shortest that round-trips): the C API's duckdb_value_varchar on a DOUBLE aggregate column of
// this DuckDB build returned garbage (3.4584621e-316) where the cast does not.
Rows text_rows(const std::string& sql) {
  return kbdata::testing::duckdb().rows("SELECT COLUMNS(*)::VARCHAR FROM (" + sql + ")");
}

struct MediumFolder {
  std::string path;
  std::vector<std::pair<std::string, std::string>> flat;  // config name, file path
  std::string legacy;                                     // submissions.parquet
};

const MediumFolder& medium() {
  static const MediumFolder folder = [] {
    MediumFolder f;
    f.path = kbdata::testing::medium_data();
    Result configs = run("configs --format json --data " + f.path);
    json doc = json::parse(configs.out);
    for (const json& c : doc["configs"]) {
      if (!c["present"].get<bool>()) continue;
      const std::string file = f.path + "/" + c["file"].get<std::string>();
      if (c["config"] == "amd_submissions") {
        f.legacy = file;
      } else if (c["family"] == "flat") {
        f.flat.emplace_back(c["config"].get<std::string>(), file);
      }
    }
    return f;
  }();
  return folder;
}

// DuckDB's text of a double, read back exactly: strtod, not stod, which throws on subnormal
// values (a synth bug once wrote such scores; the comparison must report them, not crash).
double number(const std::optional<std::string>& text) {
  if (!text) throw std::runtime_error("a NULL where a number was expected");
  char* end = nullptr;
  const double v = std::strtod(text->c_str(), &end);
  if (end == text->c_str() || *end != '\0') throw std::runtime_error("not a number: " + *text);
  return v;
}

// The legacy per-run file as the model's submissions (docs/data-model.md): one row per
// submission_id, its score the best passed leaderboard run. A WITH clause naming them `s`.
std::string legacy_submissions(const std::string& file) {
  return "WITH s AS (SELECT submission_id, any_value(leaderboard_id) AS leaderboard_id, "
         "any_value(user_id) AS user_id, any_value(submission_time) AS t, "
         "min(run_score) FILTER (WHERE run_mode = 'leaderboard' AND run_passed) AS score "
         "FROM read_parquet(" +
         kbdata::testing::sql_path(file) + ") GROUP BY submission_id) ";
}

// Scores and percentiles compare exactly: kbdata evaluates quantile_cont in DuckDB's form.
void expect_score(const json& value, const std::optional<std::string>& expected,
                  const std::string& what) {
  if (!expected) {
    EXPECT_TRUE(value.is_null()) << what;
    return;
  }
  EXPECT_EQ(value.get<double>(), number(expected)) << what;
}

TEST(Oracle, StatsMatchDuckDb) {
  const MediumFolder& m = medium();
  ASSERT_GE(m.flat.size(), 5u);
  ASSERT_FALSE(m.legacy.empty());
  Result r = run("stats -f json --data " + m.path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json a = json::parse(r.out);
  std::map<std::pair<std::string, int64_t>, json> got;
  for (const json& row : a) got[{row["config"], row["leaderboard_id"]}] = row;

  size_t compared = 0;
  const std::string qualifies = "score IS NOT NULL AND passed AND coalesce(status, '') <> 'hacked'";
  for (const auto& [config, file] : m.flat) {
    Rows want = text_rows(
        "SELECT leaderboard_id, any_value(problem_name), "
        "array_to_string(list_sort(list_distinct(list(runner))), ','), count(*), "
        "count(DISTINCT submission_id), count(DISTINCT user_id), count(*) FILTER (WHERE passed), "
        "count(score), count(*) FILTER (WHERE " +
        qualifies +
        "), "
        "min(score) FILTER (WHERE " +
        qualifies +
        "), "
        "quantile_cont(score, 0.1) FILTER (WHERE " +
        qualifies +
        "), "
        "quantile_cont(score, 0.5) FILTER (WHERE " +
        qualifies +
        "), "
        "epoch_us(min(submission_time)), epoch_us(max(submission_time)), sum(strlen(code)) "
        "FROM read_parquet(" +
        kbdata::testing::sql_path(file) +
        ") "
        "GROUP BY leaderboard_id ORDER BY leaderboard_id");
    for (const auto& w : want) {
      const int64_t lb = std::stoll(*w[0]);
      const std::string what = config + " " + *w[0];
      ASSERT_TRUE(got.count({config, lb})) << what;
      const json& g = got[{config, lb}];
      EXPECT_EQ(g["problem_name"], *w[1]) << what;
      if (w[2].value_or("").empty()) {
        EXPECT_TRUE(g["runners"].is_null()) << what;
      } else {
        EXPECT_EQ(g["runners"], *w[2]) << what;
      }
      EXPECT_EQ(g["rows"].get<int64_t>(), std::stoll(*w[3])) << what;
      EXPECT_EQ(g["submissions"].get<int64_t>(), std::stoll(*w[4])) << what;
      EXPECT_EQ(g["users"].get<int64_t>(), std::stoll(*w[5])) << what;
      EXPECT_EQ(g["passing"].get<int64_t>(), std::stoll(*w[6])) << what;
      EXPECT_EQ(g["scored"].get<int64_t>(), std::stoll(*w[7])) << what;
      EXPECT_EQ(g["qualifying"].get<int64_t>(), std::stoll(*w[8])) << what;
      expect_score(g["score_min"], w[9], what + " min");
      expect_score(g["score_p10"], w[10], what + " p10");
      expect_score(g["score_median"], w[11], what + " median");
      EXPECT_EQ(micros(g["first_submission"]), std::stoll(*w[12])) << what;
      EXPECT_EQ(micros(g["last_submission"]), std::stoll(*w[13])) << what;
      EXPECT_EQ(g["code_bytes"].get<int64_t>(), std::stoll(*w[14])) << what;
      ++compared;
    }
  }

  // Legacy: one model row per submission; its score the best passed leaderboard run.
  Rows want = text_rows(
      legacy_submissions(m.legacy) +
      "SELECT leaderboard_id, count(*), count(DISTINCT user_id), count(score), min(score), "
      "quantile_cont(score, 0.1), quantile_cont(score, 0.5), epoch_us(min(t)), epoch_us(max(t)) "
      "FROM s GROUP BY leaderboard_id ORDER BY leaderboard_id");
  ASSERT_FALSE(want.empty());
  for (const auto& w : want) {
    const int64_t lb = std::stoll(*w[0]);
    const std::string what = "amd_submissions " + *w[0];
    ASSERT_TRUE(got.count({"amd_submissions", lb})) << what;
    const json& g = got[{"amd_submissions", lb}];
    // The runner of the runs' machine: the medium set's legacy runs are on MI300X machines, eight
    // of them for the distributed problems (563-565).
    EXPECT_EQ(g["runners"], lb >= 563 ? "MI300x8" : "MI300") << what;
    EXPECT_EQ(g["rows"].get<int64_t>(), std::stoll(*w[1])) << what;
    EXPECT_EQ(g["submissions"].get<int64_t>(), std::stoll(*w[1])) << what;
    EXPECT_EQ(g["users"].get<int64_t>(), std::stoll(*w[2])) << what;
    EXPECT_EQ(g["passing"].get<int64_t>(), std::stoll(*w[3])) << what;
    EXPECT_EQ(g["scored"].get<int64_t>(), std::stoll(*w[3])) << what;
    EXPECT_EQ(g["qualifying"].get<int64_t>(), std::stoll(*w[3])) << what;
    expect_score(g["score_min"], w[4], what + " min");
    expect_score(g["score_p10"], w[5], what + " p10");
    expect_score(g["score_median"], w[6], what + " median");
    EXPECT_EQ(micros(g["first_submission"]), std::stoll(*w[7])) << what;
    EXPECT_EQ(micros(g["last_submission"]), std::stoll(*w[8])) << what;
    ++compared;
  }
  // Every kbdata row was compared (the folder's amd_successful_submissions is not read: it is a
  // subset of amd_submissions).
  EXPECT_EQ(compared, a.size());
}

TEST(Oracle, FastestMatchesDuckDb) {
  const MediumFolder& m = medium();
  Result r = run("fastest -f json --data " + m.path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json a = json::parse(r.out);
  std::string files;
  for (const auto& [config, file] : m.flat) {
    files += (files.empty() ? "" : ", ") + kbdata::testing::sql_path(file);
  }
  // Flat: the lowest qualifying row per (leaderboard, runner), ties by time then id.
  Rows want = text_rows(
      "SELECT problem_name, leaderboard_id, runner, user_id, user_name, score, submission_id, "
      "epoch_us(submission_time) FROM (SELECT *, row_number() OVER (PARTITION BY leaderboard_id, "
      "runner ORDER BY score, submission_time, submission_id) AS n FROM read_parquet([" +
      files +
      "], union_by_name = true) WHERE score IS NOT NULL AND passed AND "
      "coalesce(status, '') <> 'hacked') WHERE n = 1 ORDER BY leaderboard_id, runner");
  // Legacy: per leaderboard over the grouped submissions, on the leaderboard's one runner (MI300,
  // MI300x8 for 563-565: the runs' machine).
  Rows legacy = text_rows(
      legacy_submissions(m.legacy) +
      "SELECT leaderboard_id, user_id, score, submission_id, epoch_us(t) FROM (SELECT *, "
      "row_number() OVER (PARTITION BY leaderboard_id ORDER BY score, t, submission_id) AS n "
      "FROM s WHERE score IS NOT NULL) WHERE n = 1 ORDER BY leaderboard_id");
  ASSERT_EQ(a.size(), want.size() + legacy.size()) << r.out;
  std::map<std::pair<int64_t, std::string>, json> got;
  for (const json& row : a) {
    got[{row["leaderboard_id"], row["runner"].is_null() ? "" : row["runner"].get<std::string>()}] =
        row;
  }
  for (const auto& w : want) {
    const std::string what = *w[1] + " " + *w[2];
    ASSERT_TRUE(got.count({std::stoll(*w[1]), *w[2]})) << what;
    const json& g = got[{std::stoll(*w[1]), *w[2]}];
    EXPECT_EQ(g["problem_name"], *w[0]) << what;
    EXPECT_EQ(g["user_id"], *w[3]) << what;
    EXPECT_EQ(g["user_name"], w[4].value_or("")) << what;
    EXPECT_EQ(g["score"].get<double>(), number(w[5])) << what;
    EXPECT_EQ(g["submission_id"].get<int64_t>(), std::stoll(*w[6])) << what;
    EXPECT_EQ(micros(g["submission_time"]), std::stoll(*w[7])) << what;
  }
  for (const auto& w : legacy) {
    const std::string what = "legacy " + *w[0];
    const int64_t lb = std::stoll(*w[0]);
    const std::string runner = lb >= 563 ? "MI300x8" : "MI300";
    ASSERT_TRUE(got.count({lb, runner})) << what;
    const json& g = got[{lb, runner}];
    EXPECT_EQ(g["user_id"], *w[1]) << what;
    EXPECT_EQ(g["score"].get<double>(), number(w[2])) << what;
    EXPECT_EQ(g["submission_id"].get<int64_t>(), std::stoll(*w[3])) << what;
    EXPECT_EQ(micros(g["submission_time"]), std::stoll(*w[4])) << what;
  }
}

}  // namespace
