// `kbdata dedup` as a user runs it: usage errors, bad input leaving no output, the exact rule on
// a hand-made file, a legacy file becoming a flat one, --emit-all, and the output's layout and
// provenance.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "dataset/flat_file_writer.h"
#include "parquet/file_reader.h"
#include "support/run_kbdata.h"

namespace kbdata {
namespace {

namespace fs = std::filesystem;
using testing::run;

class DedupCliTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    synth_ =
        (fs::temp_directory_path() / ("kbdata-dedup-cli-" + std::to_string(::getpid()))).string();
    fs::remove_all(synth_);
    auto r = run("synth --scale small --family both --seed 2 --out " + synth_);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  static void TearDownTestSuite() { fs::remove_all(synth_); }

  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("kbdata-dedup-cli-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  [[nodiscard]] std::string path(const std::string& name) const { return (dir_ / name).string(); }
  static std::string synth(const std::string& name) { return synth_ + "/" + name; }

  [[nodiscard]] std::vector<std::string> files() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_))
      names.push_back(e.path().filename().string());
    return names;
  }

  // The rows of a Parquet file as JSON objects (kbdata cat).
  static std::vector<nlohmann::json> rows_of(const std::string& file, const std::string& columns) {
    auto r = run("cat " + file + " --columns " + columns);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<nlohmann::json> out;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
    return out;
  }

  // "label   value" lines of the summary.
  static uint64_t summary_value(const std::string& out, const std::string& label) {
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);) {
      if (line.rfind(label + " ", 0) == 0) return std::stoull(line.substr(label.size()));
    }
    ADD_FAILURE() << "no '" << label << "' in " << out;
    return 0;
  }

  static std::string synth_;
  fs::path dir_;
};
std::string DedupCliTest::synth_;

TEST_F(DedupCliTest, UsageErrorsExitWith2AndWriteNothing) {
  const std::string in = synth("nvidia_nvfp4_submissions.parquet");
  const std::string out = path("out.parquet");
  struct Case {
    std::string args;
    std::string message;
  };
  for (const Case& c : {
           Case{in + " " + out, "give one of --exact"},
           Case{in + " " + out + " --exact --fuzzy", "give one of --exact"},
           // The library's checks, their options spelled as flags with the value given.
           Case{in + " " + out + " --fuzzy --threshold 1.5",
                "kbdata: --threshold 1.5: must be in (0, 1] (see 'kbdata dedup --help')"},
           Case{in + " " + out + " --fuzzy --threshold 0", "--threshold 0: must be in (0, 1]"},
           Case{in + " " + out + " --fuzzy --shingle-bytes 0",
                "--shingle-bytes 0: must be between 1 and 64"},
           Case{in + " " + out + " --fuzzy --jobs -1", "--threads"},  // --jobs: its older name
           Case{in + " " + out + " --exact --across-users",
                "--across-users applies to --fuzzy only"},
           Case{in + " " + in + " --exact", "is one of the command's inputs"},
           Case{in + " --exact", "OUT"},
           Case{in + " " + out + " -o " + path("other.parquet") + " --exact", "excludes"},
       }) {
    auto r = run("dedup " + c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_TRUE(files().empty()) << c.args;
  }
  EXPECT_TRUE(fs::exists(in));  // OUT = IN refused before anything is written
}

TEST_F(DedupCliTest, BadInputFailsWith1AndLeavesNoOutput) {
  const std::string out = path("out.parquet");
  // Missing.
  auto missing = run("dedup " + path("nope.parquet") + " " + out + " --fuzzy");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("nope.parquet"), std::string::npos) << missing.err;
  // Truncated: the footer is gone.
  const std::string whole = testing::read_file(synth("nvidia_nvfp4_submissions.parquet"));
  const std::string cut = path("cut.parquet");
  {
    std::ofstream f(cut, std::ios::binary);
    f << whole.substr(0, whole.size() / 2);
  }
  auto truncated = run("dedup " + cut + " " + out + " --fuzzy");
  EXPECT_EQ(truncated.exit_code, 1);
  EXPECT_NE(truncated.err.find("cut.parquet"), std::string::npos) << truncated.err;
  EXPECT_EQ(std::count(truncated.err.begin(), truncated.err.end(), '\n'), 1) << truncated.err;
  // A corrupt page in the middle: the footer is intact, the code column's bytes are not.
  std::string damaged = whole;
  for (size_t i = damaged.size() / 3; i < damaged.size() / 3 + 4096; ++i) damaged[i] = '\x5a';
  const std::string bad = path("bad.parquet");
  {
    std::ofstream f(bad, std::ios::binary);
    f << damaged;
  }
  auto corrupt = run("dedup " + bad + " " + out + " --fuzzy");
  EXPECT_EQ(corrupt.exit_code, 1) << corrupt.out;
  EXPECT_NE(corrupt.err.find("bad.parquet"), std::string::npos) << corrupt.err;
  // Not a submissions file.
  auto leaderboards = run("dedup " + synth("leaderboards.parquet") + " " + out + " --exact");
  EXPECT_EQ(leaderboards.exit_code, 1);
  EXPECT_NE(leaderboards.err.find("not a submissions file"), std::string::npos) << leaderboards.err;
  // Nothing but the inputs: no OUT, no temporary or spill file.
  std::set<std::string> left;
  for (const auto& name : files()) left.insert(name);
  EXPECT_EQ(left, (std::set<std::string>{"cut.parquet", "bad.parquet"}));
}

TEST_F(DedupCliTest, ExactRuleOnAHandMadeFile) {
  // (id, user, code_id, runner, score, time); expected kept: 2 (lowest score of partition A),
  // 3 (its own runner), 4 (null runner; 5 is later), 6 (another user).
  struct R {
    int64_t id;
    std::string user;
    int64_t code_id;
    std::optional<std::string> runner;
    std::optional<double> score;
    int64_t time;
  };
  const std::vector<R> input = {
      {1, "u", 7, "B200", 2.0, 10},      {2, "u", 7, "B200", 1.0, 20},
      {3, "u", 7, "H100", 5.0, 30},      {4, "u", 7, std::nullopt, {}, 40},
      {5, "u", 7, std::nullopt, {}, 50}, {6, "v", 7, "B200", 9.0, 5}};
  const std::string in = path("in.parquet");
  {
    dataset::FlatFileWriter w(in, dataset::flat_file_columns(), parquet::WriterOptions{}, {});
    for (const R& r : input) {
      dataset::Submission s;
      s.submission_id = r.id;
      s.leaderboard_id = 597;
      s.problem_name = "nvfp4_gemm";
      s.user_id = r.user;
      s.user_name = r.user;
      s.code_id = r.code_id;
      s.runner = r.runner;
      s.score = r.score;
      s.submission_time = r.time;
      s.code = "print(" + std::to_string(r.code_id) + ")";
      w.write(s);
    }
    w.commit();
  }
  auto r = run("dedup " + in + " " + path("out.parquet") + " --exact");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(summary_value(r.out, "rows in"), 6u);
  EXPECT_EQ(summary_value(r.out, "exact duplicates"), 2u);
  EXPECT_EQ(summary_value(r.out, "rows out"), 4u);
  auto rows = rows_of(path("out.parquet"), "submission_id,cluster_id,cluster_size");
  std::map<int64_t, std::pair<int64_t, int64_t>> got;
  for (const auto& j : rows) got[j["submission_id"]] = {j["cluster_id"], j["cluster_size"]};
  // cluster_id: the keeper's 0-based position in the input.
  EXPECT_EQ(got, (std::map<int64_t, std::pair<int64_t, int64_t>>{
                     {2, {1, 2}}, {3, {2, 1}}, {4, {3, 2}}, {6, {5, 1}}}));

  // -o names the output as OUT does.
  auto dash_o = run("dedup " + in + " -o " + path("o.parquet") + " --exact");
  ASSERT_EQ(dash_o.exit_code, 0) << dash_o.err;
  EXPECT_EQ(rows_of(path("o.parquet"), "submission_id,cluster_id,cluster_size"), rows);

  // --emit-all: every row, its cluster and whether it is kept.
  auto all = run("dedup " + in + " " + path("all.parquet") + " --exact --emit-all");
  ASSERT_EQ(all.exit_code, 0) << all.err;
  auto every = rows_of(path("all.parquet"), "submission_id,cluster_id,kept");
  ASSERT_EQ(every.size(), 6u);
  const std::vector<std::pair<int64_t, bool>> expected = {{1, false}, {1, true},  {2, true},
                                                          {3, true},  {3, false}, {5, true}};
  for (size_t i = 0; i < every.size(); ++i) {
    EXPECT_EQ(every[i]["submission_id"], input[i].id);
    EXPECT_EQ(every[i]["cluster_id"], expected[i].first) << i;
    EXPECT_EQ(every[i]["kept"], expected[i].second) << i;
  }
}

TEST_F(DedupCliTest, LegacyInputBecomesAFlatFile) {
  const std::string in = synth("submissions.parquet");
  const std::string out = path("out.parquet");
  auto r = run("dedup " + in + " " + out + " --fuzzy");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // One model row per submission, not per run.
  auto ids = rows_of(in, "submission_id");
  std::set<int64_t> submissions;
  for (const auto& j : ids) submissions.insert(j["submission_id"].get<int64_t>());
  EXPECT_EQ(summary_value(r.out, "rows in"), submissions.size());
  EXPECT_LT(summary_value(r.out, "rows out"), submissions.size());

  auto reader = parquet::FileReader::open(out);
  std::vector<std::string> names;
  for (const auto& leaf : reader->schema().leaves()) names.push_back(leaf.dotted_path);
  EXPECT_EQ(names, (std::vector<std::string>{"submission_id", "leaderboard_id", "problem_name",
                                             "user_id", "user_name", "code_id", "file_name",
                                             "submission_time", "status", "score", "passed", "mode",
                                             "runner", "code", "cluster_id", "cluster_size"}));
  EXPECT_EQ(static_cast<uint64_t>(reader->num_rows()), summary_value(r.out, "rows out"));
  auto rows = rows_of(out, "runner,user_name,code,cluster_size");
  uint64_t represented = 0;
  for (const auto& j : rows) {
    // The runner the runs' machine gives (the sample's legacy runs: MI300 or MI300x8); the legacy
    // files publish no user names.
    ASSERT_TRUE(j["runner"].is_string());
    EXPECT_TRUE(j["runner"] == "MI300" || j["runner"] == "MI300x8") << j["runner"];
    EXPECT_TRUE(j["user_name"].is_null());
    EXPECT_TRUE(j["code"].is_string());
    represented += j["cluster_size"].get<uint64_t>();
  }
  EXPECT_EQ(represented, submissions.size());  // every input row is in exactly one cluster
}

TEST_F(DedupCliTest, FuzzyEmitAllHasOneKeeperPerClusterAndProvenance) {
  const std::string in = synth("nvidia_nvfp4_submissions.parquet");
  const std::string out = path("all.parquet");
  auto r = run("dedup " + in + " " + out + " --fuzzy --emit-all --jobs 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto rows = rows_of(out, "cluster_id,kept,user_id,leaderboard_id");
  EXPECT_EQ(rows.size(), summary_value(r.out, "rows in"));
  std::map<int64_t, int> keepers;
  std::map<int64_t, std::set<std::pair<int64_t, std::string>>> scopes;
  uint64_t kept = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const int64_t cluster = rows[i]["cluster_id"];
    if (rows[i]["kept"].get<bool>()) {
      ++kept;
      ++keepers[cluster];
      EXPECT_EQ(cluster, static_cast<int64_t>(i));  // a keeper's cluster_id is its position
    }
    scopes[cluster].insert(std::make_pair(rows[i]["leaderboard_id"].get<int64_t>(),
                                          rows[i]["user_id"].get<std::string>()));
  }
  EXPECT_EQ(kept, summary_value(r.out, "rows out"));
  for (const auto& [cluster, count] : keepers) EXPECT_EQ(count, 1) << cluster;
  EXPECT_EQ(keepers.size(), kept);
  for (const auto& [cluster, s] : scopes) EXPECT_EQ(s.size(), 1u) << cluster;  // within a user
  EXPECT_GT(summary_value(r.out, "near-duplicate clusters"), 10u);

  auto reader = parquet::FileReader::open(out);
  std::map<std::string, std::string> kv;
  for (const auto& e : reader->metadata().key_value_metadata) kv[e.key] = e.value.value_or("");
  EXPECT_NE(kv["kbdata.command"].find("dedup"), std::string::npos);
  EXPECT_NE(kv["kbdata.command"].find("--emit-all"), std::string::npos);
  EXPECT_NE(kv["kbdata.rule"].find("157 bands x 13 rows"), std::string::npos) << kv["kbdata.rule"];
  EXPECT_EQ(kv["kbdata.source"], "nvidia_nvfp4_submissions.parquet");
  EXPECT_FALSE(kv["kbdata.version"].empty());
  // kbdata's layout: a page index on every column chunk.
  for (const auto& chunk : reader->metadata().row_groups.at(0).columns) {
    EXPECT_TRUE(chunk.column_index_offset.has_value());
    EXPECT_TRUE(chunk.offset_index_offset.has_value());
  }

  // The same file clustered across users joins at least as much.
  auto wide = run("dedup " + in + " " + path("wide.parquet") + " --fuzzy --across-users");
  ASSERT_EQ(wide.exit_code, 0) << wide.err;
  EXPECT_LE(summary_value(wide.out, "rows out"), kept);
}

}  // namespace
}  // namespace kbdata
