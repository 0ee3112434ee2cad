// kbdata pairs on hand-built lineages (docs/pairs.md): rewrites split, ties, failing versions
// skipped, runners kept apart, cross-epoch pairs, every filter with its count, every format parsed
// back (JSON Lines by a JSON parser, Parquet by DuckDB), the diffs applied by GNU patch, the card
// and the provenance, and one-line usage errors.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common/sha256.h"
#include "support/oracle.h"
#include "support/random_text.h"
#include "support/run_kbdata.h"
#include "support/submission_files.h"
#include "support/temp_dir.h"

namespace {

namespace fs = std::filesystem;
using kbdata::testing::FlatRow;
using kbdata::testing::kernel_text;
using kbdata::testing::lines;
using kbdata::testing::read_file;
using kbdata::testing::run;
using nlohmann::json;

constexpr int64_t kHour = int64_t{3600} * 1000000;
// 2025-11-10 00:00 UTC, in epoch 0 of the NVFP4 problems (their first change is 2025-11-30).
constexpr int64_t kNov10 = int64_t{1762732800} * 1000000;
constexpr int64_t kDec1 = kNov10 + 21 * 24 * kHour;  // epoch 1

FlatRow row(int64_t id, int64_t time, const std::string& code, std::optional<double> score_us,
            const std::string& runner = "B200", const std::string& user = "u1") {
  FlatRow r;
  r.submission_id = id;
  r.leaderboard_id = 595;
  r.problem_name = "nvfp4_gemv";
  r.user_id = user;
  r.user_name = user == "u1" ? "alice" : "bob";
  r.code_id = static_cast<int64_t>(std::hash<std::string>{}(code)&0xffffffffff);
  r.submission_time = time;
  r.score = score_us ? std::optional<double>(*score_us * 1e-6) : std::nullopt;
  r.passed = score_us.has_value();
  r.status = score_us ? "succeeded" : "failed";
  r.mode = "leaderboard";
  r.runner = runner;
  r.code = code;
  return r;
}

const std::string kCheat = "\nimport time\ntime.perf_counter = lambda: 0.0\n";

// The hand-built folder: see the expectations in the tests below.
std::vector<FlatRow> hand_built_rows() {
  return {
      row(1, kNov10, kernel_text("alpha", 16), 10),
      row(2, kNov10 + kHour, kernel_text("alpha", 32), 9),
      row(3, kNov10 + 2 * kHour, kernel_text("beta", 16), 8),  // rewritten: a new lineage
      row(4, kNov10 + 3 * kHour, kernel_text("alpha", 48), std::nullopt),  // failed: skipped
      row(5, kNov10 + 4 * kHour, kernel_text("beta", 32) + kCheat, 7),
      row(6, kNov10 + 5 * kHour, kernel_text("alpha", 64), 8.5),  // alpha again: a new best
      row(7, kNov10 + 6 * kHour, kernel_text("alpha", 80), 8.5),  // a tie: not a new best
      row(8, kNov10 + 7 * kHour, kernel_text("alpha", 64, "other note"), 8.0),  // no real change
      row(9, kDec1, kernel_text("alpha", 96), 7.9),  // in the next harness epoch
      // The same user on another runner: a series of its own.
      row(1, kNov10, kernel_text("alpha", 16), 20, "H100"),
      row(2, kNov10 + kHour, kernel_text("alpha", 32), 15, "H100"),
      // Another user with one version: no pair.
      row(20, kNov10 + kHour, kernel_text("gamma", 16), 5, "B200", "u2"),
  };
}

class PairsCli : public ::testing::Test {
 protected:
  void SetUp() override {
    data_ = dir_.path() + "/data";
    fs::create_directories(data_);
    kbdata::testing::write_bytes(data_ + "/nvidia_nvfp4_submissions.parquet",
                                 kbdata::testing::flat_file(hand_built_rows()));
    std::ofstream(data_ + "/README.md") << "---\nlicense: cc-by-4.0\n---\n# test data\n";
    // A leaderboards file DuckDB wrote: the task text of 595 for chat and preference.
    kbdata::testing::duckdb().run(
        "COPY (SELECT 595::BIGINT AS id, 'nvfp4_gemv' AS name, TIMESTAMPTZ '2025-11-29 "
        "00:00:00+00' AS deadline, 'py' AS lang, 'Implement nvfp4_gemv as fast as you can on "
        "B200. Your kernel is checked against the reference.' AS description, 'def ref(): pass' "
        "AS reference, ['NVIDIA'] AS gpu_types) TO " +
        kbdata::testing::sql_path(data_ + "/leaderboards.parquet") + " (FORMAT PARQUET)");
  }

  // Runs pairs on the folder with `args`, writing `name`; returns the result.
  kbdata::testing::Result pairs(const std::string& args, const std::string& name = "p.jsonl") {
    return run("pairs --data " + data_ + " --out " + dir_.file(name) + " " + args);
  }
  std::vector<json> jsonl(const std::string& name = "p.jsonl") {
    std::vector<json> out;
    for (const std::string& line : lines(read_file(dir_.file(name)))) {
      out.push_back(json::parse(line));
    }
    return out;
  }
  // (runner, baseline, improved) of each pair, in output order.
  std::vector<std::tuple<std::string, int64_t, int64_t>> ids(const std::vector<json>& rows) {
    std::vector<std::tuple<std::string, int64_t, int64_t>> out;
    for (const json& j : rows) {
      out.emplace_back(j["runner"], j["baseline_submission_id"], j["improved_submission_id"]);
    }
    return out;
  }

  kbdata::testing::TempDir dir_{"pairs-cli"};
  std::string data_;
};

using Ids = std::vector<std::tuple<std::string, int64_t, int64_t>>;

TEST_F(PairsCli, NewBestsPerLineageAndRunner) {
  const auto r = pairs("");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<json> rows = jsonl();
  // B200: alpha 1 -> 2 -> 6 (-> 8 no real change) -> 9; beta 3 -> 5; H100: 1 -> 2. Sorted by
  // leaderboard, user, runner, then lineage.
  EXPECT_EQ(ids(rows),
            (Ids{{"B200", 1, 2}, {"B200", 2, 6}, {"B200", 8, 9}, {"B200", 3, 5}, {"H100", 1, 2}}));
  EXPECT_NE(r.out.find("candidate pairs                    6"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("dropped: no real change            1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("pairs written                      5"), std::string::npos) << r.out;
  std::map<int64_t, std::string> code;
  for (const FlatRow& f : hand_built_rows()) {
    if (f.runner == "B200") code[f.submission_id] = f.code;
  }
  for (const json& j : rows) {
    EXPECT_EQ(j["leaderboard_id"], 595);
    EXPECT_EQ(j["problem_name"], "nvfp4_gemv");
    EXPECT_EQ(j["user_id"], "u1");
    EXPECT_EQ(j["user_name"], "alice");
    const double b = j["baseline_score"], i = j["improved_score"];
    EXPECT_EQ(j["speedup"].get<double>(), b / i);
    EXPECT_GT(b, i);
    if (j["runner"] == "B200") {
      EXPECT_EQ(j["baseline_code"], code[j["baseline_submission_id"]]);
      EXPECT_EQ(j["improved_code"], code[j["improved_submission_id"]]);
    }
    // The diff turns the baseline into the improved code (GNU patch).
    kbdata::testing::TempDir patch_dir("pairs-patch");
    std::ofstream(patch_dir.file("before"), std::ios::binary)
        << j["baseline_code"].get<std::string>();
    std::ofstream(patch_dir.file("diff"), std::ios::binary) << j["diff"].get<std::string>();
    const std::string command = "cd '" + patch_dir.path() +
                                "' && patch --quiet --batch -o after before diff >/dev/null 2>&1";
    ASSERT_EQ(std::system(command.c_str()), 0) << j["diff"];
    EXPECT_EQ(read_file(patch_dir.file("after")), j["improved_code"].get<std::string>());
  }
  // Lineages: alpha's first version, beta's first version.
  EXPECT_EQ(rows[0]["lineage_id"], 1);
  EXPECT_EQ(rows[2]["lineage_id"], 1);
  EXPECT_EQ(rows[3]["lineage_id"], 3);
  // The cross-epoch pair records both epochs.
  EXPECT_EQ(rows[2]["baseline_epoch"], 0);
  EXPECT_EQ(rows[2]["improved_epoch"], 1);
  EXPECT_NEAR(rows[2]["gap_days"].get<double>(), 21 - 7.0 / 24, 1e-9);
  EXPECT_EQ(rows[0]["baseline_time"], "2025-11-10T00:00:00.000000Z");
}

TEST_F(PairsCli, SameEpochCutsTheLineageAtTheHarnessChange) {
  const auto r = pairs("--same-epoch");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ids(jsonl()), (Ids{{"B200", 1, 2}, {"B200", 2, 6}, {"B200", 3, 5}, {"H100", 1, 2}}));
}

TEST_F(PairsCli, FiltersDropAndCountByReason) {
  auto r = pairs("--min-speedup 1.1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ids(jsonl()), (Ids{{"B200", 1, 2}, {"B200", 3, 5}, {"H100", 1, 2}}));
  EXPECT_NE(r.out.find("dropped: below --min-speedup       3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("dropped: no real change            0"), std::string::npos) << r.out;

  r = pairs("--max-gap-days 5");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ids(jsonl()), (Ids{{"B200", 1, 2}, {"B200", 2, 6}, {"B200", 3, 5}, {"H100", 1, 2}}));
  EXPECT_NE(r.out.find("dropped: beyond --max-gap-days     1"), std::string::npos) << r.out;

  r = pairs("--all-pairs");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // alpha [1,2,6,7,8,9] scored [10,9,8.5,8.5,8,7.9]: 14 improving pairs, (6, 8) no real change.
  EXPECT_EQ(jsonl().size(), 15u);
  EXPECT_NE(r.out.find("candidate pairs                    16"), std::string::npos) << r.out;
}

TEST_F(PairsCli, ExcludeFlaggedLeavesTheCheatOut) {
  const auto audit = run("audit --data " + data_ + " -f jsonl");
  ASSERT_EQ(audit.exit_code, 0) << audit.err;
  bool flagged = false;
  for (const std::string& line : lines(audit.out)) {
    const json j = json::parse(line);
    if (j["submission_id"] == 5) flagged = j["verdict"] != "clean";
  }
  ASSERT_TRUE(flagged) << audit.out;
  const auto r = pairs("--exclude-flagged");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ids(jsonl()), (Ids{{"B200", 1, 2}, {"B200", 2, 6}, {"B200", 8, 9}, {"H100", 1, 2}}));
  const std::string card = read_file(dir_.file("p.jsonl.card.md"));
  EXPECT_NE(card.find("the 1 rows `kbdata audit` calls `cheat`."), std::string::npos) << card;
}

TEST_F(PairsCli, DecontaminationDropsPlantedOverlapsByReason) {
  const std::string bench = dir_.path() + "/bench/sub";
  fs::create_directories(bench);
  // beta's first version, verbatim: shares 12-grams with both beta versions.
  std::ofstream(bench + "/ref.py") << kernel_text("beta", 16);
  auto r = pairs("--decontaminate " + dir_.path() + "/bench");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ids(jsonl()), (Ids{{"B200", 1, 2}, {"B200", 2, 6}, {"B200", 8, 9}, {"H100", 1, 2}}));
  EXPECT_NE(r.out.find("dropped: n-gram overlap            1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("dropped: MinHash near-copy         0"), std::string::npos) << r.out;
  // With n-grams longer than any code, the near-copy test alone finds it.
  r = pairs("--decontaminate " + dir_.path() + "/bench --ngram 100000");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("dropped: n-gram overlap            0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("dropped: MinHash near-copy         1"), std::string::npos) << r.out;
  const std::string card = read_file(dir_.file("p.jsonl.card.md"));
  EXPECT_NE(card.find("| dropped: MinHash near-copy of a benchmark item | 1 |"), std::string::npos)
      << card;
}

// A benchmark set that overlaps most of the data drops most pairs: stderr says so, by reason.
TEST_F(PairsCli, DroppingMoreThanHalfThePairsIsSaidOnStderr) {
  const std::string bench = dir_.path() + "/everything";
  fs::create_directories(bench);
  int k = 0;
  for (const FlatRow& f : hand_built_rows())
    std::ofstream(bench + "/" + std::to_string(k++)) << f.code;
  auto r = pairs("--decontaminate " + bench);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(jsonl().empty());
  EXPECT_NE(r.err.find("kbdata: warning: 6 of 6 candidate pairs dropped (100%): 5 n-gram overlap "
                       "with " +
                       bench +
                       " (more than 0.5 of a code's 12-grams; --ngram-share), 1 no real "
                       "change\n"),
            std::string::npos)
      << r.err;
  // Half or fewer: nothing said.
  r = pairs("");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
}

// The --help's own example on the bundled sample: the references share no passage with the
// kernels, and every pair is kept (before identifier tokens and the default share, one shared
// run of 12 brackets, commas and names dropped 102 of 104).
TEST(PairsHelpExample, DecontaminatingTheSampleAgainstItsReferencesKeepsItsPairs) {
  kbdata::testing::TempDir dir("pairs-help-example");
  const std::string sample = std::string(KBDATA_SOURCE_DIR) + "/data/sample";
  const auto r =
      run("pairs --data " + sample + " --out " + dir.file("clean.jsonl") + " --decontaminate " +
          sample + "/leaderboards.parquet --decontaminate-column reference");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("dropped: n-gram overlap            0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("dropped: MinHash near-copy         0"), std::string::npos) << r.out;
  EXPECT_GT(lines(read_file(dir.file("clean.jsonl"))).size(), 100u);
  EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
}

TEST_F(PairsCli, ParquetHoldsWhatJsonLinesHoldAsDuckDbReadsIt) {
  ASSERT_EQ(pairs("").exit_code, 0);
  const auto r = pairs("", "p.parquet");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<json> rows = jsonl();
  const auto got = kbdata::testing::duckdb().rows(
      "SELECT COLUMNS(*)::VARCHAR FROM (SELECT baseline_submission_id, improved_submission_id, "
      "runner, speedup, baseline_time, diff, improved_code, significant, noise_sd FROM "
      "read_parquet(" +
      kbdata::testing::sql_path(dir_.file("p.parquet")) + "))");
  ASSERT_EQ(got.size(), rows.size());
  for (size_t k = 0; k < rows.size(); ++k) {
    EXPECT_EQ(*got[k][0], std::to_string(rows[k]["baseline_submission_id"].get<int64_t>()));
    EXPECT_EQ(*got[k][1], std::to_string(rows[k]["improved_submission_id"].get<int64_t>()));
    EXPECT_EQ(*got[k][2], rows[k]["runner"].get<std::string>());
    EXPECT_EQ(std::stod(*got[k][3]), rows[k]["speedup"].get<double>());
    std::string time = rows[k]["baseline_time"];
    time[10] = ' ';
    EXPECT_EQ(got[k][4]->substr(0, 19), time.substr(0, 19));
    EXPECT_EQ(*got[k][5], rows[k]["diff"].get<std::string>());
    EXPECT_EQ(*got[k][6], rows[k]["improved_code"].get<std::string>());
    EXPECT_EQ(got[k][7].has_value(), !rows[k]["significant"].is_null());
  }
  // The provenance: the license and each source's SHA-256.
  const auto kv =
      kbdata::testing::duckdb().rows("SELECT decode(key), decode(value) FROM parquet_kv_metadata(" +
                                     kbdata::testing::sql_path(dir_.file("p.parquet")) + ")");
  std::map<std::string, std::string> meta;
  for (const auto& pair : kv) meta[*pair[0]] = *pair[1];
  EXPECT_EQ(meta["kbdata.pairs.license"], "cc-by-4.0");
  const json sources = json::parse(meta["kbdata.pairs.sources"]);
  ASSERT_EQ(sources.size(), 1u);
  EXPECT_EQ(sources[0]["file"], "nvidia_nvfp4_submissions.parquet");
  EXPECT_EQ(sources[0]["sha256"],
            kbdata::sha256_hex(read_file(data_ + "/nvidia_nvfp4_submissions.parquet")));
  EXPECT_EQ(json::parse(meta["kbdata.pairs.counts"])["written"], 5);
  const json filters = json::parse(meta["kbdata.pairs.filters"]);
  EXPECT_EQ(filters["min_speedup"], 1);
  EXPECT_EQ(filters["same_epoch"], false);
  EXPECT_EQ(filters["link_similarity"], 0.5);
  EXPECT_TRUE(filters["decontaminate"].is_null());
  EXPECT_NE(meta["kbdata.command"].find("pairs --data"), std::string::npos);
}

// The same rows in a file DuckDB wrote (its own dictionaries, pages and types): the same pairs.
TEST_F(PairsCli, AFileDuckDbWroteGivesTheSamePairs) {
  ASSERT_EQ(pairs("").exit_code, 0);
  const std::string other = dir_.path() + "/duckdb";
  fs::create_directories(other);
  kbdata::testing::duckdb().run(
      "COPY (SELECT * FROM read_parquet(" +
      kbdata::testing::sql_path(data_ + "/nvidia_nvfp4_submissions.parquet") + ")) TO " +
      kbdata::testing::sql_path(other + "/nvidia_nvfp4_submissions.parquet") + " (FORMAT parquet)");
  const auto r = run("pairs --data " + other + " --out " + dir_.file("d.jsonl"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_file(dir_.file("d.jsonl")), read_file(dir_.file("p.jsonl")));
  EXPECT_EQ(jsonl("d.jsonl").size(), 5u);
}

TEST_F(PairsCli, ChatAndPreferenceRecords) {
  auto r = pairs("--format chat", "chat.jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<json> chat = jsonl("chat.jsonl");
  ASSERT_EQ(chat.size(), 5u);
  const json& m = chat[0]["messages"];
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0]["role"], "user");
  EXPECT_EQ(m[1]["role"], "assistant");
  const std::string user = m[0]["content"];
  EXPECT_EQ(user.rfind("Problem: nvfp4_gemv (KernelBot leaderboard 595), measured on B200.\n", 0),
            0u)
      << user;
  EXPECT_NE(user.find("B200.\nImplement nvfp4_gemv as fast as you can on B200."), std::string::npos)
      << user;
  EXPECT_NE(user.find("ran in 10.00 µs"), std::string::npos) << user;
  EXPECT_NE(user.find("```python\n" + kernel_text("alpha", 16) + "```"), std::string::npos);
  EXPECT_EQ(m[1]["content"], "```python\n" + kernel_text("alpha", 32) + "```");

  r = pairs("--format preference", "pref.jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<json> pref = jsonl("pref.jsonl");
  ASSERT_EQ(pref.size(), 5u);
  EXPECT_EQ(pref[0]["chosen"], "```python\n" + kernel_text("alpha", 32) + "```");
  EXPECT_EQ(pref[0]["rejected"], "```python\n" + kernel_text("alpha", 16) + "```");
  EXPECT_NE(pref[0]["prompt"].get<std::string>().find("nvfp4_gemv"), std::string::npos);
}

TEST_F(PairsCli, TrajectoriesInEveryFormat) {
  auto r = pairs("--trajectories", "t.jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<json> t = jsonl("t.jsonl");
  ASSERT_EQ(t.size(), 3u);  // alpha and beta on B200, alpha on H100
  EXPECT_EQ(t[0]["submission_ids"], json::array({1, 2, 6, 7, 8, 9}));
  EXPECT_EQ(t[0]["versions"], 6);
  EXPECT_EQ(t[0]["epochs"], json::array({0, 0, 0, 0, 0, 1}));
  EXPECT_EQ(t[0]["codes"][1], kernel_text("alpha", 32));
  EXPECT_EQ(t[0]["speedup"].get<double>(), (10 * 1e-6) / (7.9 * 1e-6));
  EXPECT_EQ(t[1]["submission_ids"], json::array({3, 5}));

  r = pairs("--trajectories --same-epoch", "t2.jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(jsonl("t2.jsonl")[0]["submission_ids"], json::array({1, 2, 6, 7, 8}));

  r = pairs("--trajectories", "t.parquet");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto got = kbdata::testing::duckdb().rows(
      "SELECT COLUMNS(*)::VARCHAR FROM (SELECT array_to_string(submission_ids, ','), len(codes), "
      "codes[2] = " +
      kbdata::testing::sql_path(kernel_text("alpha", 32)) + ", scores[1] FROM read_parquet(" +
      kbdata::testing::sql_path(dir_.file("t.parquet")) + "))");
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(*got[0][0], "1,2,6,7,8,9");
  EXPECT_EQ(*got[0][1], "6");
  EXPECT_EQ(*got[0][2], "true");
  EXPECT_EQ(std::stod(*got[0][3]), 10 * 1e-6);

  r = pairs("--trajectories --format chat", "tc.jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json m = jsonl("tc.jsonl")[0]["messages"];
  ASSERT_EQ(m.size(), 12u);  // the task, then 6 versions with 5 times between them
  EXPECT_EQ(m[1]["role"], "assistant");
  EXPECT_EQ(m[2]["content"], "It ran in 10.00 µs. Write a faster version.");
  EXPECT_EQ(m[11]["content"], "```python\n" + kernel_text("alpha", 96) + "```");
}

TEST_F(PairsCli, TheCardSaysWhatTheRowsAreAndWhereTheyComeFrom) {
  ASSERT_EQ(pairs("--min-speedup 1.05").exit_code, 0);
  const std::string card = read_file(dir_.file("p.jsonl.card.md"));
  EXPECT_EQ(card.rfind("---\nlicense: cc-by-4.0\n", 0), 0u) << card;
  EXPECT_NE(card.find("data_files: \"p.jsonl\""), std::string::npos);
  EXPECT_NE(card.find("| candidate pairs | 6 |"), std::string::npos) << card;
  EXPECT_NE(card.find("| dropped: below the minimum speedup | 1 |"), std::string::npos) << card;
  EXPECT_NE(card.find(kbdata::sha256_hex(read_file(data_ + "/nvidia_nvfp4_submissions.parquet"))),
            std::string::npos);
  EXPECT_NE(card.find("| `diff` | string |"), std::string::npos);
  // A folder whose card states no license says so.
  fs::remove(data_ + "/README.md");
  ASSERT_EQ(pairs("--card " + dir_.file("other-card.md")).exit_code, 0);
  const std::string other = read_file(dir_.file("other-card.md"));
  EXPECT_EQ(other.rfind("---\nlicense: other\n", 0), 0u) << other;
  EXPECT_NE(other.find("states no license"), std::string::npos);
}

// Every output has its own card, named after it: two outputs in one folder never share (and
// silently replace) one card, the only record of their filters, counts, sources and license.
TEST_F(PairsCli, EveryOutputHasItsOwnCard) {
  ASSERT_EQ(pairs("--min-speedup 1.05", "a.jsonl").exit_code, 0);
  ASSERT_EQ(pairs("--trajectories", "b.parquet").exit_code, 0);
  const std::string a = read_file(dir_.file("a.jsonl.card.md"));
  const std::string b = read_file(dir_.file("b.parquet.card.md"));
  EXPECT_NE(a.find("data_files: \"a.jsonl\""), std::string::npos) << a;
  EXPECT_NE(a.find("| dropped: below the minimum speedup | 1 |"), std::string::npos) << a;
  EXPECT_NE(b.find("data_files: \"b.parquet\""), std::string::npos) << b;
  EXPECT_FALSE(fs::exists(dir_.file("pairs-card.md")));
  const auto r = pairs("", "c.jsonl");
  EXPECT_NE(r.out.find("card                               " + dir_.file("c.jsonl.card.md")),
            std::string::npos)
      << r.out;
}

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
constexpr bool kAddressSanitizer = __has_feature(address_sanitizer);
#else
constexpr bool kAddressSanitizer = false;
#endif

// `kbdata ARGS` under an address-space limit of `kib` KiB (ulimit -v): exit code and stderr.
std::pair<int, std::string> run_under_address_limit(int kib, const std::string& args) {
  const std::string err =
      fs::temp_directory_path() / ("kbdata-ulimit-" + std::to_string(::getpid()));
  const std::string command = "ulimit -v " + std::to_string(kib) + " && " + KBDATA_BINARY + " " +
                              args + " >/dev/null 2>" + err;
  const int status = std::system(("sh -c '" + command + "'").c_str());
  std::string text = read_file(err);
  fs::remove(err);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), text};
}

// Under an address-space limit what is reserved counts, used or not: 8 threads on the medium set
// need 185 MB resident and fit in 400 MB (one malloc arena for all threads there); 256 threads
// under 150 MB cannot all start, and the command says so and what to do, never aborts.
TEST_F(PairsCli, UnderAnAddressLimitThreadsFitOrTheErrorSaysTryOneThread) {
  if (kAddressSanitizer) {
    GTEST_SKIP() << "AddressSanitizer reserves terabytes of shadow memory: no address limit fits";
  }
  const std::string data = kbdata::testing::medium_data();
  auto [code, err] = run_under_address_limit(
      400000, "pairs --data " + data + " --threads 8 --out " + dir_.file("limited.jsonl"));
  EXPECT_EQ(code, 0) << err;
  std::tie(code, err) = run_under_address_limit(
      150000, "pairs --data " + data + " --threads 256 --out " + dir_.file("many.jsonl"));
  EXPECT_EQ(code, 1) << err;
  EXPECT_EQ(lines(err).size(), 1u) << err;
  EXPECT_NE(err.find("ulimit -v"), std::string::npos) << err;
  EXPECT_NE(err.find("try --threads 1"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(dir_.file("many.jsonl")));
}

TEST_F(PairsCli, TheSameBytesWhateverTheThreads) {
  ASSERT_EQ(pairs("--threads 1 --all-pairs", "a.jsonl").exit_code, 0);
  ASSERT_EQ(pairs("--threads 2 --all-pairs", "b.jsonl").exit_code, 0);
  EXPECT_EQ(read_file(dir_.file("a.jsonl")), read_file(dir_.file("b.jsonl")));
}

TEST_F(PairsCli, UsageErrorsAreOneLineAndWriteNothing) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--format chat", "x.parquet"},
      {"--format parquet", "x.jsonl"},
      {"--format chatt", "x.jsonl"},
      {"--all-pairs --trajectories", "x.jsonl"},
      {"--significant --trajectories", "x.jsonl"},
      {"", "x.json"},
      {"--format chat", "x.csv"},
      {"--trajectories --format preference", "x.jsonl"},
      {"--min-speedup 0.5", "x.jsonl"},
      {"--max-gap-days 0", "x.jsonl"},
      {"--link-similarity 1.5", "x.jsonl"},
      {"--ngram 5", "x.jsonl"},
      {"--card " + dir_.file("x.jsonl"), "x.jsonl"},
      {"--since 2025-12-01 --until 2025-11-01", "x.jsonl"},
  };
  for (const auto& [args, name] : cases) {
    const auto r = pairs(args, name);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    EXPECT_EQ(lines(r.err).size(), 1u) << args << ": " << r.err;
    EXPECT_FALSE(fs::exists(dir_.file(name))) << args;
  }
  EXPECT_NE(pairs("--format chatt").err.find("did you mean 'chat'"), std::string::npos);
  // The library's checks name options by their flags, with the value given.
  EXPECT_EQ(pairs("--min-speedup 0.5").err,
            "kbdata: --min-speedup 0.5: must be 1 or more (the baseline's score over the improved "
            "one's) (see 'kbdata pairs --help')\n");
  EXPECT_NE(pairs("--all-pairs --trajectories")
                .err.find("--all-pairs is for pairs; --trajectories writes one row per lineage"),
            std::string::npos);
  EXPECT_NE(pairs("--format parquet", "x.jsonl")
                .err.find("--out " + dir_.file("x.jsonl") +
                          " names a JSON Lines file, but --format parquet writes Parquet"),
            std::string::npos);
  EXPECT_NE(pairs("--ngram 0 --decontaminate " + dir_.file("nowhere"))
                .err.find("--ngram 0: must be at least 1"),
            std::string::npos);
  // The output never replaces an input.
  const auto r =
      run("pairs --data " + data_ + " --out " + data_ + "/nvidia_nvfp4_submissions.parquet");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  // A missing benchmark set is an error naming it, before anything is written.
  const auto missing = pairs("--decontaminate " + dir_.file("nowhere"));
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.err.find("nowhere"), std::string::npos) << missing.err;
  EXPECT_FALSE(fs::exists(dir_.file("p.jsonl")));
  EXPECT_FALSE(fs::exists(dir_.file("p.jsonl.card.md")));
}

}  // namespace
