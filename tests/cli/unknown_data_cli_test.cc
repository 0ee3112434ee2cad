// The files are the truth, through every data command and format (issue "The files are the
// truth"): a folder DuckDB wrote with a config, a problem, a runner and a legacy leaderboard that
// no registry lists is listed, filtered, ranked, audited, paired, extracted and deduplicated like
// the published configs; rankings agree with DuckDB's RANK() over the same rows. And the bundled
// sample with every problem renamed ranks the same under the new names.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "support/oracle.h"
#include "support/run_kbdata.h"

namespace {

namespace fs = std::filesystem;
using kbdata::testing::duckdb;
using kbdata::testing::lines;
using kbdata::testing::read_file;
using kbdata::testing::Result;
using kbdata::testing::run;
using kbdata::testing::sql_path;

// A kernel of `version` (the same lineage, tuned), as text for SQL.
std::string kernel(int user, int version) {
  return "'import torch\nimport triton\nimport triton.language as tl\n\n@triton.jit\ndef k(x_ptr, "
         "y_ptr, n, BLOCK: tl.constexpr):\n    pid = tl.program_id(0)\n    offs = pid * BLOCK + "
         "tl.arange(0, BLOCK)\n    x = tl.load(x_ptr + offs, mask=offs < n)\n    tl.store(y_ptr + "
         "offs, x * " +
         std::to_string(user) +
         ".0, mask=offs < n)\n\ndef custom_kernel(data):\n    x, y = data\n "
         "   k[(x.numel() // " +
         std::to_string(256 * (version + 1)) +
         ",)](x, y, x.numel(), BLOCK=" + std::to_string(256 * (version + 1)) + ")\n    return y\n'";
}

class UnknownData : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("kbdata-unknown-data-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "data");
    // Six users, three versions each on fp8_gemm_v3 (leaderboard 801) on runner GB300, scores
    // falling; u1 and u2 tie at their best. User ids beyond 2^53 and names in other scripts.
    std::string values;
    int id = 1000;
    const char* names[] = {"Cookie 🍪", "南北绿豆糕", "kitrak_rev.", "d", "e", "f"};
    for (int u = 0; u < 6; ++u) {
      for (int v = 0; v < 3; ++v) {
        const double score = (u < 2 ? 20e-6 : 20e-6 + u * 3e-6) * (3 - v);
        values += std::string(values.empty() ? "" : ",") + "(" + std::to_string(id++) + ", '" +
                  std::to_string(1487256849525768244LL + u) + "', '" + names[u] + "', " +
                  std::to_string(u * 10 + v) + ", " + std::to_string(u * 100 + v * 7) + ", " +
                  std::to_string(score) + ", " + kernel(u, v) + ")";
      }
    }
    duckdb().run(
        "COPY (SELECT id::BIGINT AS submission_id, 801::BIGINT AS leaderboard_id, 'fp8_gemm_v3' AS "
        "problem_name, user_id, user_name, code_id::BIGINT AS code_id, 'submission.py' AS "
        "file_name, TIMESTAMPTZ '2026-09-01 00:00:00+00' + to_minutes(minute::BIGINT * 60) AS "
        "submission_time, 'succeeded' AS status, score::DOUBLE AS score, true AS passed, "
        "'leaderboard' AS mode, 'GB300' AS runner, code FROM (VALUES " +
        values + ") t(id, user_id, user_name, code_id, minute, score, code)) TO " +
        sql_path((dir_ / "data" / "nvidia_fp8_submissions.parquet").string()) +
        " (FORMAT PARQUET)");
    // A legacy per-run file of leaderboard 999, which no registry and no leaderboards file names.
    std::string runs;
    int run_id = 1;
    for (int s = 0; s < 4; ++s) {
      for (const char* mode : {"test", "leaderboard"}) {
        runs += std::string(runs.empty() ? "" : ",") + "(" + std::to_string(500 + s) + ", " +
                std::to_string(s % 3 + 1) + ", " + std::to_string(run_id++) + ", '" + mode + "', " +
                (std::string(mode) == "test" ? "NULL" : std::to_string(1e-4 * (4 - s))) + ")";
      }
    }
    duckdb().run(
        "COPY (SELECT submission_id::BIGINT AS submission_id, 999::BIGINT AS leaderboard_id, "
        "user_id::BIGINT AS user_id, TIMESTAMP '2026-10-01 00:00:00' + to_minutes(run_id::BIGINT) "
        "AS submission_time, 'submission.py' AS file_name, 'print(' || submission_id || ')' AS "
        "code, submission_id::BIGINT AS code_id, run_id::BIGINT AS run_id, NULL::TIMESTAMP AS "
        "run_start_time, NULL::TIMESTAMP AS run_end_time, run_mode, run_score::DOUBLE AS "
        "run_score, true AS run_passed, {'gpu': 'AMD Instinct MI355X', 'device_count': 1::BIGINT, "
        "'torch': '2.8.0.dev20250601+rocm6.3'} AS run_system_info, (run_id - 1)::BIGINT AS "
        "__index_level_0__ FROM (VALUES " +
        runs + ") t(submission_id, user_id, run_id, run_mode, run_score)) TO " +
        sql_path((dir_ / "data" / "amd_later_submissions.parquet").string()) + " (FORMAT PARQUET)");
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }

  static std::string data() { return " --data " + (dir_ / "data").string(); }
  static std::string out(const std::string& name) { return (dir_ / name).string(); }

  static fs::path dir_;
};
fs::path UnknownData::dir_;

TEST_F(UnknownData, ConfigsListWhatTheFilesHold) {
  Result r = run("configs -f json" + data());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* want :
       {"\"file\":\"nvidia_fp8_submissions.parquet\",\"leaderboard_id\":801,\"problem_name\":"
        "\"fp8_gemm_v3\",\"runner\":\"GB300\",\"gpu\":null,\"rows\":18,\"registered\":false",
        "\"file\":\"amd_later_submissions.parquet\",\"leaderboard_id\":999,\"problem_name\":"
        "\"leaderboard-999\",\"runner\":\"AMD Instinct MI355X\",\"gpu\":\"MI355X\",\"rows\":4,"
        "\"registered\":false"}) {
    EXPECT_NE(r.out.find(want), std::string::npos) << want << "\n" << r.out;
  }
  r = run("configs" + data());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("not in the registry"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("nvidia_fp8_submissions.parquet is not a config kbdata knows; read as the "
                       "flat schema its columns have"),
            std::string::npos)
      << r.err;
}

// Every data command and every format it has, on the unknown problem and on the unnamed legacy
// leaderboard: exit 0, the rows named, the registry's silence said once.
TEST_F(UnknownData, EveryDataCommandReadsThem) {
  const std::string user = "1487256849525768244";
  for (const std::string problem : {"fp8_gemm_v3", "leaderboard-999"}) {
    const std::string p = " -p " + problem;
    const std::string legacy_user = "1";
    const std::string u = problem == "fp8_gemm_v3" ? user : legacy_user;
    std::vector<std::string> commands = {
        "submissions" + p,
        "top" + p,
        "records" + p,
        "progression -u " + u + p,
        "fastest --user-id " + u + p,
        "stats" + p,
        "noise" + p,
        "audit" + p,
        "techniques" + p,
    };
    for (const std::string& command : commands) {
      for (const std::string format : {"table", "csv", "json", "jsonl"}) {
        Result r = run(command + " -f " + format + data());
        EXPECT_EQ(r.exit_code, 0) << command << " -f " << format << ": " << r.err;
        if (command.rfind("noise", 0) != 0) {
          EXPECT_NE(r.out.find(problem == "fp8_gemm_v3" ? "fp8_gemm_v3" : "999"), std::string::npos)
              << command << " -f " << format << ":\n"
              << r.out << r.err;
        }
        EXPECT_NE(r.err.find("is not in kbdata's registry"), std::string::npos)
            << command << " -f " << format << ": " << r.err;
      }
      const std::string parquet = out("out.parquet");
      fs::remove(parquet);
      Result r = run(command + " -f parquet -o " + parquet + data());
      EXPECT_EQ(r.exit_code, 0) << command << " -f parquet: " << r.err;
      EXPECT_TRUE(fs::exists(parquet)) << command;
    }
  }
  // show, pairs, extract, dedup.
  Result r = run("show 1000 -f json" + data());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"runner\":\"GB300\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"user_id\":\"1487256849525768244\""), std::string::npos) << r.out;
  r = run("show 500 -f json" + data());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"problem_name\":\"leaderboard-999\""), std::string::npos) << r.out;
  r = run("pairs -p fp8_gemm_v3 --out " + out("pairs.jsonl") + data());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(read_file(out("pairs.jsonl")).find("\"problem_name\":\"fp8_gemm_v3\""),
            std::string::npos);
  r = run("extract -p fp8_gemm_v3 --top 3 --out " + out("extracted") + data());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(out("extracted")));
  r = run("dedup " + (dir_ / "data" / "nvidia_fp8_submissions.parquet").string() + " " +
          out("dedup.parquet") + " --fuzzy");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// The ranking of the unknown problem on the unknown runner is the platform's rule as SQL states it.
TEST_F(UnknownData, TheRankingIsTheSqlRanking) {
  Result r = run("top -p fp8_gemm_v3 --runner gb300 -n 0 -f csv" + data());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> got = lines(r.out);
  ASSERT_FALSE(got.empty());
  got.erase(got.begin());  // the header
  const auto want = duckdb().rows(
      "SELECT RANK() OVER (ORDER BY best), user_id FROM (SELECT user_id, min(score) AS best FROM "
      "read_parquet(" +
      sql_path((dir_ / "data" / "nvidia_fp8_submissions.parquet").string()) +
      ") GROUP BY user_id) ORDER BY best, user_id");
  ASSERT_EQ(got.size(), want.size()) << r.out;
  // leaderboard_id,problem_name,rank,user_id,...: the rank is the third field.
  const auto rank = [](const std::string& line) {
    const size_t a = line.find(',', line.find(',') + 1) + 1;
    return line.substr(a, line.find(',', a) - a);
  };
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(rank(got[i]), *want[i][0]) << got[i];
    EXPECT_NE(got[i].find(*want[i][1]), std::string::npos) << got[i];
    EXPECT_EQ(got[i].rfind("801,fp8_gemm_v3,", 0), 0u) << got[i];
    EXPECT_NE(got[i].find(",GB300"), std::string::npos) << got[i];
  }
  EXPECT_EQ(rank(got[0]), "1");
  EXPECT_EQ(rank(got[1]), "1");  // the tie shares rank 1
  EXPECT_EQ(rank(got[2]), "3");
}

// The bundled sample with every problem renamed (flat files' problem_name, and the leaderboards
// file's names, which name the legacy files' leaderboards) ranks the same under the new names.
TEST(RenamedSample, RanksTheSameUnderNewNames) {
  const fs::path dir = fs::temp_directory_path() / ("kbdata-renamed-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string sample = std::string(KBDATA_SOURCE_DIR) + "/data/sample";
  for (const auto& entry : fs::directory_iterator(sample)) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() != ".parquet") continue;
    const std::string from = sql_path(entry.path().string());
    const std::string to = sql_path((dir / name).string());
    const auto columns = duckdb().rows("SELECT name FROM parquet_schema(" + from + ")");
    bool flat = false, boards = false;
    for (const auto& c : columns) {
      flat = flat || c[0] == "problem_name";
      boards = boards || c[0] == "gpu_types";
    }
    if (flat) {
      duckdb().run(
          "COPY (SELECT * REPLACE (problem_name || '_renamed' AS problem_name) FROM "
          "read_parquet(" +
          from + ")) TO " + to + " (FORMAT PARQUET)");
    } else if (boards) {
      duckdb().run("COPY (SELECT * REPLACE (name || '_renamed' AS name) FROM read_parquet(" + from +
                   ")) TO " + to + " (FORMAT PARQUET)");
    } else {
      fs::copy_file(entry.path(), dir / name);
    }
  }
  Result problems = run("configs -f json --data " + sample);
  ASSERT_EQ(problems.exit_code, 0) << problems.err;
  std::vector<std::string> names;
  for (size_t at = 0; (at = problems.out.find("\"problem_name\":\"", at)) != std::string::npos;) {
    at += 16;
    const std::string name = problems.out.substr(at, problems.out.find('"', at) - at);
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  ASSERT_GE(names.size(), 30u);
  for (const std::string& name : names) {
    Result before = run("top -p " + name + " -n 0 -f csv --data " + sample);
    Result after = run("top -p " + name + "_renamed -n 0 -f csv --data " + dir.string());
    ASSERT_EQ(before.exit_code, 0) << name << ": " << before.err;
    ASSERT_EQ(after.exit_code, 0) << name << ": " << after.err;
    std::string renamed = before.out;
    for (size_t at = 0; (at = renamed.find(name, at)) != std::string::npos; at += name.size() + 8) {
      renamed.insert(at + name.size(), "_renamed");
    }
    EXPECT_EQ(after.out, renamed) << name;
    EXPECT_GT(lines(after.out).size(), 1u) << name;
  }
  fs::remove_all(dir);
}

}  // namespace
