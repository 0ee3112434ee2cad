// kbdata export and synth --db against a real PostgreSQL server (pg_server.h), started once for
// the whole program. The exported files are read back with kbdata's reader (`kbdata cat`) and
// compared row by row with oracle queries written here, separately from the exporter's SQL.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "common/text.h"
#include "platform/connection.h"
#include "platform/pg_server.h"
#include "platform/seed.h"

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
  fs::path p = fs::temp_directory_path() /
               ("kbdata-export-test-" + std::to_string(::getpid()) + "-" + name);
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

// The code as DATASET.md §4.2 says it must read: old_code's `\x` + even hex digits decoded here
// in SQL; then UTF-8 with replacement.
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

// The independent oracle of a flat config (DATASET.md §3, §4.1): qualifying runs by NOT EXISTS
// subqueries and a GROUP BY, deduplication by DISTINCT ON.
std::string flat_oracle(const std::string& ids) {
  return "WITH q AS ("
         " SELECT r.submission_id, r.runner, min(r.score)::float8 AS best"
         " FROM leaderboard.runs r"
         " JOIN leaderboard.submission s ON s.id = r.submission_id"
         " LEFT JOIN leaderboard.submission_job_status j ON j.submission_id = s.id"
         " WHERE s.leaderboard_id IN (" + ids + ") AND r.mode = 'leaderboard' AND NOT r.secret"
         "   AND r.passed AND r.score IS NOT NULL"
         "   AND coalesce(s.status, '') <> 'hacked' AND coalesce(j.status, '') <> 'hacked'"
         "   AND EXISTS (SELECT 1 FROM leaderboard.runs p WHERE p.submission_id = r.submission_id"
         "     AND p.runner = r.runner AND p.mode = 'leaderboard' AND p.secret AND p.passed)"
         "   AND NOT EXISTS (SELECT 1 FROM leaderboard.runs f WHERE f.submission_id = r.submission_id"
         "     AND f.runner = r.runner AND f.mode = 'leaderboard' AND f.secret"
         "     AND (f.passed IS NULL OR NOT f.passed))"
         " GROUP BY r.submission_id, r.runner),"
         " cand AS (SELECT s.id, s.leaderboard_id, s.user_id, s.code_id, s.submission_time,"
         "   q.runner, q.best FROM leaderboard.submission s LEFT JOIN q ON q.submission_id = s.id"
         "   WHERE s.leaderboard_id IN (" + ids + ")),"
         " d AS (SELECT DISTINCT ON (leaderboard_id, user_id, code_id, runner) * FROM cand"
         "   ORDER BY leaderboard_id, user_id, code_id, runner, best ASC NULLS LAST,"
         "   submission_time, id)"
         " SELECT d.id, d.leaderboard_id, l.name, d.user_id, coalesce(u.user_name, ''), d.code_id,"
         "  s.file_name, to_char(d.submission_time AT TIME ZONE 'UTC', " + std::string(kOracleTime) +
         "),"
         "  CASE WHEN NOT coalesce(s.done, false) THEN coalesce(j.status, s.status)"
         "       WHEN d.best IS NOT NULL THEN 'succeeded'"
         "       WHEN j.status IS NULL OR j.status = 'succeeded' THEN 'failed'"
         "       ELSE j.status END,"
         "  d.best, CASE WHEN d.best IS NOT NULL THEN 'true' END,"
         "  CASE WHEN d.best IS NOT NULL THEN 'leaderboard' END, d.runner, " +
         kOracleCodeHex +
         " FROM d JOIN leaderboard.submission s ON s.id = d.id"
         " JOIN leaderboard.leaderboard l ON l.id = d.leaderboard_id"
         " JOIN leaderboard.code_files f ON f.id = d.code_id"
         " LEFT JOIN leaderboard.user_info u ON u.id = d.user_id"
         " LEFT JOIN leaderboard.submission_job_status j ON j.submission_id = d.id"
         " ORDER BY l.name, d.best NULLS LAST, d.id, d.runner NULLS LAST";
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
  const std::vector<std::string> columns = {
      "submission_id", "leaderboard_id", "problem_name", "user_id", "user_name",
      "code_id",       "file_name",      "submission_time", "status", "score",
      "passed",        "mode",           "runner",          "code"};
  int64_t scored = 0, hacked_status = 0, repaired = 0;
  for (const auto& [name, ids] : kFlatConfigs) {
    SCOPED_TRACE(name);
    const std::string file =
        out + "/" + (name == "amd_flat" ? "amd_flat.parquet"
                     : name == "amd_1_1m_competition" ? "amd_1_1m_competition_submissions.parquet"
                     : name == "helion_b200_nebius"   ? "helion_b200_nebius_submissions.parquet"
                                                      : name + ".parquet");
    std::vector<json> rows = read_rows(file);
    Result expected = db->exec(flat_oracle(ids));
    ASSERT_EQ(rows.size(), static_cast<size_t>(expected.rows()));
    ASSERT_GT(rows.size(), 0u);
    for (int i = 0; i < expected.rows(); ++i) {
      const json& row = rows[static_cast<size_t>(i)];
      for (size_t c = 0; c + 1 < columns.size(); ++c) {
        const json& got = row.at(columns[c]);
        const std::string want = text_or_null(expected, i, static_cast<int>(c));
        if (columns[c] == "score" && !got.is_null()) {
          ASSERT_NE(want, "<null>") << "row " << i << ": " << row.dump().substr(0, 400);
          double w = 0;
          try {
            w = std::stod(want);
          } catch (const std::exception&) {
            FAIL() << "row " << i << ": oracle score '" << want << "'";
          }
          ASSERT_EQ(got.get<double>(), w) << "row " << i;
          ++scored;
        } else {
          ASSERT_EQ(json_text_or_null(got), want) << "row " << i << " column " << columns[c];
        }
      }
      const std::string code = expected_code(expected, i, 13);
      ASSERT_EQ(row.at("code").get<std::string>(), code) << "row " << i;
      if (code.find("\xEF\xBF\xBD") != std::string::npos) ++repaired;
      if (row.at("status") == "hacked") ++hacked_status;
    }
  }
  EXPECT_GT(scored, 0);
  EXPECT_GT(hacked_status, 0);
  EXPECT_GT(repaired, 0);  // the Latin-1 byte became U+FFFD in the flat AMD config
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
                    "AT TIME ZONE 'UTC', ") + kOracleTime + "), s.file_name, " + kOracleCodeHex +
        ", s.code_id, to_char(r.start_time AT TIME ZONE 'UTC', " + kOracleTime +
        "), to_char(r.end_time AT TIME ZONE 'UTC', " + kOracleTime +
        "), r.mode, r.score::float8, r.passed, r.compilation::text, r.meta::text, "
        "r.result::text, r.system_info::text FROM leaderboard.runs r JOIN leaderboard.submission s "
        "ON s.id = r.submission_id JOIN leaderboard.code_files f ON f.id = s.code_id WHERE "
        "s.leaderboard_id IN (" + kAmd + ")" + (passed_only ? " AND r.passed" : "") +
        " ORDER BY s.id, r.id");
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
                             "leaderboard_id IN (") + kAmd + ")")
            .bytes(0, 0)));
    ASSERT_FALSE(anon_values.empty());
    EXPECT_EQ(anon_values.size(), anonymised.size()) << "two users share an anonymous id";
    EXPECT_GE(*anon_values.begin(), 1);
    EXPECT_LE(*anon_values.rbegin(), n);
  }
  // No platform user id anywhere in the folder (files, metadata, card).
  Result users = db->exec(std::string("SELECT DISTINCT user_id FROM leaderboard.submission WHERE "
                                      "leaderboard_id IN (") + kAmd + ")");
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
  for (const char* file : {"nvidia_nvfp4_submissions.parquet", "submissions.parquet",
                           "leaderboards.parquet"}) {
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
  ChildResult refused = kbdata_export(
      {"--db", server->url("kb"), "--out", out, "--config", "practice=901,990"});
  expect_one_line_failure(refused, "leaderboard 990 'open_practice_softmax' (config practice) is "
                                   "still open");
  EXPECT_TRUE(fs::is_empty(out));
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
    ChildResult r = kbdata_export({"--db", server->url("kb"), "--out", dir_, "--config",
                                   "trimul_submissions=496"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    before_ = folder(dir_);
    ASSERT_EQ(before_.size(), 3u);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void expect_untouched() {
    std::map<std::string, std::string> after = folder(dir_);
    ASSERT_EQ(after.size(), before_.size()) << "a file was added or removed";
    for (const auto& [name, bytes] : before_) {
      ASSERT_TRUE(after.count(name)) << name;
      EXPECT_TRUE(after[name] == bytes) << name << " changed";
    }
  }
  std::vector<std::string> export_args(const std::string& url) {
    return {"--db",     url, "--out", dir_, "--config", "trimul_submissions=496", "--config",
            std::string("nvidia_nvfp4_submissions=") + kNvfp4};
  }
  std::string dir_;
  std::map<std::string, std::string> before_;
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
  // The configs are written by now, as temporary files beside their destinations.
  size_t temporaries = 0;
  for (const auto& e : fs::directory_iterator(dir_)) {
    temporaries += e.path().filename().string().find(".tmp-") != std::string::npos;
  }
  EXPECT_EQ(temporaries, 4u);
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
  ChildResult r = kbdata_export({"--db", server->url("kb"), "--out", under_file, "--config",
                                 "trimul_submissions=496"});
  expect_one_line_failure(r, under_file);
  expect_untouched();
  // A folder the (non-root) user may not write into.
  if (::geteuid() == 0) {
    ChildResult as_other =
        testing::run_child({kKbdata, "export", "--db", server->url("kb"), "--out", dir_,
                            "--config", "trimul_submissions=496"},
                           "postgres");
    expect_one_line_failure(as_other, dir_);
    EXPECT_NE(as_other.err.find("Permission denied"), std::string::npos) << as_other.err;
  }
  expect_untouched();
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
  ChildResult unknown = kbdata_export(
      {"--db", server->url("kb"), "--out", out, "--config", "x=12345"});
  expect_one_line_failure(unknown, "leaderboard 12345 (config x) does not exist");
}

// More data than the memory bound: 10,000 submissions of 24 KB of code that snappy cannot
// compress (random base64 text; 240 MB) exported with a peak resident size under 128 MB.
TEST(Export, MemoryStaysBounded) {
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
  ChildResult r = kbdata_export({"--db", server->url("big"), "--out", out, "--config",
                                 "trimul_submissions=496"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const uint64_t size = fs::file_size(out + "/trimul_submissions.parquet");
  const long bound_kb = 128 * 1024;
  EXPECT_GT(size, static_cast<uint64_t>(bound_kb) * 1024 * 3 / 2) << "not more data than the bound";
  EXPECT_LT(r.max_rss_kb, bound_kb) << "peak RSS " << r.max_rss_kb << " KB for " << size
                                    << " bytes";
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
