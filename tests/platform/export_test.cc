// kbdata export and synth --db against a real PostgreSQL server (pg_server.h), started once for
// the whole program. The exported files are read back with kbdata's reader (`kbdata cat`) and
// compared row by row with oracle queries written here, separately from the exporter's SQL.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "common/text.h"
#include "platform/connection.h"
#include "platform/pg_server.h"
#include "platform/schema_sql.h"

namespace kbdata {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using platform::Connection;
using platform::Result;
using testing::ChildResult;
using testing::PgServer;

const std::string kKbdata = KBDATA_BINARY;

// Leaderboard ids of the seeded configs (the registry's; PMPP numbered from 901 by synth).
const char* const kNvfp4 = "595,597,598,697,730";
const char* const kAmd = "398,399,430,463,563,564,565";
const std::vector<std::pair<std::string, std::string>> kFlatConfigs = {
    {"nvidia_nvfp4_submissions", kNvfp4},
    {"amd_1_1m_competition", "763,764,765"},
    {"trimul_submissions", "496"},
    {"helion_b200_nebius", "766,767,768,769,770"},
    {"pmpp_v2_submissions", "901,902,903,904,905,906,907,908"},
    {"linalg_submissions", "774,775,776"},
    {"amd_flat", kAmd},  // the legacy-stored code (hex escapes, Latin-1 bytes) in a flat config
};

PgServer* server = nullptr;

class Environment : public ::testing::Environment {
 public:
  void SetUp() override {
    server = new PgServer();
    server->create_database("kb");
    ChildResult seed = testing::run_child(
        {kKbdata, "synth", "--db", server->url("kb"), "--scale", "small", "--seed", "3"});
    ASSERT_EQ(seed.exit_code, 0) << seed.err;
  }
  void TearDown() override {
    delete server;
    server = nullptr;
  }
};

std::unique_ptr<Connection> connect(const std::string& db = "kb") {
  return Connection::connect(server->url(db), "kbdata test");
}

std::string temp_dir(const std::string& name) {
  fs::path p =
      fs::temp_directory_path() / ("kbdata-export-test-" + std::to_string(::getpid()) + "-" + name);
  fs::remove_all(p);
  return p.string();
}

// A temporary folder, removed when the test ends, passed or failed.
struct TempDir {
  explicit TempDir(const std::string& name) : path(temp_dir(name)) {}
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string path;
};

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every file of a folder with its bytes.
std::map<std::string, std::string> folder(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    out[e.path().filename().string()] = read_file(e.path());
  }
  return out;
}

std::vector<json> read_rows(const std::string& file) {
  ChildResult r = testing::run_child({kKbdata, "cat", file, "--format", "jsonl"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<json> rows;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) rows.push_back(json::parse(line));
  return rows;
}

ChildResult kbdata_export(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {kKbdata, "export"};
  argv.insert(argv.end(), args.begin(), args.end());
  return testing::run_child(argv);
}

// The failure contract: non-zero exit, exactly one line on stderr, naming `what`.
void expect_one_line_failure(const ChildResult& r, const std::string& what) {
  std::fprintf(stderr, "[ stderr   ] %s", r.err.c_str());
  EXPECT_NE(r.exit_code, 0);
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "not one line: " << r.err;
  EXPECT_NE(r.err.find(what), std::string::npos) << r.err;
}

std::string hex_to_bytes(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out += static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16));
  }
  return out;
}

// The code as docs/dataset.md §4.2 says it must read: old_code's `\x` + even hex digits decoded
// here in SQL; then UTF-8 with replacement.
std::string expected_code(const Result& r, int row, int column) {
  std::string out;
  append_utf8_repaired(out, hex_to_bytes(r.bytes(row, column)));
  return out;
}
const char* const kOracleCodeHex =
    "encode(CASE WHEN f.old_code IS NULL THEN f.code "
    "WHEN f.old_code ~ '^\\\\x([0-9a-fA-F]{2})+$' THEN decode(substr(f.old_code, 3), 'hex') "
    "ELSE convert_to(f.old_code, 'UTF8') END, 'hex')";
const char* const kOracleTime = "'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'";

std::string text_or_null(const Result& r, int row, int column) {
  return r.is_null(row, column) ? "<null>" : std::string(r.bytes(row, column));
}
std::string json_text_or_null(const json& v) {
  return v.is_null() ? "<null>" : v.is_string() ? v.get<std::string>() : v.dump();
}

// The independent oracle of a flat config (docs/export.md, "Flat configs"), written apart from
// the exporter's SQL: the secret-run gate as a set difference, every public leaderboard run on a
// gated runner joined whatever its score or passed, deduplication by DISTINCT ON, and the status
// rule with `hacked` first.
std::string flat_oracle(const std::string& ids) {
  return "WITH gate AS ("
         " SELECT p.submission_id, p.runner FROM leaderboard.runs p"
         "   WHERE p.mode = 'leaderboard' AND p.secret AND p.passed"
         " EXCEPT"
         " SELECT f.submission_id, f.runner FROM leaderboard.runs f"
         "   WHERE f.mode = 'leaderboard' AND f.secret AND (f.passed IS NULL OR NOT f.passed)),"
         " pub AS (SELECT r.id AS run_id, r.submission_id, r.runner, r.score::float8 AS score,"
         "   r.passed FROM leaderboard.runs r JOIN gate g ON g.submission_id = r.submission_id"
         "   AND g.runner = r.runner WHERE r.mode = 'leaderboard' AND NOT r.secret),"
         " cand AS (SELECT s.id, s.leaderboard_id, s.user_id, s.code_id, s.submission_time,"
         "   pub.run_id, pub.runner, pub.score, pub.passed FROM leaderboard.submission s"
         "   LEFT JOIN pub ON pub.submission_id = s.id WHERE s.leaderboard_id IN (" +
         ids +
         ")),"
         " d AS (SELECT DISTINCT ON (leaderboard_id, user_id, code_id, runner) * FROM cand"
         "   ORDER BY leaderboard_id, user_id, code_id, runner, score ASC NULLS LAST,"
         "   submission_time, id, run_id)"
         " SELECT d.id, d.leaderboard_id, l.name, d.user_id, coalesce(u.user_name, ''), d.code_id,"
         "  s.file_name, to_char(d.submission_time AT TIME ZONE 'UTC', " +
         std::string(kOracleTime) +
         "),"
         "  CASE WHEN 'hacked' IN (coalesce(s.status, ''), coalesce(j.status, '')) THEN 'hacked'"
         "       WHEN NOT coalesce(s.done, false) THEN coalesce(j.status, s.status)"
         "       WHEN d.score IS NOT NULL AND d.passed THEN 'succeeded'"
         "       WHEN j.status IS NULL OR j.status = 'succeeded' THEN 'failed'"
         "       ELSE j.status END,"
         "  d.score, CASE WHEN d.passed THEN 'true' WHEN NOT d.passed THEN 'false' END,"
         "  CASE WHEN d.run_id IS NOT NULL THEN 'leaderboard' END, d.runner, " +
         kOracleCodeHex +
         " FROM d JOIN leaderboard.submission s ON s.id = d.id"
         " JOIN leaderboard.leaderboard l ON l.id = d.leaderboard_id"
         " JOIN leaderboard.code_files f ON f.id = d.code_id"
         " LEFT JOIN leaderboard.user_info u ON u.id = d.user_id"
         " LEFT JOIN leaderboard.submission_job_status j ON j.submission_id = d.id"
         " ORDER BY l.name, d.score NULLS LAST, d.id, d.runner NULLS LAST";
}

// What one flat export's rows held, for the tests' "the case was exercised" checks.
struct FlatCounts {
  int64_t rows = 0;
  int64_t scored = 0;
  int64_t hacked = 0;         // status hacked
  int64_t hacked_scored = 0;  // status hacked, with a score
  int64_t failed_runs = 0;    // a joined run that did not pass (runner set, passed false)
  int64_t unscored_runs = 0;  // a joined run without a score
  int64_t multi_runner = 0;   // submissions with rows on two or more runners
  int64_t repaired = 0;       // code with U+FFFD
};

// Reads `file` back and compares it, row by row and value by value, with flat_oracle(ids).
FlatCounts expect_flat_equals_oracle(Connection& db, const std::string& file,
                                     const std::string& ids) {
  static const std::vector<std::string> columns = {
      "submission_id", "leaderboard_id", "problem_name",    "user_id", "user_name",
      "code_id",       "file_name",      "submission_time", "status",  "score",
      "passed",        "mode",           "runner",          "code"};
  FlatCounts counts;
  std::vector<json> rows = read_rows(file);
  Result expected = db.exec(flat_oracle(ids));
  EXPECT_EQ(rows.size(), static_cast<size_t>(expected.rows()));
  if (rows.size() != static_cast<size_t>(expected.rows())) return counts;
  counts.rows = expected.rows();
  std::map<int64_t, std::set<std::string>> runners_of;
  for (int i = 0; i < expected.rows(); ++i) {
    const json& row = rows[static_cast<size_t>(i)];
    for (size_t c = 0; c + 1 < columns.size(); ++c) {
      const json& got = row.at(columns[c]);
      const std::string want = text_or_null(expected, i, static_cast<int>(c));
      if (columns[c] == "score" && !got.is_null()) {
        EXPECT_NE(want, "<null>") << "row " << i << ": " << row.dump().substr(0, 400);
        if (want == "<null>") return counts;
        double w = 0;
        try {
          w = std::stod(want);
        } catch (const std::exception&) {
          ADD_FAILURE() << "row " << i << ": oracle score '" << want << "'";
          return counts;
        }
        EXPECT_EQ(got.get<double>(), w) << "row " << i;
        ++counts.scored;
      } else {
        EXPECT_EQ(json_text_or_null(got), want)
            << "row " << i << " column " << columns[c] << ": " << row.dump().substr(0, 400);
        if (json_text_or_null(got) != want) return counts;
      }
    }
    const std::string code = expected_code(expected, i, 13);
    EXPECT_EQ(row.at("code").get<std::string>(), code) << "row " << i;
    if (code.find("\xEF\xBF\xBD") != std::string::npos) ++counts.repaired;
    const bool hacked = row.at("status") == "hacked";
    counts.hacked += hacked;
    counts.hacked_scored += hacked && !row.at("score").is_null();
    if (!row.at("runner").is_null()) {
      counts.failed_runs += row.at("passed") == false;
      counts.unscored_runs += row.at("score").is_null();
      runners_of[row.at("submission_id").get<int64_t>()].insert(
          row.at("runner").get<std::string>());
    }
  }
  for (const auto& [id, runners] : runners_of) counts.multi_runner += runners.size() > 1;
  return counts;
}

TEST(SynthDb, SeedsEveryCaseTheRulesDistinguish) {
  auto db = connect();
  auto count = [&](const std::string& sql) {
    return std::stoll(std::string(db->exec("SELECT count(*) FROM " + sql).bytes(0, 0)));
  };
  EXPECT_GT(count("leaderboard.runs WHERE secret AND mode = 'leaderboard'"), 0);
  EXPECT_GT(count("leaderboard.runs WHERE NOT secret AND score IS NOT NULL AND passed"), 0);
  EXPECT_GT(count("leaderboard.submission WHERE status = 'hacked'"), 0);
  EXPECT_GT(count("leaderboard.submission_job_status WHERE status = 'hacked'"), 0);
  EXPECT_GT(count("leaderboard.runs WHERE passed IS FALSE"), 0);
  EXPECT_GT(count("leaderboard.runs WHERE score IS NULL AND NOT secret"), 0);
  EXPECT_GT(count("leaderboard.submission WHERE done IS FALSE"), 0);
  // A scored public run whose secret run on the same runner failed.
  EXPECT_GT(count("leaderboard.runs p JOIN leaderboard.runs x ON x.submission_id = "
                  "p.submission_id AND x.runner = p.runner AND x.secret AND NOT x.passed WHERE "
                  "NOT p.secret AND p.passed AND p.score IS NOT NULL"),
            0);
  // Several runners on one leaderboard.
  EXPECT_GT(count("(SELECT s.leaderboard_id FROM leaderboard.runs r JOIN leaderboard.submission s "
                  "ON s.id = r.submission_id GROUP BY 1 HAVING count(DISTINCT r.runner) > 1) t"),
            0);
  EXPECT_GT(count("leaderboard.runs WHERE jsonb_typeof(meta) = 'object' AND "
                  "jsonb_typeof(result) = 'object' AND jsonb_typeof(system_info) = 'object'"),
            0);
  EXPECT_GT(count("leaderboard.code_files WHERE starts_with(old_code, E'\\\\x')"), 0);
  EXPECT_GT(count("leaderboard.code_files WHERE old_code ~ '^\\\\x.*[^0-9a-f]'"), 0);
  EXPECT_GT(count("leaderboard.code_files WHERE position('\\xe9'::bytea IN code) > 0"), 0);
  EXPECT_GT(count("leaderboard.leaderboard WHERE deadline > now()"), 0);
  EXPECT_GT(count("leaderboard.submission s JOIN leaderboard.leaderboard l ON l.id = "
                  "s.leaderboard_id WHERE l.deadline > now()"),
            0);
  // A second seed into the same database is refused, and changes nothing.
  ChildResult again =
      testing::run_child({kKbdata, "synth", "--db", server->url("kb"), "--scale", "small"});
  expect_one_line_failure(again, "already has a 'leaderboard' schema");
}

TEST(Export, FlatConfigsEqualTheOracle) {
  TempDir out_dir("flat");
  const std::string& out = out_dir.path;
  std::vector<std::string> args = {"--db", server->url("kb"), "--out", out, "--jobs", "2"};
  for (const auto& [name, ids] : kFlatConfigs) {
    args.push_back("--config");
    args.push_back(name + "=" + ids);
  }
  ChildResult r = kbdata_export(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto db = connect();
  FlatCounts all;
  for (const auto& [name, ids] : kFlatConfigs) {
    SCOPED_TRACE(name);
    const std::string file =
        out + "/" +
        (name == "amd_flat"               ? "amd_flat.parquet"
         : name == "amd_1_1m_competition" ? "amd_1_1m_competition_submissions.parquet"
         : name == "helion_b200_nebius"   ? "helion_b200_nebius_submissions.parquet"
                                          : name + ".parquet");
    const FlatCounts c = expect_flat_equals_oracle(*db, file, ids);
    ASSERT_GT(c.rows, 0);
    all.scored += c.scored;
    all.hacked += c.hacked;
    all.hacked_scored += c.hacked_scored;
    all.multi_runner += c.multi_runner;
    all.repaired += c.repaired;
  }
  EXPECT_GT(all.scored, 0);
  EXPECT_GT(all.hacked, 0);
  EXPECT_GT(all.hacked_scored, 0);  // a hacked submission keeps its runs and score
  EXPECT_GT(all.multi_runner, 0);
  EXPECT_GT(all.repaired, 0);  // the Latin-1 byte became U+FFFD in the flat AMD config
}

// A database drawn at random (a fixed seed), with every combination the join rule distinguishes:
// public leaderboard runs that failed, passed without a score or have a null `passed`, on one to
// three runners of a submission, several public runs on one runner, secret runs passing, failing
// or null, runs without a runner, hacked marks in submission.status and in the job status, done
// true, false or null, equal scores and equal submission times, users without a name, and a
// leaderboard whose visibility is 'closed'.
class RandomDb : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server->create_database("random");
    auto db = connect("random");
    db->exec(platform::kSchemaSql);
    std::mt19937_64 rng(20260401);
    auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
    std::string sql =
        "INSERT INTO leaderboard.leaderboard (id, name, deadline, description, visibility) VALUES "
        "(1001, 'rand_a', '2025-05-01', 'a', 'public'), (1002, 'rand_b', '2025-06-01', 'b', "
        "'public'), (1003, 'rand_closed', '2025-07-01', 'c', 'closed');"
        "INSERT INTO leaderboard.gpu_type VALUES (1001, 'A100'), (1001, 'H100'), (1001, 'B200'),"
        " (1002, 'B200'), (1003, 'MI300');";
    for (int u = 0; u < 14; ++u) {
      sql += "INSERT INTO leaderboard.user_info VALUES ('" + std::to_string(9000 + u) + "', " +
             (u % 5 == 0 ? std::string("NULL") : "'user" + std::to_string(u) + "'") + ");";
    }
    for (int c = 1; c <= 40; ++c) {
      sql += "INSERT INTO leaderboard.code_files (id, code, hash) VALUES (" + std::to_string(c) +
             ", convert_to('kernel " + std::to_string(c) + "', 'UTF8'), 'h" + std::to_string(c) +
             "');";
    }
    const char* const runners[] = {"A100", "H100", "B200"};
    const char* const job[] = {"succeeded", "failed", "hacked", "timed_out", "running"};
    const char* const sub_status[] = {"active", "active", "active", "hacked"};
    const char* const bools[] = {"true", "false", "NULL"};
    const char* const scores[] = {"0.00125", "0.0025", "0.0031415926535", "1.5e-05", "0.0025"};
    int64_t run_id = 1;
    for (int id = 1; id <= 900; ++id) {
      const int board = 1001 + pick(3);
      sql +=
          "INSERT INTO leaderboard.submission (id, leaderboard_id, file_name, user_id, code_id,"
          " submission_time, done, status) VALUES (" +
          std::to_string(id) + ", " + std::to_string(board) + ", 'sub" + std::to_string(id) +
          ".py', '" + std::to_string(9000 + pick(14)) + "', " + std::to_string(1 + pick(40)) +
          ", '2025-04-01'::timestamptz + " + std::to_string(pick(300)) + " * interval '1 min', " +
          (pick(8) == 0   ? "NULL"
           : pick(6) == 0 ? "false"
                          : "true") +
          ", " + (pick(10) == 0 ? "NULL" : "'" + std::string(sub_status[pick(4)]) + "'") + ");";
      if (pick(6) != 0) {
        sql += "INSERT INTO leaderboard.submission_job_status (submission_id, status) VALUES (" +
               std::to_string(id) + ", " +
               (pick(12) == 0 ? "NULL" : "'" + std::string(job[pick(5)]) + "'") + ");";
      }
      const int n_runners = board == 1001 ? 1 + pick(3) : 1;
      for (int k = 0; k < n_runners; ++k) {
        const std::string runner = board == 1003   ? "MI300"
                                   : board == 1002 ? "B200"
                                                   : runners[(id + k) % 3];
        auto run = [&](const std::string& mode, const std::string& secret, const std::string& r,
                       const std::string& score, const std::string& passed) {
          sql +=
              "INSERT INTO leaderboard.runs (id, submission_id, mode, secret, runner, score, "
              "passed) VALUES (" +
              std::to_string(run_id++) + ", " + std::to_string(id) + ", " + mode + ", " + secret +
              ", " + r + ", " + score + ", " + passed + ");";
        };
        const std::string quoted = "'" + runner + "'";
        if (pick(3) == 0) run("'test'", "false", quoted, "NULL", bools[pick(2)]);
        if (pick(10) == 0) run("'benchmark'", "false", quoted, scores[pick(5)], "true");
        // The public leaderboard runs: none, one, sometimes two on this runner.
        const int publics = pick(7) == 0 ? 0 : pick(5) == 0 ? 2 : 1;
        for (int p = 0; p < publics; ++p) {
          run("'leaderboard'", pick(30) == 0 ? "NULL" : "false", quoted,
              pick(4) == 0 ? "NULL" : scores[pick(5)], bools[pick(5) == 0 ? 1 + pick(2) : 0]);
        }
        // The secret runs: usually one passing, sometimes failing, null or a second one.
        const int secrets = pick(8) == 0 ? 0 : pick(6) == 0 ? 2 : 1;
        for (int p = 0; p < secrets; ++p) {
          run("'leaderboard'", "true", quoted, "NULL", bools[pick(6) == 0 ? 1 + pick(2) : 0]);
        }
        if (pick(20) == 0) run("'leaderboard'", "false", "NULL", scores[pick(5)], "true");
        if (pick(25) == 0) run("'profile.0'", "false", quoted, "NULL", "true");
      }
    }
    db->exec("BEGIN;" + sql + "COMMIT");
  }
};

TEST_F(RandomDb, ExportEqualsTheJoinRuleRowForRow) {
  TempDir out_dir("random");
  const std::string& out = out_dir.path;
  // rand_closed is not public: only a private export may hold it.
  ChildResult r =
      kbdata_export({"--db", server->url("random"), "--out", out, "--private", "--config",
                     "rand=1001,1002,1003", "--config", "rand_closed=1003"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto db = connect("random");
  const FlatCounts c = expect_flat_equals_oracle(*db, out + "/rand.parquet", "1001,1002,1003");
  const FlatCounts closed = expect_flat_equals_oracle(*db, out + "/rand_closed.parquet", "1003");
  std::fprintf(stderr,
               "random: %lld rows, %lld scored, %lld hacked (%lld scored), %lld failed "
               "runs, %lld unscored runs, %lld submissions on several runners\n",
               static_cast<long long>(c.rows), static_cast<long long>(c.scored),
               static_cast<long long>(c.hacked), static_cast<long long>(c.hacked_scored),
               static_cast<long long>(c.failed_runs), static_cast<long long>(c.unscored_runs),
               static_cast<long long>(c.multi_runner));
  // Every case the rule distinguishes occurred.
  EXPECT_GT(c.scored, 0);
  EXPECT_GT(c.hacked_scored, 0);
  EXPECT_GT(c.failed_runs, 0);
  EXPECT_GT(c.unscored_runs, 0);
  EXPECT_GT(c.multi_runner, 0);
  EXPECT_GT(closed.rows, 0);
  // Hacked marks in both places, on rows that keep their runs.
  const int64_t marked_in_job = std::stoll(std::string(
      db->exec("SELECT count(*) FROM leaderboard.submission s JOIN "
               "leaderboard.submission_job_status j ON j.submission_id = s.id WHERE j.status = "
               "'hacked' AND s.status IS DISTINCT FROM 'hacked' AND EXISTS (SELECT 1 FROM "
               "leaderboard.runs r WHERE r.submission_id = s.id AND r.mode = 'leaderboard' AND "
               "NOT r.secret AND r.score IS NOT NULL)")
          .bytes(0, 0)));
  EXPECT_GT(marked_in_job, 0);
  // The rankings drop hacked rows: no hacked submission in `kbdata top`.
  ChildResult top = testing::run_child(
      {kKbdata, "top", "--data", out, "--problem", "rand_a", "--format", "jsonl", "-n", "1000"});
  if (top.exit_code == 0) {
    std::set<int64_t> hacked_ids;
    for (const json& row : read_rows(out + "/rand.parquet")) {
      if (row.at("status") == "hacked") hacked_ids.insert(row.at("submission_id").get<int64_t>());
    }
    std::istringstream lines(top.out);
    int64_t ranked = 0;
    for (std::string line; std::getline(lines, line);) {
      const json row = json::parse(line);
      if (!row.contains("submission_id")) continue;
      ++ranked;
      EXPECT_EQ(hacked_ids.count(row.at("submission_id").get<int64_t>()), 0u) << line;
    }
    EXPECT_GT(ranked, 0);
  } else {
    ADD_FAILURE() << "kbdata top: " << top.err;
  }
}

TEST_F(RandomDb, PublicExportRefusesAClosedLeaderboardBeforeAnyWrite) {
  TempDir out_dir("closed");
  const std::string& out = out_dir.path;
  ChildResult refused =
      kbdata_export({"--db", server->url("random"), "--out", out, "--config", "rand=1001,1003"});
  expect_one_line_failure(refused,
                          "leaderboard 1003 'rand_closed' (config rand) is not public: "
                          "its visibility is 'closed'; a public export refuses it "
                          "(--private allows it)");
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_FALSE(fs::exists(out)) << "the refused export made its folder";
  for (const auto& e : fs::directory_iterator(fs::path(out).parent_path())) {
    EXPECT_EQ(e.path().filename().string().find(fs::path(out).filename().string()),
              std::string::npos)
        << "left " << e.path();
  }
  ChildResult allowed =
      kbdata_export({"--db", server->url("random"), "--out", out, "--config", "rand=1001"});
  ASSERT_EQ(allowed.exit_code, 0) << allowed.err;
  EXPECT_EQ(read_file(out + "/README.md").find("private"), std::string::npos);
}

// The configs go to the workers of common's pool, one connection each: the files hold the same
// rows whatever --jobs and the threads compressing them ($KBDATA_THREADS, the command's default).
TEST(Export, TheSameRowsWhateverTheJobsAndTheThreads) {
  std::map<std::string, std::vector<json>> first;
  for (const auto& [jobs, threads] : {std::pair<std::string, std::string>{"1", "1"}, {"3", "2"}}) {
    SCOPED_TRACE("--jobs " + jobs + ", KBDATA_THREADS=" + threads);
    TempDir out_dir("jobs-" + jobs);
    std::vector<std::string> args = {
        "--db", server->url("kb"),         "--out", out_dir.path, "--jobs",
        jobs,   "--test-permutation-seed", "7"};
    for (const auto& [name, ids] : kFlatConfigs) {
      args.push_back("--config");
      args.push_back(name + "=" + ids);
    }
    args.push_back("--legacy");
    args.push_back(std::string("amd_submissions=") + kAmd);
    ::setenv("KBDATA_THREADS", threads.c_str(), 1);
    ChildResult r = kbdata_export(args);
    ::unsetenv("KBDATA_THREADS");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::map<std::string, std::vector<json>> rows;
    for (const auto& e : fs::directory_iterator(out_dir.path)) {
      if (e.path().extension() == ".parquet") {
        rows[e.path().filename().string()] = read_rows(e.path().string());
      }
    }
    EXPECT_EQ(rows.size(), kFlatConfigs.size() + 2);  // and submissions.parquet, leaderboards
    if (first.empty()) {
      first = std::move(rows);
    } else {
      EXPECT_TRUE(rows == first);
    }
  }
}

TEST(Export, LegacyConfigsEqualTheOracleAndHideUserIds) {
  TempDir out_dir("legacy");
  const std::string& out = out_dir.path;
  ChildResult r = kbdata_export({"--db", server->url("kb"), "--out", out, "--legacy",
                                 std::string("amd_submissions=") + kAmd, "--legacy",
                                 std::string("amd_successful_submissions=") + kAmd});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto db = connect();
  for (bool passed_only : {false, true}) {
    SCOPED_TRACE(passed_only ? "successful" : "all");
    std::vector<json> rows =
        read_rows(out + (passed_only ? "/successful_submissions.parquet" : "/submissions.parquet"));
    Result expected = db->exec(
        std::string("SELECT r.id, s.id, s.leaderboard_id, s.user_id, to_char(s.submission_time "
                    "AT TIME ZONE 'UTC', ") +
        kOracleTime + "), s.file_name, " + kOracleCodeHex +
        ", s.code_id, to_char(r.start_time AT TIME ZONE 'UTC', " + kOracleTime +
        "), to_char(r.end_time AT TIME ZONE 'UTC', " + kOracleTime +
        "), r.mode, r.score::float8, r.passed, r.compilation::text, r.meta::text, "
        "r.result::text, r.system_info::text FROM leaderboard.runs r JOIN leaderboard.submission s "
        "ON s.id = r.submission_id JOIN leaderboard.code_files f ON f.id = s.code_id WHERE "
        "s.leaderboard_id IN (" +
        kAmd + ")" + (passed_only ? " AND r.passed" : "") + " ORDER BY s.id, r.id");
    ASSERT_EQ(rows.size(), static_cast<size_t>(expected.rows()));
    std::map<std::string, int64_t> anonymised;
    std::set<int64_t> anon_values;
    int64_t empty_structs = 0;
    for (int i = 0; i < expected.rows(); ++i) {
      const json& row = rows[static_cast<size_t>(i)];
      ASSERT_EQ(std::to_string(row.at("run_id").get<int64_t>()), expected.bytes(i, 0));
      ASSERT_EQ(std::to_string(row.at("submission_id").get<int64_t>()), expected.bytes(i, 1));
      ASSERT_EQ(std::to_string(row.at("leaderboard_id").get<int64_t>()), expected.bytes(i, 2));
      // user_id: one anonymous integer per platform user, never the platform id.
      const int64_t anon = row.at("user_id").get<int64_t>();
      auto [it, inserted] = anonymised.emplace(std::string(expected.bytes(i, 3)), anon);
      ASSERT_EQ(it->second, anon) << "one user, two anonymous ids";
      if (inserted) anon_values.insert(anon);
      ASSERT_EQ(row.at("submission_time").get<std::string>(), expected.bytes(i, 4));
      ASSERT_EQ(row.at("file_name").get<std::string>(), expected.bytes(i, 5));
      ASSERT_EQ(row.at("code").get<std::string>(), expected_code(expected, i, 6)) << "row " << i;
      ASSERT_EQ(std::to_string(row.at("code_id").get<int64_t>()), expected.bytes(i, 7));
      ASSERT_EQ(row.at("run_start_time").get<std::string>(), expected.bytes(i, 8));
      ASSERT_EQ(row.at("run_end_time").get<std::string>(), expected.bytes(i, 9));
      ASSERT_EQ(row.at("run_mode").get<std::string>(), expected.bytes(i, 10));
      if (expected.is_null(i, 11)) {
        ASSERT_TRUE(row.at("run_score").is_null());
      } else {
        ASSERT_EQ(row.at("run_score").get<double>(), std::stod(std::string(expected.bytes(i, 11))));
      }
      ASSERT_EQ(row.at("run_passed").get<bool>(), expected.bytes(i, 12) == "t");
      // The structs hold exactly the jsonb's keys and values; null and {} are a null struct.
      const char* structs[] = {"run_compilation", "run_meta", "run_result", "run_system_info"};
      for (int k = 0; k < 4; ++k) {
        const json& got = row.at(structs[k]);
        json want = expected.is_null(i, 13 + k)
                        ? json()
                        : json::parse(std::string(expected.bytes(i, 13 + k)));
        if (want.is_null() || want.empty()) {
          if (!want.is_null()) ++empty_structs;
          ASSERT_TRUE(got.is_null()) << structs[k] << " row " << i;
          continue;
        }
        ASSERT_TRUE(got.is_object()) << structs[k] << " row " << i;
        for (auto& [key, value] : got.items()) {
          auto w = want.find(key);
          if (w == want.end() || w->is_null()) {
            ASSERT_TRUE(value.is_null()) << structs[k] << "." << key << " row " << i;
          } else if (w->is_number()) {
            ASSERT_EQ(value.get<double>(), w->get<double>()) << structs[k] << "." << key;
          } else {
            ASSERT_EQ(value, *w) << structs[k] << "." << key << " row " << i;
          }
        }
        for (auto& [key, value] : want.items()) {
          ASSERT_TRUE(got.contains(key)) << structs[k] << " lacks " << key;
        }
      }
    }
    if (!passed_only) {
      EXPECT_GT(empty_structs, 0);
    }
    // Distinct users get distinct integers from 1..N, N the users of these leaderboards.
    const int64_t n = std::stoll(std::string(
        db->exec(std::string("SELECT count(DISTINCT user_id) FROM leaderboard.submission WHERE "
                             "leaderboard_id IN (") +
                 kAmd + ")")
            .bytes(0, 0)));
    ASSERT_FALSE(anon_values.empty());
    EXPECT_EQ(anon_values.size(), anonymised.size()) << "two users share an anonymous id";
    EXPECT_GE(*anon_values.begin(), 1);
    EXPECT_LE(*anon_values.rbegin(), n);
  }
  // No platform user id anywhere in the folder (files, metadata, card).
  Result users = db->exec(std::string("SELECT DISTINCT user_id FROM leaderboard.submission WHERE "
                                      "leaderboard_id IN (") +
                          kAmd + ")");
  ASSERT_GT(users.rows(), 0);
  for (const auto& [name, bytes] : folder(out)) {
    for (int i = 0; i < users.rows(); ++i) {
      ASSERT_EQ(bytes.find(users.bytes(i, 0)), std::string::npos)
          << "user id " << users.bytes(i, 0) << " in " << name;
    }
  }
  // Two exports draw different permutations; a test seed makes them repeatable.
  TempDir again_dir("legacy-again");
  const std::string& again = again_dir.path;
  ChildResult r2 = kbdata_export({"--db", server->url("kb"), "--out", again, "--legacy",
                                  std::string("amd_submissions=") + kAmd});
  ASSERT_EQ(r2.exit_code, 0) << r2.err;
  std::vector<json> first = read_rows(out + "/submissions.parquet");
  std::vector<json> second = read_rows(again + "/submissions.parquet");
  ASSERT_EQ(first.size(), second.size());
  bool differs = false;
  for (size_t i = 0; i < first.size(); ++i) differs |= first[i]["user_id"] != second[i]["user_id"];
  EXPECT_TRUE(differs) << "the permutation did not change between exports";
}

TEST(Export, CardAndLayoutFromTheFilesWritten) {
  TempDir out_dir("card");
  const std::string& out = out_dir.path;
  ChildResult r = kbdata_export({"--db", server->url("kb"), "--out", out, "--config",
                                 std::string("nvidia_nvfp4_submissions=") + kNvfp4, "--legacy",
                                 std::string("amd_submissions=") + kAmd});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string card = read_file(out + "/README.md");
  EXPECT_EQ(card.rfind("---\nlicense: cc-by-4.0\n", 0), 0u) << card.substr(0, 200);
  EXPECT_NE(card.find("- config_name: nvidia_nvfp4_submissions\n  data_files: "
                      "\"nvidia_nvfp4_submissions.parquet\""),
            std::string::npos);
  EXPECT_NE(card.find("- config_name: amd_submissions\n  data_files: \"submissions.parquet\""),
            std::string::npos);
  EXPECT_NE(card.find("- config_name: leaderboards\n  data_files: \"leaderboards.parquet\""),
            std::string::npos);
  EXPECT_NE(card.find("openreview.net/forum?id=bq9U4dmuyJ"), std::string::npos);
  EXPECT_NE(card.find("598 | nvfp4_dual_gemm"), std::string::npos);
  EXPECT_NE(card.find("unreliable"), std::string::npos);  // 598's note, from the registry
  EXPECT_EQ(card.find("private"), std::string::npos);
  for (const char* file :
       {"nvidia_nvfp4_submissions.parquet", "submissions.parquet", "leaderboards.parquet"}) {
    SCOPED_TRACE(file);
    const uint64_t size = fs::file_size(out + "/" + file);
    const size_t rows = read_rows(out + "/" + file).size();
    EXPECT_NE(card.find("File `" + std::string(file) + "`: " + std::to_string(rows) + " rows, " +
                        std::to_string(size) + " bytes"),
              std::string::npos);
    ChildResult inspect = testing::run_child({kKbdata, "inspect", out + "/" + file, "--json"});
    ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
    const std::string& d = inspect.out;
    EXPECT_NE(d.find("kbdata.rule"), std::string::npos);
    EXPECT_NE(d.find("kbdata.source"), std::string::npos);
    EXPECT_NE(d.find("column_index_offset"), std::string::npos) << "no page index";
    EXPECT_NE(d.find("\"codec\": \"LZ4_RAW\""), std::string::npos) << "not kbdata's codec";
    EXPECT_EQ(d.find("\"codec\": \"SNAPPY\""), std::string::npos) << "not kbdata's codec";
    EXPECT_EQ(d.find("kb-secret-pw"), std::string::npos) << "the password leaked";
  }
  // leaderboards.parquet holds every exported leaderboard with its runners.
  std::vector<json> boards = read_rows(out + "/leaderboards.parquet");
  EXPECT_EQ(boards.size(), 12u);
  for (const json& b : boards) {
    EXPECT_FALSE(b.at("gpu_types").empty()) << b.dump().substr(0, 200);
    EXPECT_FALSE(b.at("reference").is_null());
  }
}

TEST(Export, PublicExportRefusesAnOpenLeaderboard) {
  TempDir out_dir("open");
  const std::string& out = out_dir.path;
  ChildResult refused =
      kbdata_export({"--db", server->url("kb"), "--out", out, "--config", "practice=901,990"});
  expect_one_line_failure(refused,
                          "leaderboard 990 'open_practice_softmax' (config practice) is "
                          "still open");
  EXPECT_FALSE(fs::exists(out)) << "the refused export made its folder";
  ChildResult allowed = kbdata_export(
      {"--db", server->url("kb"), "--out", out, "--config", "practice=901,990", "--private"});
  ASSERT_EQ(allowed.exit_code, 0) << allowed.err;
  const std::string card = read_file(out + "/README.md");
  EXPECT_NE(card.find("private: true"), std::string::npos);
  EXPECT_NE(card.find("Private export"), std::string::npos);
  EXPECT_NE(card.find("990"), std::string::npos);
}

// A folder holding a complete earlier export; the faults must leave it exactly so.
class Faults : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = temp_dir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    ChildResult r = kbdata_export(
        {"--db", server->url("kb"), "--out", dir_, "--config", "trimul_submissions=496"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // Modes other than any the export would choose, to see that they are kept.
    fs::permissions(dir_ + "/README.md", fs::perms(0640));
    fs::permissions(dir_, fs::perms(0750));
    before_ = folder(dir_);
    modes_before_ = modes(dir_);
    ASSERT_EQ(before_.size(), 3u);
  }
  void TearDown() override { fs::remove_all(dir_); }
  static std::map<std::string, fs::perms> modes(const std::string& dir) {
    std::map<std::string, fs::perms> out = {{".", fs::status(dir).permissions()}};
    for (const auto& e : fs::directory_iterator(dir)) {
      out[e.path().filename().string()] = fs::symlink_status(e.path()).permissions();
    }
    return out;
  }
  // The temporary folders of an export into dir_ (beside it, named after it).
  std::vector<fs::path> staged_folders() const {
    std::vector<fs::path> out;
    const std::string prefix = "." + fs::path(dir_).filename().string() + ".";
    for (const auto& e : fs::directory_iterator(fs::path(dir_).parent_path())) {
      const std::string name = e.path().filename().string();
      if (name.rfind(prefix, 0) == 0 && name.find(".kbdata-") != std::string::npos) {
        out.push_back(e.path());
      }
    }
    return out;
  }
  void expect_untouched() {
    std::map<std::string, std::string> after = folder(dir_);
    ASSERT_EQ(after.size(), before_.size()) << "a file was added or removed";
    for (const auto& [name, bytes] : before_) {
      ASSERT_TRUE(after.count(name)) << name;
      EXPECT_TRUE(after[name] == bytes) << name << " changed";
    }
    EXPECT_EQ(modes(dir_), modes_before_) << "a mode changed";
    EXPECT_TRUE(staged_folders().empty()) << "a temporary folder was left";
  }
  std::vector<std::string> export_args(const std::string& url) {
    return {"--db",     url,
            "--out",    dir_,
            "--config", "trimul_submissions=496",
            "--config", std::string("nvidia_nvfp4_submissions=") + kNvfp4};
  }
  std::string dir_;
  std::map<std::string, std::string> before_;
  std::map<std::string, fs::perms> modes_before_;
};

TEST_F(Faults, ConnectionRefused) {
  // A port nobody listens on: the server's port while it is... another free port.
  const std::string url = "postgresql://kb@127.0.0.1:1/kb";
  ChildResult r = kbdata_export(export_args(url));
  expect_one_line_failure(r, "database 127.0.0.1:1/kb: cannot connect");
  EXPECT_NE(r.err.find("refused"), std::string::npos) << r.err;
  expect_untouched();
}

TEST_F(Faults, AuthenticationFailure) {
  ChildResult r = kbdata_export(export_args(server->url_wrong_password("kb")));
  expect_one_line_failure(r, "password authentication failed");
  EXPECT_EQ(r.err.find("not-the-password"), std::string::npos) << "the password leaked";
  expect_untouched();
}

TEST_F(Faults, ServerStoppedMidway) {
  // Hold a lock on gpu_type, which the export reads last (leaderboards.parquet): the export
  // writes its configs, then waits; the server is stopped while it waits.
  auto locker = connect();
  locker->exec("BEGIN");
  locker->exec("LOCK TABLE leaderboard.gpu_type IN ACCESS EXCLUSIVE MODE");
  std::vector<std::string> args = export_args(server->url("kb"));
  args.insert(args.begin(), {kKbdata, "export"});
  ChildResult result;
  std::thread child([&] { result = testing::run_child(args); });
  auto watcher = connect("postgres");
  bool waiting = false;
  for (int i = 0; i < 600 && !waiting; ++i) {
    Result w = watcher->exec(
        "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'kbdata export' AND "
        "wait_event_type = 'Lock'");
    waiting = w.bytes(0, 0) == "1";
    if (!waiting) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(waiting) << "the export never reached leaderboards.parquet";
  watcher.reset();
  // The configs are written by now, as temporary files in the temporary folder beside DIR.
  const std::vector<fs::path> staged = staged_folders();
  ASSERT_EQ(staged.size(), 1u);
  size_t temporaries = 0;
  for (const auto& e : fs::directory_iterator(staged[0])) {
    temporaries += e.path().filename().string().find(".kbdata-") != std::string::npos;
  }
  EXPECT_EQ(temporaries, 4u);
  EXPECT_EQ(folder(dir_), before_) << "DIR changed before the export succeeded";
  server->stop();
  child.join();
  locker.reset();
  server->start();
  expect_one_line_failure(result, "database 127.0.0.1:");
  EXPECT_NE(result.err.find("connection"), std::string::npos) << result.err;
  expect_untouched();
}

TEST_F(Faults, JsonbTheLegacyStructCannotHold) {
  auto db = connect();
  db->exec(
      "BEGIN;"
      "INSERT INTO leaderboard.leaderboard (id, name, deadline, description) VALUES "
      "  (995, 'nested_meta', '2025-01-01', 'a run with a nested meta');"
      "INSERT INTO leaderboard.code_files (id, code, hash) VALUES (995000001, 'x', 'h995');"
      "INSERT INTO leaderboard.submission (id, leaderboard_id, file_name, user_id, code_id, "
      "  submission_time, done) SELECT 995000001, 995, 'submission.py', min(id), 995000001, "
      "  '2024-12-01', true FROM leaderboard.user_info;"
      "INSERT INTO leaderboard.runs (id, submission_id, mode, secret, runner, passed, meta) "
      "VALUES (995000001, 995000001, 'test', false, 'T4', true, '{\"stdout\": \"ok\"}'),"
      "  (995000002, 995000001, 'test', false, 'T4', true, '{\"stdout\": {\"lines\": [1, 2]}}');"
      "COMMIT");
  ChildResult r = kbdata_export({"--db", server->url("kb"), "--out", dir_, "--config",
                                 "trimul_submissions=496", "--legacy", "nested=995"});
  expect_one_line_failure(r, "run 995000002: meta key 'stdout' holds a jsonb object");
  expect_untouched();
  db->exec(
      "BEGIN; DELETE FROM leaderboard.runs WHERE submission_id = 995000001;"
      "DELETE FROM leaderboard.submission WHERE id = 995000001;"
      "DELETE FROM leaderboard.code_files WHERE id = 995000001;"
      "DELETE FROM leaderboard.leaderboard WHERE id = 995; COMMIT");
}

TEST_F(Faults, OutputFolderNotWritable) {
  // A path under a regular file can never be a folder, root or not.
  const std::string under_file = dir_ + "/README.md/out";
  ChildResult r = kbdata_export(
      {"--db", server->url("kb"), "--out", under_file, "--config", "trimul_submissions=496"});
  expect_one_line_failure(r, under_file);
  expect_untouched();
  // A folder the (non-root) user may not write into.
  if (::geteuid() == 0) {
    ChildResult as_other = testing::run_child({kKbdata, "export", "--db", server->url("kb"),
                                               "--out", dir_, "--config", "trimul_submissions=496"},
                                              "postgres");
    expect_one_line_failure(as_other, dir_);
    EXPECT_NE(as_other.err.find("Permission denied"), std::string::npos) << as_other.err;
  }
  expect_untouched();
}

// After an export DIR holds exactly what its card lists: an entry the new card would not list is
// refused, and --force removes only regular files an earlier export made or listed.
TEST_F(Faults, FilesTheNewCardWouldNotList) {
  const std::vector<std::string> trimul = {"--db", server->url("kb"), "--out",
                                           dir_,   "--config",        "trimul_submissions=496"};
  auto with = [](std::vector<std::string> args, const std::vector<std::string>& more) {
    args.insert(args.end(), more.begin(), more.end());
    return args;
  };
  auto refresh = [&] {
    before_ = folder(dir_);
    modes_before_ = modes(dir_);
  };
  // A file of the user's.
  { std::ofstream(dir_ + "/notes.txt") << "mine"; }
  refresh();
  ChildResult r = kbdata_export(trimul);
  expect_one_line_failure(r, "holds notes.txt, which the new card would not list");
  EXPECT_EQ(r.exit_code, 2);
  expect_untouched();
  r = kbdata_export(with(trimul, {"--force"}));
  expect_one_line_failure(r, "holds notes.txt, which no earlier kbdata export made or listed");
  expect_untouched();
  fs::remove(dir_ + "/notes.txt");
  // A folder, never removed.
  fs::create_directory(dir_ + "/sub");
  refresh();
  r = kbdata_export(with(trimul, {"--force"}));
  expect_one_line_failure(r, "holds sub, which is a folder");
  expect_untouched();
  fs::remove(dir_ + "/sub");
  // An earlier export's config that the new one leaves out: listed by the previous card.
  r = kbdata_export(with(trimul, {"--config", std::string("nvidia_nvfp4_submissions=") + kNvfp4}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  refresh();
  ASSERT_EQ(before_.size(), 4u);
  r = kbdata_export(trimul);
  expect_one_line_failure(r,
                          "holds nvidia_nvfp4_submissions.parquet, which the new card would "
                          "not list; remove it, or --force removes it");
  expect_untouched();
  r = kbdata_export(with(trimul, {"--force"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("removed nvidia_nvfp4_submissions.parquet"), std::string::npos) << r.err;
  std::set<std::string> names;
  for (const auto& [name, bytes] : folder(dir_)) names.insert(name);
  EXPECT_EQ(names, (std::set<std::string>{"README.md", "leaderboards.parquet",
                                          "trimul_submissions.parquet"}));
  // A Parquet file an export made, under a name no card lists.
  fs::copy_file(dir_ + "/trimul_submissions.parquet", dir_ + "/copy.parquet");
  r = kbdata_export(trimul);
  expect_one_line_failure(r, "holds copy.parquet");
  r = kbdata_export(with(trimul, {"--force"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(dir_ + "/copy.parquet"));
  // The card lists exactly the folder's other files.
  const std::string card = read_file(dir_ + "/README.md");
  for (const auto& [name, bytes] : folder(dir_)) {
    if (name != "README.md") {
      EXPECT_NE(card.find("data_files: \"" + name + "\""), std::string::npos) << name;
    }
  }
  EXPECT_TRUE(staged_folders().empty());
}

// New files get 0666 and a new folder 0777 minus the umask; a replaced file or folder keeps its
// mode; a private export makes its files 0600 and its folder 0700, replacing or not.
TEST(Export, ModesFollowTheUmaskTheReplacedFileOrPrivate) {
  TempDir out_dir("modes");
  const std::string& out = out_dir.path;
  auto export_under = [&](mode_t mask, std::vector<std::string> more) {
    std::vector<std::string> args = {"--db", server->url("kb"), "--out",
                                     out,    "--config",        "trimul_submissions=496"};
    args.insert(args.end(), more.begin(), more.end());
    const mode_t old = ::umask(mask);
    ChildResult r = kbdata_export(args);
    ::umask(old);
    return r;
  };
  auto mode_of = [](const std::string& path) {
    return static_cast<unsigned>(fs::status(path).permissions());
  };
  auto expect_modes = [&](unsigned dir_mode, unsigned card_mode, unsigned config_mode) {
    EXPECT_EQ(mode_of(out), dir_mode);
    EXPECT_EQ(mode_of(out + "/README.md"), card_mode);
    EXPECT_EQ(mode_of(out + "/leaderboards.parquet"), card_mode);
    EXPECT_EQ(mode_of(out + "/trimul_submissions.parquet"), config_mode);
  };
  for (mode_t mask : {mode_t{022}, mode_t{077}}) {
    SCOPED_TRACE(mask);
    fs::remove_all(out);
    ChildResult r = export_under(mask, {});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    expect_modes(0777 & ~mask, 0666 & ~mask, 0666 & ~mask);
  }
  // Replaced in place: the folder's and each file's own modes stay.
  fs::remove_all(out);
  ASSERT_EQ(export_under(022, {}).exit_code, 0);
  fs::permissions(out, fs::perms(0750));
  fs::permissions(out + "/trimul_submissions.parquet", fs::perms(0640));
  ChildResult again = export_under(022, {});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  expect_modes(0750, 0644, 0640);
  // Private: 0700 and 0600, new or replaced, whatever the umask.
  ChildResult replaced = export_under(022, {"--private"});
  ASSERT_EQ(replaced.exit_code, 0) << replaced.err;
  expect_modes(0700, 0600, 0600);
  fs::remove_all(out);
  ChildResult fresh = export_under(0, {"--private"});
  ASSERT_EQ(fresh.exit_code, 0) << fresh.err;
  expect_modes(0700, 0600, 0600);
}

TEST(Export, UsageErrors) {
  TempDir out_dir("usage");
  const std::string& out = out_dir.path;
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"--config", "x=1,abc"},
                                             {"--config", "=1"},
                                             {"--config", "a/b=1"},
                                             {"--config", "x=1", "--config", "x=2"},
                                             {"--config", "leaderboards=1"}}) {
    std::vector<std::string> full = {"--db", server->url("kb"), "--out", out};
    full.insert(full.end(), args.begin(), args.end());
    ChildResult r = kbdata_export(full);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    expect_one_line_failure(r, "config");
  }
  ChildResult unknown =
      kbdata_export({"--db", server->url("kb"), "--out", out, "--config", "x=12345"});
  expect_one_line_failure(unknown, "leaderboard 12345 (config x) does not exist");
}

// More data than the memory bound: 10,000 submissions of 24 KB of code that snappy cannot
// compress (random base64 text; 240 MB) exported with a peak resident size under 128 MB.
TEST(Export, MemoryStaysBounded) {
#if defined(__SANITIZE_ADDRESS__)
  // AddressSanitizer's shadow memory and quarantine make the resident size no measure of ours.
  GTEST_SKIP() << "peak RSS is not measured under AddressSanitizer";
#endif
  server->create_database("big");
  auto db = connect("big");
  db->exec(platform::kSchemaSql);
  db->exec(
      "INSERT INTO leaderboard.leaderboard (id, name, deadline, description) VALUES "
      "(496, 'trimul', '2025-09-01', 'big');"
      "INSERT INTO leaderboard.gpu_type VALUES (496, 'H100');"
      "INSERT INTO leaderboard.user_info VALUES ('1234567890123456789', 'big_user')");
  constexpr int kRows = 10'000;
  constexpr size_t kCodeBytes = 24'000;
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  uint64_t state = 0x9E3779B97F4A7C15ull;
  std::string batch;
  db->copy_begin("COPY leaderboard.code_files (id, old_code, code) FROM STDIN");
  for (int i = 1; i <= kRows; ++i) {
    batch += std::to_string(i) + '\t';
    for (size_t k = 0; k < kCodeBytes; ++k) {
      state ^= state << 13;
      state ^= state >> 7;
      state ^= state << 17;
      batch += kAlphabet[state & 63];
    }
    batch += "\t\\\\x\n";
    if (batch.size() > (size_t{4} << 20)) {
      db->copy_data(batch);
      batch.clear();
    }
  }
  db->copy_data(batch);
  db->copy_end();
  db->exec(
      "INSERT INTO leaderboard.submission (id, leaderboard_id, file_name, user_id, code_id, "
      "  submission_time, done, status) SELECT i, 496, 'submission.py', '1234567890123456789', "
      "  i, '2025-06-01'::timestamptz + i * interval '1 second', true, 'active' "
      "  FROM generate_series(1, 10000) i");
  TempDir out_dir("big");
  const std::string& out = out_dir.path;
  ChildResult r = kbdata_export(
      {"--db", server->url("big"), "--out", out, "--config", "trimul_submissions=496"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const uint64_t size = fs::file_size(out + "/trimul_submissions.parquet");
  const long bound_kb = 128 * 1024;
  EXPECT_GT(size, static_cast<uint64_t>(bound_kb) * 1024 * 3 / 2) << "not more data than the bound";
  EXPECT_LT(r.max_rss_kb, bound_kb)
      << "peak RSS " << r.max_rss_kb << " KB for " << size << " bytes";
  std::fprintf(stderr, "memory: exported %llu bytes with a peak RSS of %ld KB\n",
               static_cast<unsigned long long>(size), r.max_rss_kb);
}

}  // namespace
}  // namespace kbdata

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new kbdata::Environment);
  return RUN_ALL_TESTS();
}
