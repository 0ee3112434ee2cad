// kbdata tasks and kbdata place run as a user would (docs/evaluation.md): --after and
// --decontaminate on the bundled sample, checked against the rows `kbdata submissions` lists; the
// rank intervals of the medium synthetic set, whose 598 has the planted late noise and 697 not;
// the card beside --out; every output format; bad input.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "support/oracle.h"
#include "support/run_kbdata.h"
#include "support/temp_dir.h"

namespace kbdata::testing {
namespace {

using nlohmann::json;

const std::string kSample = std::string(KBDATA_SOURCE_DIR) + "/data/sample";
const std::string kData = " --data " + kSample;

std::vector<json> json_lines(const std::string& text) {
  std::vector<json> out;
  for (const std::string& line : lines(text)) {
    if (!line.empty()) out.push_back(json::parse(line));
  }
  return out;
}

using TaskKey = std::pair<std::string, std::string>;  // problem, runner

TaskKey key_of(const json& row) {
  return {row["problem_name"].get<std::string>(), row["runner"].get<std::string>()};
}

// The tasks of the sample by the rows `kbdata submissions` lists: each (problem, runner) with a
// qualifying row, and the first submission of any of its rows (ISO text, which sorts as time).
std::map<TaskKey, std::string> tasks_from_submissions() {
  const Result r = run("submissions -f jsonl" + kData);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::map<TaskKey, std::string> first;
  std::set<TaskKey> qualifying;
  for (const json& row : json_lines(r.out)) {
    if (row["runner"].is_null()) continue;
    const TaskKey key = key_of(row);
    const std::string time = row["submission_time"];
    if (!first.count(key) || time < first[key]) first[key] = time;
    if (!row["score"].is_null() && row["passed"] == true && row["status"] != "hacked") {
      qualifying.insert(key);
    }
  }
  std::map<TaskKey, std::string> out;
  for (const TaskKey& k : qualifying) out[k] = first[k];
  return out;
}

std::set<TaskKey> task_keys(const std::string& out) {
  std::set<TaskKey> keys;
  for (const json& t : json_lines(out)) keys.insert(key_of(t));
  return keys;
}

TEST(TasksCli, AfterKeepsTheTasksFirstSubmittedAfterTheDate) {
  const std::map<TaskKey, std::string> all = tasks_from_submissions();
  ASSERT_GT(all.size(), 20u);
  Result r = run("tasks -f jsonl" + kData);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::set<TaskKey> expected;
  for (const auto& [key, first] : all) expected.insert(key);
  EXPECT_EQ(task_keys(r.out), expected);

  for (const std::string date : {"2025-12-01", "2026-06-01", "2026-08-15T12:00"}) {
    std::string iso = date.size() == 10 ? date + "T00:00:00.000000Z" : date + ":00.000000Z";
    expected.clear();
    for (const auto& [key, first] : all) {
      if (first > iso) expected.insert(key);
    }
    ASSERT_FALSE(expected.empty()) << date;
    ASSERT_LT(expected.size(), all.size()) << date;
    r = run("tasks --after " + date + " -f jsonl" + kData);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(task_keys(r.out), expected) << date;
    for (const json& t : json_lines(r.out)) {
      EXPECT_GT(t["first_submission"].get<std::string>(), iso);
    }
  }
}

TEST(TasksCli, DecontaminateMarksTheTasksWhoseHumanCodeIsInTheSet) {
  // The training set: the code of one qualifying trimul row.
  Result r = run("submissions -p trimul --runner H100 --scored --with-code -f jsonl" + kData);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json first = json_lines(r.out).at(0);
  const std::string code = first["code"];
  TempDir dir("evaluation");
  const std::string set = dir.file("train.py");
  std::ofstream(set) << code;
  // The tasks holding a qualifying row of exactly that code must be marked.
  r = run("submissions --scored --with-code -f jsonl" + kData);
  std::set<TaskKey> exact;
  for (const json& row : json_lines(r.out)) {
    if (row["code"] == code && row["passed"] == true && !row["runner"].is_null()) {
      exact.insert(key_of(row));
    }
  }
  ASSERT_TRUE(exact.count({"trimul", "H100"}));

  r = run("tasks --decontaminate " + set + " -f jsonl" + kData);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::set<TaskKey> marked;
  size_t tasks = 0;
  for (const json& t : json_lines(r.out)) {
    ++tasks;
    ASSERT_TRUE(t["contaminated"].is_boolean()) << t.dump();
    if (t["contaminated"] == true) {
      marked.insert(key_of(t));
      EXPECT_GE(t["contaminated_rows"].get<int64_t>(), 1);
      // One trimul kernel is no kernel of another problem.
      EXPECT_EQ(t["problem_name"], "trimul") << t.dump();
    } else {
      EXPECT_EQ(t["contaminated_rows"], 0);
    }
  }
  for (const TaskKey& k : exact) EXPECT_TRUE(marked.count(k)) << k.first << " " << k.second;
  EXPECT_LT(marked.size(), tasks);
  // Marked, not left out: the same tasks as without the set.
  EXPECT_EQ(tasks, task_keys(run("tasks -f jsonl" + kData).out).size());
  // Without --decontaminate the marks are null, and the tuning options need it.
  for (const json& t : json_lines(run("tasks -p trimul -f jsonl" + kData).out)) {
    EXPECT_TRUE(t["contaminated"].is_null());
  }
  r = run("tasks --ngram 8" + kData);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("tune --decontaminate PATH: give it"), std::string::npos) << r.err;
}

TEST(TasksCli, TheCardBesideTheOutputSaysHowTheTasksWereChosen) {
  TempDir dir("evaluation");
  const std::string out = dir.file("tasks.jsonl");
  Result r = run("tasks --after 2026-06-01 --out " + out + kData);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string card = read_file(out + ".card.md");
  EXPECT_NE(card.find("`--after 2026-06-01`"), std::string::npos) << card;
  EXPECT_NE(card.find("44 left out"), std::string::npos) << card;
  EXPECT_NE(card.find("File `tasks.jsonl`: 8 tasks"), std::string::npos) << card;
  EXPECT_EQ(json_lines(read_file(out)).size(), 8u);
  // Parquet too, read back by kbdata cat.
  const std::string parquet = dir.file("tasks.parquet");
  r = run("tasks -p trimul --out " + parquet + kData);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(parquet + ".card.md"));
  const std::vector<json> rows = json_lines(run("cat " + parquet + " -f jsonl").out);
  ASSERT_EQ(rows.size(), 4u);  // trimul on A100, B200, H100 and MI300
  EXPECT_TRUE(rows[0]["epochs"].is_array());
  EXPECT_EQ(rows[0]["reliability_note"], "scores compare only within one runner");
}

TEST(TasksCli, EveryFormat) {
  for (const std::string format : {"table", "csv", "json", "jsonl"}) {
    const Result r = run("tasks -p nvfp4_gemm -f " + format + kData);
    ASSERT_EQ(r.exit_code, 0) << format << r.err;
    EXPECT_NE(r.out.find("nvfp4_gemm"), std::string::npos) << format;
  }
  const Result csv = run("tasks -p nvfp4_gemm -f csv" + kData);
  EXPECT_EQ(lines(csv.out).at(0).rfind("leaderboard_id,problem_name,runner,gpu,ranking_by,", 0), 0u)
      << csv.out;
}

TEST(TasksCli, AnUnknownProblemIsDataNothingRanksThere) {
  const Result r = run("tasks -p nvfp4_gem -f jsonl" + kData);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "kbdata: no tasks: nothing ranks on problem 'nvfp4_gem' in " + kSample +
                       "; did you mean 'nvfp4_gemm'?\n");
}

// The medium synthetic set plants sigma 0.04 on 598 (nvfp4_dual_gemm) that grows to 0.39 after
// its change, and keeps 697 (modal_nvfp4_dual_gemm, the same problem on Modal) quiet: a score
// placed in 598's last epoch has a wider rank interval than one placed on 697.
TEST(PlaceCli, IntervalsWidenWithTheLeaderboardsNoise) {
  TempDir dir("evaluation");
  Result tasks =
      run("tasks -p nvfp4_dual_gemm -p modal_nvfp4_dual_gemm -f jsonl --data " + medium_data());
  ASSERT_EQ(tasks.exit_code, 0) << tasks.err;
  std::map<std::string, json> by_problem;
  for (const json& t : json_lines(tasks.out)) by_problem[t["problem_name"]] = t;
  ASSERT_EQ(by_problem.size(), 2u);
  // Each placed at its own human quartiles.
  const std::string results = dir.file("results.jsonl");
  {
    std::ofstream f(results);
    for (const auto& [problem, t] : by_problem) {
      for (const char* q : {"q1", "median", "q3"}) {
        f << json{{"problem", problem},
                  {"runner", t["runner"]},
                  {"score", t[q]},
                  {"label", problem}}
                 .dump()
          << "\n";
      }
    }
  }
  Result r = run("place --results " + results + " -f jsonl --data " + medium_data());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, std::vector<json>> placed;
  for (const json& p : json_lines(r.out)) {
    ASSERT_TRUE(p["refused"].is_null()) << p.dump();
    placed[p["problem_name"]].push_back(p);
  }
  ASSERT_EQ(placed["nvfp4_dual_gemm"].size(), 3u);
  ASSERT_EQ(placed["modal_nvfp4_dual_gemm"].size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    const json& loud = placed["nvfp4_dual_gemm"][i];
    const json& quiet = placed["modal_nvfp4_dual_gemm"][i];
    EXPECT_GT(loud["sigma"].get<double>(), 5 * quiet["sigma"].get<double>());
    const double loud_width =
        double(loud["rank_worst"].get<int64_t>() - loud["rank_best"].get<int64_t>()) /
        loud["users"].get<double>();
    const double quiet_width =
        double(quiet["rank_worst"].get<int64_t>() - quiet["rank_best"].get<int64_t>()) /
        quiet["users"].get<double>();
    EXPECT_GT(loud_width, 3 * quiet_width) << loud.dump() << "\n" << quiet.dump();
    EXPECT_LE(loud["rank_best"].get<int64_t>(), loud["rank"].get<int64_t>());
    EXPECT_GE(loud["rank_worst"].get<int64_t>(), loud["rank"].get<int64_t>());
    // The compared epoch is the last one holding rows: the one in force at the last submission.
    EXPECT_EQ(loud["epoch"], 5);
  }
}

TEST(PlaceCli, ScoresOnTheCommandLineInEveryFormat) {
  TempDir dir("evaluation");
  for (const std::string format : {"table", "csv", "json", "jsonl", "parquet"}) {
    const std::string out = dir.file("placed." + format);
    const Result r =
        run("place -p nvfp4_gemm --runner NVIDIA 20us 12us -f " + format + " -o " + out + kData);
    ASSERT_EQ(r.exit_code, 0) << format << r.err;
    EXPECT_NE(read_file(out).size(), 0u) << format;
  }
  const std::vector<json> rows =
      json_lines(run("cat " + dir.file("placed.parquet") + " -f jsonl").out);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["score"], 2e-05);
  EXPECT_EQ(rows[1]["rank"], 1);
  // The table for people says where the notes say what.
  const Result table = run("place -p nvfp4_dual_gemm --runner NVIDIA 20us" + kData);
  EXPECT_NE(table.out.find("note: nvfp4_dual_gemm (598)"), std::string::npos) << table.out;
}

TEST(PlaceCli, BadInput) {
  TempDir dir("evaluation");
  // A score kbdata cannot read is a one-line error naming it.
  Result r = run("place -p nvfp4_gemm --runner NVIDIA 20xs" + kData);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.substr(0, 30), "kbdata: score '20xs': not a ti");
  EXPECT_EQ(lines(r.err).size(), 1u);
  const std::string csv = dir.file("results.csv");
  std::ofstream(csv)
      << "problem,runner,score,label\nnvfp4_gemm,NVIDIA,20us,a\ntrimul,H100,fast,a\n";
  r = run("place --results " + csv + kData);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "kbdata: " + csv +
                       ":3: score 'fast': not a time (a positive number of seconds, optionally "
                       "with a unit: 1.5e-05, 15us, 0.015 ms)\n");
  std::ofstream(csv) << "problem,runner,scroe\nnvfp4_gemm,NVIDIA,20us\n";
  r = run("place --results " + csv + kData);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(":1: unknown field 'scroe'; did you mean 'score'?"), std::string::npos)
      << r.err;
  // An unknown problem or runner is data: the row says nothing ranks there.
  std::ofstream(csv) << "problem,runner,score\nnvfp4_gem,NVIDIA,20us\nnvfp4_gemm,H100,20us\n";
  r = run("place --results " + csv + " -f jsonl" + kData);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::vector<json> rows = json_lines(r.out);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["refused"],
            "nothing ranks there: no qualifying submission of nvfp4_gem on NVIDIA in the data; "
            "did you mean 'nvfp4_gemm'?");
  EXPECT_EQ(rows[1]["refused"],
            "nothing ranks there: no qualifying submission of nvfp4_gemm on H100 in the data");
  // Scores of one problem read only its rows; when none ranks, the others still name the
  // problems the "did you mean" chooses from.
  std::ofstream(csv) << "problem,runner,score\nnvfp4_gem,NVIDIA,20us\n";
  r = run("place --results " + csv + " -f jsonl" + kData);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(json_lines(r.out).size(), 1u);
  EXPECT_EQ(json_lines(r.out)[0]["refused"], rows[0]["refused"]);
  // Scores given on the command line read one runner's rows: the problems of the others still
  // count as known (from the leaderboards file), so a problem named right on a runner it never
  // ran on gets no suggestion, and a misspelt one gets the right one.
  r = run("place -p nvfp4_gemm --runner H100 20us -f jsonl" + kData);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(json_lines(r.out).size(), 1u);
  EXPECT_EQ(json_lines(r.out)[0]["refused"], rows[1]["refused"]);
  r = run("place -p nvfp4_gem --runner H100 20us -f jsonl" + kData);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(json_lines(r.out).size(), 1u);
  EXPECT_EQ(json_lines(r.out)[0]["refused"],
            "nothing ranks there: no qualifying submission of nvfp4_gem on H100 in the data; "
            "did you mean 'nvfp4_gemm'?");
  // Usage.
  EXPECT_EQ(run("place 20us" + kData).exit_code, 2);
  EXPECT_EQ(run("place --results " + csv + " 20us" + kData).exit_code, 2);
  EXPECT_EQ(run("place -p trimul --runner H100 --at yesterday 1ms" + kData).exit_code, 2);
  r = run("place --results " + dir.path() + kData);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("not a regular file"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace kbdata::testing
