// The analyses against an independent implementation of the same rules: DuckDB SQL over the
// `medium` synthetic data set (both schema families). Every row must be equal.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "dataset/filter.h"
#include "support/oracle.h"

namespace kbdata::testing {
namespace {

using Rows = std::vector<std::vector<std::optional<std::string>>>;

// DuckDB's text of a number (ADD_FAILURE and 0 when it is null or not a number).
double num(const std::optional<std::string>& text) {
  try {
    if (text) return std::stod(*text);
  } catch (const std::exception&) {
  }
  ADD_FAILURE() << "not a number: " << (text ? "'" + *text + "'" : "NULL");
  return 0;
}

int64_t integer(const std::optional<std::string>& text) {
  try {
    if (text) return std::stoll(*text);
  } catch (const std::exception&) {
  }
  ADD_FAILURE() << "not an integer: " << (text ? "'" + *text + "'" : "NULL");
  return 0;
}

// The flat files of the medium set, as a DuckDB list of paths.
std::string flat_files() {
  static const char* kNames[] = {"amd_1_1m_competition_submissions.parquet",
                                 "helion_b200_nebius_submissions.parquet",
                                 "linalg_submissions.parquet",
                                 "nvidia_nvfp4_submissions.parquet",
                                 "pmpp_v2_submissions.parquet",
                                 "trimul_submissions.parquet"};
  std::string list = "[";
  for (const char* name : kNames) {
    if (list.size() > 1) list += ", ";
    list += sql_path(medium_data() + "/" + name);
  }
  return list + "]";
}

// The model's rows as a DuckDB relation (docs/data-model.md): flat rows as they are; legacy runs
// grouped per submission, score the best passed leaderboard run, status succeeded/failed, no user
// name, and the runner of the leaderboard on the runs' machine: the medium set's legacy runs are on
// MI300X machines, one GPU (the runner MI300) or eight (MI300x8). Columns: leaderboard_id,
// problem_name, user_id, user_name, submission_id, submission_time (µs), status, score, passed,
// runner.
std::string model_sql() {
  return "(SELECT leaderboard_id, problem_name, user_id, user_name, submission_id, "
         "epoch_us(submission_time) AS submission_time, status, score, passed, runner "
         "FROM read_parquet(" +
         flat_files() +
         ", union_by_name = true) "
         "UNION ALL "
         "SELECT leaderboard_id, NULL, CAST(user_id AS VARCHAR), NULL, submission_id, "
         "epoch_us(submission_time), "
         "CASE WHEN score IS NULL THEN 'failed' ELSE 'succeeded' END, score, "
         "CASE WHEN score IS NULL THEN NULL ELSE true END, "
         "CASE WHEN devices IS NULL THEN NULL WHEN devices = 8 THEN 'MI300x8' ELSE 'MI300' END "
         "FROM (SELECT submission_id, any_value(leaderboard_id) AS leaderboard_id, "
         "any_value(user_id) AS user_id, any_value(submission_time) AS submission_time, "
         "min(run_score) FILTER (WHERE run_mode = 'leaderboard' AND run_passed) AS score, "
         "any_value(run_system_info.device_count) AS devices "
         "FROM read_parquet(" +
         sql_path(medium_data() + "/submissions.parquet") + ") GROUP BY submission_id))";
}

std::vector<int64_t> leaderboard_ids() {
  std::vector<int64_t> ids;
  for (const auto& row :
       duckdb().rows("SELECT DISTINCT leaderboard_id FROM " + model_sql() + " ORDER BY 1")) {
    ids.push_back(integer(row[0]));
  }
  return ids;
}

nlohmann::json jsonl(const std::string& text) {
  nlohmann::json rows = nlohmann::json::array();
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) rows.push_back(nlohmann::json::parse(line));
  }
  return rows;
}

std::optional<std::string> text_of(const nlohmann::json& v) {
  if (v.is_null()) return std::nullopt;
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

int64_t micros(const nlohmann::json& iso) {
  return dataset::parse_utc_time(iso.get<std::string>(), "time");
}

TEST(AnalysisOracle, TopEqualsRankSql) {
  const std::vector<int64_t> ids = leaderboard_ids();
  ASSERT_GE(ids.size(), 10u);
  size_t compared = 0;
  std::set<std::string> runners_seen;
  for (int64_t id : ids) {
    SCOPED_TRACE("leaderboard " + std::to_string(id));
    const std::string sql =
        "WITH q AS (SELECT * FROM " + model_sql() +
        " WHERE leaderboard_id = " + std::to_string(id) +
        " AND score IS NOT NULL AND passed AND coalesce(status, '') <> 'hacked'), "
        "best AS (SELECT *, row_number() OVER (PARTITION BY runner, user_id "
        "ORDER BY score, submission_time, submission_id) AS n FROM q) "
        "SELECT rank() OVER (PARTITION BY runner ORDER BY score) AS rank, user_id, user_name, "
        "score, submission_id, submission_time, runner FROM best WHERE n = 1 "
        "ORDER BY runner NULLS LAST, rank, submission_time, submission_id, user_id";
    const Rows expected = duckdb().rows(sql);
    Result r = run("top --data " + medium_data() + " --leaderboard " + std::to_string(id) +
                   " -n 0 --format jsonl");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json got = jsonl(r.out);
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
      const auto& e = expected[i];
      const auto& g = got[i];
      EXPECT_EQ(g["rank"].get<int64_t>(), integer(e[0])) << i;
      EXPECT_EQ(g["user_id"].get<std::string>(), *e[1]) << i;
      EXPECT_EQ(text_of(g["user_name"]), e[2]) << i;
      EXPECT_EQ(g["score"].get<double>(), num(e[3])) << i;
      EXPECT_EQ(g["submission_id"].get<int64_t>(), integer(e[4])) << i;
      EXPECT_EQ(micros(g["submission_time"]), integer(e[5])) << i;
      EXPECT_EQ(text_of(g["runner"]), e[6]) << i;
      if (e[6]) runners_seen.insert(*e[6]);
      ++compared;
    }
  }
  // The comparison covered real rankings: many rows, several runners, the legacy file.
  EXPECT_GT(compared, 500u);
  EXPECT_GE(runners_seen.size(), 4u);
}

TEST(AnalysisOracle, TopWithLimitKeepsTiesAtTheCut) {
  for (int64_t id : leaderboard_ids()) {
    Result all = run("top --data " + medium_data() + " --leaderboard " + std::to_string(id) +
                     " -n 0 --format jsonl");
    Result cut = run("top --data " + medium_data() + " --leaderboard " + std::to_string(id) +
                     " -n 3 --format jsonl");
    ASSERT_EQ(cut.exit_code, 0) << cut.err;
    nlohmann::json expected = nlohmann::json::array();
    for (const auto& row : jsonl(all.out)) {
      if (row["rank"].get<int64_t>() <= 3) expected.push_back(row);
    }
    EXPECT_EQ(jsonl(cut.out), expected) << "leaderboard " << id;
  }
}

// A few users per leaderboard: the three with the most rows, so progressions are long.
std::vector<std::pair<int64_t, std::string>> busy_users() {
  std::vector<std::pair<int64_t, std::string>> out;
  for (const auto& row : duckdb().rows(
           "SELECT leaderboard_id, user_id FROM (SELECT leaderboard_id, user_id, row_number() "
           "OVER (PARTITION BY leaderboard_id ORDER BY count(*) DESC, user_id) AS n FROM " +
           model_sql() + " GROUP BY leaderboard_id, user_id) WHERE n <= 3 ORDER BY ALL")) {
    out.push_back({integer(row[0]), *row[1]});
  }
  return out;
}

void expect_number(const nlohmann::json& got, const std::optional<std::string>& expected,
                   const std::string& what) {
  if (!expected) {
    EXPECT_TRUE(got.is_null()) << what << ": " << got;
  } else {
    ASSERT_TRUE(got.is_number()) << what << ": " << got;
    EXPECT_EQ(got.get<double>(), num(expected)) << what;
  }
}

void expect_bool(const nlohmann::json& got, const std::optional<std::string>& expected,
                 const std::string& what) {
  if (!expected) {
    EXPECT_TRUE(got.is_null()) << what << ": " << got;
  } else {
    EXPECT_EQ(got.dump(), *expected) << what;
  }
}

TEST(AnalysisOracle, ProgressionEqualsWindowSql) {
  const auto users = busy_users();
  ASSERT_GE(users.size(), 30u);
  size_t compared = 0;
  size_t improvements = 0;
  for (const auto& [id, user] : users) {
    SCOPED_TRACE("leaderboard " + std::to_string(id) + " user " + user);
    const std::string sql =
        "WITH o AS (SELECT *, coalesce(score IS NOT NULL AND passed AND coalesce(status, '') <> "
        "'hacked', false) AS q FROM " +
        model_sql() + " WHERE leaderboard_id = " + std::to_string(id) + " AND user_id = '" + user +
        "'), "
        "w AS (SELECT *, "
        "min(CASE WHEN q THEN score END) OVER (PARTITION BY runner ORDER BY submission_time, "
        "submission_id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev, "
        "min(CASE WHEN q THEN score END) OVER (PARTITION BY runner ORDER BY submission_time, "
        "submission_id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS best, "
        "first_value(CASE WHEN q THEN score END IGNORE NULLS) OVER (PARTITION BY runner ORDER BY "
        "submission_time, submission_id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS "
        "first FROM o) "
        "SELECT submission_id, submission_time, runner, status, passed, score, q, best, "
        "q AND (prev IS NULL OR score < prev) AS improved, "
        "CASE WHEN q AND score < prev THEN prev / score END, "
        "CASE WHEN q AND (prev IS NULL OR score < prev) THEN first / score END "
        "FROM w ORDER BY submission_time, submission_id, runner NULLS LAST";
    const Rows expected = duckdb().rows(sql);
    Result r = run("progression --data " + medium_data() + " --leaderboard " + std::to_string(id) +
                   " --user " + user + " --format jsonl");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json got = jsonl(r.out);
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
      const auto& e = expected[i];
      const auto& g = got[i];
      const std::string at = "row " + std::to_string(i);
      EXPECT_EQ(g["leaderboard_id"].get<int64_t>(), id) << at;
      EXPECT_EQ(g["user_id"].get<std::string>(), user) << at;
      EXPECT_EQ(g["submission_id"].get<int64_t>(), integer(e[0])) << at;
      EXPECT_EQ(micros(g["submission_time"]), integer(e[1])) << at;
      EXPECT_EQ(text_of(g["runner"]), e[2]) << at;
      EXPECT_EQ(text_of(g["status"]), e[3]) << at;
      expect_bool(g["passed"], e[4], at + " passed");
      expect_number(g["score"], e[5], at + " score");
      expect_bool(g["qualifies"], e[6], at + " qualifies");
      expect_number(g["best"], e[7], at + " best");
      expect_bool(g["improved"], e[8], at + " improved");
      expect_number(g["factor_previous"], e[9], at + " factor_previous");
      expect_number(g["factor_first"], e[10], at + " factor_first");
      if (g["improved"] == true) ++improvements;
      ++compared;
    }
  }
  EXPECT_GT(compared, 1000u);
  EXPECT_GT(improvements, 100u);
}

TEST(AnalysisOracle, RecordsEqualWindowSql) {
  size_t compared = 0;
  for (int64_t id : leaderboard_ids()) {
    SCOPED_TRACE("leaderboard " + std::to_string(id));
    const std::string sql =
        "WITH q AS (SELECT * FROM " + model_sql() +
        " WHERE leaderboard_id = " + std::to_string(id) +
        " AND score IS NOT NULL AND passed AND coalesce(status, '') <> 'hacked'), "
        "w AS (SELECT *, min(score) OVER (PARTITION BY runner ORDER BY submission_time, "
        "submission_id, user_id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev "
        "FROM q) "
        "SELECT runner, submission_time, submission_id, user_id, user_name, score, prev, "
        "prev / score FROM w WHERE prev IS NULL OR score < prev "
        "ORDER BY runner NULLS LAST, submission_time, submission_id, user_id";
    const Rows expected = duckdb().rows(sql);
    Result r = run("records --data " + medium_data() + " --leaderboard " + std::to_string(id) +
                   " --format jsonl");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json got = jsonl(r.out);
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
      const auto& e = expected[i];
      const auto& g = got[i];
      const std::string at = "row " + std::to_string(i);
      EXPECT_EQ(g["leaderboard_id"].get<int64_t>(), id) << at;
      EXPECT_EQ(text_of(g["runner"]), e[0]) << at;
      EXPECT_EQ(micros(g["submission_time"]), integer(e[1])) << at;
      EXPECT_EQ(g["submission_id"].get<int64_t>(), integer(e[2])) << at;
      EXPECT_EQ(g["user_id"].get<std::string>(), *e[3]) << at;
      EXPECT_EQ(text_of(g["user_name"]), e[4]) << at;
      expect_number(g["score"], e[5], at + " score");
      expect_number(g["previous"], e[6], at + " previous");
      expect_number(g["factor"], e[7], at + " factor");
      ++compared;
    }
  }
  EXPECT_GT(compared, 200u);
}

// The manifest of an extract, one object per line.
nlohmann::json manifest(const std::string& dir) {
  std::ifstream in(dir + "/manifest.jsonl");
  std::stringstream text;
  text << in.rdbuf();
  return jsonl(text.str());
}

// The flat problems of the medium set with their leaderboard ids (PMPP's too).
std::vector<std::pair<std::string, int64_t>> flat_problems() {
  std::vector<std::pair<std::string, int64_t>> out;
  for (const auto& row : duckdb().rows("SELECT DISTINCT problem_name, leaderboard_id FROM "
                                       "read_parquet(" +
                                       flat_files() + ", union_by_name = true) ORDER BY 2")) {
    out.push_back({*row[0], integer(row[1])});
  }
  return out;
}

TEST(AnalysisOracle, ExtractTopKIsTheRankingAndFilesHashAsTheCode) {
  const std::string dir = medium_data() + "-extract";
  size_t compared = 0;
  // A problem or two of every flat config (each extract reads its problem's code).
  const std::set<std::string> some = {
      "nvfp4_gemm", "nvfp4_dual_gemm", "trimul",       "amd-mxfp4-mm",
      "fp8_quant",  "conv2d_v2",       "vectoradd_v2", "qr_v2"};
  for (const auto& [problem, id] : flat_problems()) {
    if (!some.count(problem)) continue;
    SCOPED_TRACE(problem);
    std::filesystem::remove_all(dir);
    Result r = run("extract --data " + medium_data() + " -p " + problem + " --top 3 --out " + dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json got = manifest(dir);
    const Rows expected = duckdb().rows(
        "WITH q AS (SELECT * FROM read_parquet(" + flat_files() +
        ", union_by_name = true) WHERE leaderboard_id = " + std::to_string(id) +
        " AND score IS NOT NULL AND passed AND coalesce(status, '') <> 'hacked'), "
        "b AS (SELECT *, row_number() OVER (PARTITION BY runner, user_id ORDER BY score, "
        "submission_time, submission_id) AS n FROM q), "
        "r AS (SELECT rank() OVER (PARTITION BY runner ORDER BY score) AS rank, * FROM b "
        "WHERE n = 1) "
        "SELECT runner, rank, user_id, submission_id, score, sha256(code), strlen(code) FROM r "
        "WHERE rank <= 3 ORDER BY runner, rank, submission_time, submission_id, user_id");
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
      const auto& e = expected[i];
      const auto& g = got[i];
      const std::string at = "row " + std::to_string(i);
      EXPECT_EQ(text_of(g["runner"]), e[0]) << at;
      EXPECT_EQ(g["rank"].get<int64_t>(), integer(e[1])) << at;
      EXPECT_EQ(g["user_id"].get<std::string>(), *e[2]) << at;
      EXPECT_EQ(g["submission_id"].get<int64_t>(), integer(e[3])) << at;
      expect_number(g["score"], e[4], at + " score");
      EXPECT_EQ(g["sha256"].get<std::string>(), *e[5]) << at;
      EXPECT_EQ(g["bytes"].get<int64_t>(), integer(e[6])) << at;
      EXPECT_EQ(std::filesystem::file_size(dir + "/" + g["path"].get<std::string>()),
                static_cast<uintmax_t>(integer(e[6])))
          << at;
      ++compared;
    }
  }
  std::filesystem::remove_all(dir);
  EXPECT_GT(compared, 40u);
}

TEST(AnalysisOracle, ExtractDedupKeepsOneFilePerCode) {
  const std::string dir = medium_data() + "-dedup";
  size_t compared = 0;
  // Problems of four configs, with a mix of runners; --all writes every row, so not all problems.
  const std::set<std::string> some = {"trimul", "modal_nvfp4_dual_gemm", "fp8_quant", "conv2d_v2",
                                      "cholesky"};
  for (const auto& [problem, id] : flat_problems()) {
    if (!some.count(problem)) continue;
    SCOPED_TRACE(problem);
    std::filesystem::remove_all(dir);
    Result r = run("extract --data " + medium_data() + " -p " + problem +
                   " --all --dedup exact --out " + dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // Per code_id: the submission kept (a submission on several runners may be kept under any
    // of its runners when their scores tie, so runners are not compared) and the rows dropped.
    std::map<int64_t, std::pair<int64_t, int64_t>> got;
    for (const auto& g : manifest(dir)) {
      got[g["code_id"].get<int64_t>()] = {g["submission_id"].get<int64_t>(),
                                          g["duplicates_dropped"].get<int64_t>()};
    }
    std::map<int64_t, std::pair<int64_t, int64_t>> expected;
    for (const auto& e : duckdb().rows(
             "SELECT code_id, arg_min(submission_id, (score IS NULL, score, submission_time, "
             "submission_id)), count(*) - 1 FROM read_parquet(" +
             flat_files() + ", union_by_name = true) WHERE leaderboard_id = " + std::to_string(id) +
             " GROUP BY code_id")) {
      expected[integer(e[0])] = {integer(e[1]), integer(e[2])};
    }
    EXPECT_EQ(got, expected);
    compared += expected.size();
  }
  std::filesystem::remove_all(dir);
  EXPECT_GT(compared, 300u);
}

}  // namespace
}  // namespace kbdata::testing
