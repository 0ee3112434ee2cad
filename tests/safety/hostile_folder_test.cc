// A data folder of hostile files run through every command and every format (docs/cli.md,
// "Safety"): whatever a file holds, kbdata ends within a time limit, never by a signal, and either
// answers with every row accounted for or fails with one line naming the file.
//
// Each hostile file sits beside a small clean flat config (the same rows every time), in a folder
// of its own:
//   unreadable ones (truncated, empty, wrong magic, a column of the wrong type): every command that
//     reads the folder exits 1 with one line naming the file; with --skip-bad it answers from the
//     clean config and names the file in a warning;
//   readable ones (NaN, infinite and negative scores, control characters and bidirectional
//     overrides in names and code, one submission id given twice): every command and format exits
//     0, `submissions` lists every row of the folder, and no ranking shows a score that measures
//     nothing (NaN, infinite, negative, 0 or subnormal: dataset::valid_score).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "safety/sandbox.h"
#include "support/cli_expect.h"
#include "support/submission_files.h"

namespace kbdata::testing {
namespace {

constexpr int kTimeoutSeconds = 60;
constexpr int64_t kLeaderboard = 597;  // nvfp4_gemm in the registry
constexpr const char* kProblem = "nvfp4_gemm";

FlatRow row(int64_t id, const std::string& user, std::optional<double> score) {
  FlatRow r;
  r.submission_id = id;
  r.leaderboard_id = kLeaderboard;
  r.problem_name = kProblem;
  r.user_id = user;
  r.user_name = user;
  r.code_id = id;
  r.submission_time = 1'760'000'000'000'000 + id * 1'000'000;
  r.status = score ? "succeeded" : "failed";
  r.score = score;
  r.passed = score.has_value();
  r.mode = "leaderboard";
  r.runner = "B200";
  r.code = "import torch\n# kernel " + std::to_string(id) + "\n";
  return r;
}

// The clean config every folder holds: six users, one scored row each and one failing row.
std::vector<FlatRow> clean_rows() {
  std::vector<FlatRow> rows;
  for (int i = 0; i < 6; ++i) {
    rows.push_back(row(1000 + i, "user" + std::to_string(i), 1e-3 * (i + 1)));
  }
  rows.push_back(row(1010, "user0", std::nullopt));
  return rows;
}

std::string bytes_of(const std::vector<uint8_t>& bytes) { return {bytes.begin(), bytes.end()}; }

// A flat file whose `score` column holds strings: a type the model does not understand.
std::string score_as_text() {
  std::vector<parquet::SchemaElement> schema = flat_schema();
  for (parquet::SchemaElement& e : schema) {
    if (e.name != "score") continue;
    e = detail::str("score");
  }
  MemorySink sink;
  parquet::FileWriter writer(sink, schema, {});
  detail::Batches b(writer.schema());
  for (int i = 0; i < 3; ++i) {
    const FlatRow r = row(2000 + i, "typed" + std::to_string(i), 1.0);
    b.fixed<int64_t>(0, r.submission_id, false);
    b.fixed<int64_t>(1, r.leaderboard_id, false);
    b.text(2, r.problem_name);
    b.text(3, r.user_id);
    b.text(4, r.user_name);
    b.fixed<int64_t>(5, r.code_id, false);
    b.text(6, r.file_name);
    b.fixed<int64_t>(7, r.submission_time, false);
    b.text(8, r.status);
    b.text(9, std::string("fast"));
    b.boolean(10, r.passed);
    b.text(11, r.mode);
    b.text(12, r.runner);
    b.text(13, r.code);
  }
  writer.write(b.b);
  writer.close();
  return bytes_of(sink.take());
}

struct Hostile {
  std::string name;       // the file's name in the folder
  std::string bytes;      // its content
  bool readable = false;  // a well-formed file kbdata must answer from
  int rows = 0;           // readable: the rows `submissions` must list from it
};

std::vector<Hostile> hostile_files() {
  const std::string clean = bytes_of(flat_file(clean_rows()));
  std::vector<Hostile> all;
  all.push_back({"truncated.parquet", clean.substr(0, clean.size() * 2 / 3)});
  all.push_back({"empty.parquet", ""});
  all.push_back({"magic.parquet", "PAR1 this is not a Parquet file at all PAR2"});
  all.push_back({"typed.parquet", score_as_text()});

  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  all.push_back(
      {"nonfinite.parquet",
       bytes_of(flat_file({row(3000, "nan", nan), row(3001, "inf", inf), row(3002, "neginf", -inf),
                           row(3003, "negative", -1e-3), row(3004, "zero", 0.0),
                           row(3005, "denormal", std::numeric_limits<double>::denorm_min())})),
       true, 6});

  FlatRow control = row(4000, "ctl", 5e-4);
  control.user_name = "evil\x1b[2J\x1b]0;title\x07\r\xe2\x80\xaeuser";
  control.file_name = "a\nb\x1b[31m\xe2\x80\x8f.py";
  control.code = "print('\x1b[2J')\x00\x7f\xe2\x80\xae";
  control.code += std::string("\0tail", 5);
  all.push_back({"control.parquet", bytes_of(flat_file({control})), true, 1});

  // One submission id twice in one file (two runners: both rows are real).
  FlatRow twice_a = row(5000, "twice", 2e-3);
  FlatRow twice_b = twice_a;
  twice_b.runner = "H100";
  twice_b.score = 3e-3;
  all.push_back({"twice.parquet", bytes_of(flat_file({twice_a, twice_b})), true, 2});
  return all;
}

// Every command that reads a data folder, with every format it offers (DATA and OUT filled in).
std::vector<std::string> commands() {
  std::vector<std::string> all = {"configs --data DATA", "configs --data DATA --format json"};
  for (const std::string format : {"table", "csv", "json", "jsonl", "parquet"}) {
    const std::string out = format == "parquet" ? " --out OUT/result.parquet" : "";
    all.push_back("submissions --data DATA -p " + std::string(kProblem) + " --with-code --format " +
                  format + out);
    all.push_back("top --data DATA -p " + std::string(kProblem) + " --format " + format + out);
    all.push_back("records --data DATA -p " + std::string(kProblem) + " --format " + format + out);
    all.push_back("progression --data DATA --user user0 -p " + std::string(kProblem) +
                  " --format " + format + out);
    all.push_back("fastest --data DATA --with-code --format " + format + out);
    all.push_back("stats --data DATA --format " + format + out);
    all.push_back("audit --data DATA --with-evidence --format " + format + out);
    all.push_back("techniques --data DATA --format " + format + out);
    all.push_back("techniques --data DATA --trend -p " + std::string(kProblem) + " --format " +
                  format + out);
    all.push_back("techniques --data DATA --winners -p " + std::string(kProblem) + " --format " +
                  format + out);
    all.push_back("submissions --data DATA --columns submission_id,language,features --format " +
                  format + out);
  }
  for (const std::string format : {"table", "json", "jsonl"}) {
    all.push_back("show --data DATA 1000 --format " + format);
  }
  all.push_back("extract --data DATA -p " + std::string(kProblem) + " --all --out OUT/code");
  for (const std::string format : {"jsonl", "parquet", "chat", "preference"}) {
    const std::string out = format == "parquet" ? "OUT/pairs.parquet" : "OUT/pairs.jsonl";
    all.push_back("pairs --data DATA --out " + out + " --all-pairs --format " + format);
  }
  all.push_back("pairs --data DATA --out OUT/t.parquet --trajectories");
  all.push_back("pairs --data DATA --out OUT/t.jsonl --trajectories --format chat");
  return all;
}

std::string fill(const std::string& args, const std::string& data, const std::string& out) {
  return fill_placeholders(args, {{"DATA", data}, {"OUT", out}});
}

// The folder for one hostile file: the clean config under a registry name, the file beside it.
std::string make_folder(Sandbox& box, const Hostile& h) {
  const std::string data = box.folder("data");
  write_bytes(data + "/nvidia_nvfp4_submissions.parquet", flat_file(clean_rows()));
  box.write("data/" + h.name, h.bytes);
  return data;
}

void expect_ended_cleanly(const Result& r) {
  ASSERT_NE(r.exit_code, 137) << "killed after " << kTimeoutSeconds << " s: a hang";
  ASSERT_GE(r.exit_code, 0) << "ended by a signal";
  ASSERT_LT(r.exit_code, 128) << "ended by a signal; stderr: " << r.err;
  EXPECT_NE(r.err.find("internal error"), 0u) << r.err;
}

// gtest prints a parameter with this (not as bytes).
void PrintTo(const Hostile& h, std::ostream* os) { *os << h.name; }

std::vector<Hostile> readable_files() {
  std::vector<Hostile> out;
  for (Hostile& h : hostile_files()) {
    if (h.readable) out.push_back(std::move(h));
  }
  return out;
}

class HostileFolder : public ::testing::TestWithParam<Hostile> {};
class ReadableHostileFolder : public ::testing::TestWithParam<Hostile> {};

TEST_P(HostileFolder, EveryCommandAndFormat) {
  const Hostile& h = GetParam();
  for (const std::string& command : commands()) {
    SCOPED_TRACE(command);
    Sandbox box;
    const std::string data = make_folder(box, h);
    const std::string out = box.folder("out");
    const Result r =
        run_limited(fill(command, shell_quote(data), shell_quote(out)), kTimeoutSeconds);
    expect_ended_cleanly(r);
    if (h.readable) {
      EXPECT_EQ(r.exit_code, 0) << r.err;
      continue;
    }
    // Unreadable: one line naming the file, exit 1; configs lists the folder first.
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find(h.name), std::string::npos) << r.err;
    const size_t lines = static_cast<size_t>(std::count(r.err.begin(), r.err.end(), '\n'));
    EXPECT_EQ(lines, 1u) << r.err;

    Sandbox skipped;
    const std::string data2 = make_folder(skipped, h);
    const std::string out2 = skipped.folder("out");
    const Result s = run_limited(
        fill(command, shell_quote(data2), shell_quote(out2)) + " --skip-bad", kTimeoutSeconds);
    expect_ended_cleanly(s);
    EXPECT_EQ(s.exit_code, 0) << s.err;
    EXPECT_NE(s.err.find("warning"), std::string::npos) << s.err;
    EXPECT_NE(s.err.find(h.name), std::string::npos) << s.err;
  }
}

// Nothing readable is lost: `submissions` lists the clean config's rows and every row of the file.
TEST_P(ReadableHostileFolder, NoRowGoesMissingInSilence) {
  const Hostile& h = GetParam();
  Sandbox box;
  const std::string data = make_folder(box, h);
  const Result r = run_limited(
      "submissions --data " + shell_quote(data) + " --format jsonl --columns submission_id,score",
      kTimeoutSeconds);
  expect_ended_cleanly(r);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = static_cast<int>(std::count(r.out.begin(), r.out.end(), '\n'));
  EXPECT_EQ(lines, static_cast<int>(clean_rows().size()) + h.rows) << r.out;
}

// A score that measures nothing (dataset::valid_score: NaN, infinite, negative, 0 or subnormal)
// never ranks: the ranking of the folder with the non-finite file is the clean ranking, with no
// 0.00 µs tied at rank 1.
TEST(HostileScores, NonFiniteAndNegativeNeverQualify) {
  Sandbox box;
  const Hostile nonfinite = hostile_files()[4];
  ASSERT_EQ(nonfinite.name, "nonfinite.parquet");
  const std::string data = make_folder(box, nonfinite);
  const Result r = run_limited(
      "top --data " + shell_quote(data) + " -p " + kProblem + " --format jsonl", kTimeoutSeconds);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> users;
  size_t start = 0;
  for (size_t end; (end = r.out.find('\n', start)) != std::string::npos; start = end + 1) {
    const nlohmann::json line = nlohmann::json::parse(r.out.substr(start, end - start));
    users.push_back(line.at("user_id").get<std::string>());
  }
  const std::vector<std::string> expected = {"user0", "user1", "user2", "user3", "user4", "user5"};
  EXPECT_EQ(users, expected) << r.out;
}

// stats counts by the same rule: the six scores of the file that measure nothing are
// invalid_scores, and none of them is among the qualifying rows.
TEST(HostileScores, StatsCountsEveryScoreThatMeasuresNothing) {
  Sandbox box;
  const Hostile nonfinite = hostile_files()[4];
  ASSERT_EQ(nonfinite.name, "nonfinite.parquet");
  const std::string data = make_folder(box, nonfinite);
  const Result r =
      run_limited("stats --data " + shell_quote(data) + " --format jsonl", kTimeoutSeconds);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  bool seen = false;
  size_t start = 0;
  for (size_t end; (end = r.out.find('\n', start)) != std::string::npos; start = end + 1) {
    const nlohmann::json line = nlohmann::json::parse(r.out.substr(start, end - start));
    if (line.at("config").get<std::string>() != "nonfinite.parquet") continue;
    seen = true;
    EXPECT_EQ(line.at("invalid_scores").get<int>(), 6) << r.out;
    EXPECT_EQ(line.at("qualifying").get<int>(), 0) << r.out;
  }
  EXPECT_TRUE(seen) << r.out;
}

// Machine formats keep untrusted bytes exactly; a table on a pipe shows no raw escape character.
TEST(HostileText, MachineFormatsKeepTheBytes) {
  Sandbox box;
  const Hostile control = hostile_files()[5];
  ASSERT_EQ(control.name, "control.parquet");
  const std::string data = make_folder(box, control);
  const Result r = run_limited("submissions --data " + shell_quote(data) +
                                   " --format jsonl --columns submission_id,user_name,file_name "
                                   "--user-id ctl",
                               kTimeoutSeconds);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json line = nlohmann::json::parse(r.out);
  EXPECT_EQ(line.at("user_name").get<std::string>(),
            "evil\x1b[2J\x1b]0;title\x07\r\xe2\x80\xaeuser");
  EXPECT_EQ(line.at("file_name").get<std::string>(), "a\nb\x1b[31m\xe2\x80\x8f.py");
}

std::string param_name(const ::testing::TestParamInfo<Hostile>& param) {
  return param.param.name.substr(0, param.param.name.find('.'));
}

INSTANTIATE_TEST_SUITE_P(Files, HostileFolder, ::testing::ValuesIn(hostile_files()), param_name);
// kbdata pairs makes no pair of a score that measures nothing (0 s would be an infinite speedup):
// by the one rule such a row does not qualify, as in every ranking.
TEST(HostileScores, PairsPairNoScoreThatMeasuresNothing) {
  Sandbox box;
  const Hostile nonfinite = hostile_files()[4];
  ASSERT_EQ(nonfinite.name, "nonfinite.parquet");
  const std::string data = make_folder(box, nonfinite);
  const std::string out = box.folder("out") + "/p.jsonl";
  const Result r = run_limited(
      "pairs --data " + shell_quote(data) + " --out " + shell_quote(out) + " --all-pairs",
      kTimeoutSeconds);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("scored 0 s"), std::string::npos) << r.out;
  std::ifstream in(out);
  for (std::string line; std::getline(in, line);) {
    const nlohmann::json pair = nlohmann::json::parse(line);
    const double baseline = pair.at("baseline_score").get<double>();
    const double improved = pair.at("improved_score").get<double>();
    EXPECT_TRUE(std::isnormal(baseline) && baseline > 0) << line;
    EXPECT_TRUE(std::isnormal(improved) && improved > 0) << line;
  }
}

INSTANTIATE_TEST_SUITE_P(Files, ReadableHostileFolder, ::testing::ValuesIn(readable_files()),
                         param_name);

}  // namespace
}  // namespace kbdata::testing
