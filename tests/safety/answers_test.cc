// Wrong answers in silence (docs/cli.md, "Safety"): unreadable files in a data folder, rows
// repeated by a derived file, damaged pages in convert, hostile names, FIFOs, and near-duplicate
// search on very short code.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "safety/sandbox.h"
#include "support/cli_expect.h"
#include "support/submission_files.h"

namespace kbdata::testing {
namespace {

// Every command that reads a data folder, as a user types it (DATA, OUT filled in).
const std::vector<std::string>& data_commands() {
  static const std::vector<std::string> all = {
      "configs --data DATA",
      "submissions --data DATA -p nvfp4_gemm",
      "show --data DATA 30000856",
      "top --data DATA -p nvfp4_gemm",
      "progression --data DATA --user tonda -p nvfp4_dual_gemm",
      "records --data DATA -p nvfp4_gemm",
      "fastest --data DATA",
      "stats --data DATA",
      "extract --data DATA -p nvfp4_gemm --top 2 --out OUT",
  };
  return all;
}

std::string fill(const std::string& args, const std::string& data, const std::string& out) {
  return fill_placeholders(args, {{"DATA", shell_quote(data)}, {"OUT", out}});
}

// Item 8: an unreadable *.parquet file of the folder is an error naming it, for every command;
// --skip-bad reads the rest and names it in a warning.
TEST(UnreadableConfigs, AreErrorsUnlessSkipped) {
  struct Bad {
    std::string what;
    std::function<void(Sandbox&, const std::string&)> make;
  };
  const std::vector<Bad> bads = {
      {"truncated",
       [](Sandbox&, const std::string& data) {
         const std::string path = data + "/trimul_submissions.parquet";
         const std::string bytes = read_file(path);
         std::ofstream(path, std::ios::binary | std::ios::trunc)
             << bytes.substr(0, bytes.size() / 2);
       }},
      {"empty", [](Sandbox& box, const std::string&) { box.write("data/empty.parquet", ""); }},
      {"wrong magic",
       [](Sandbox& box, const std::string&) { box.write("data/csv.parquet", "a,b\n1,2\n"); }},
      {"a FIFO", [](Sandbox& box, const std::string&) { box.fifo("data/pipe.parquet"); }},
      {"a folder", [](Sandbox& box, const std::string&) { box.folder("data/dir.parquet"); }},
  };
  for (const Bad& bad : bads) {
    Sandbox box;
    const std::string data = box.copy_sample();
    bad.make(box, data);
    const Snapshot before = box.snapshot();
    for (const std::string& command : data_commands()) {
      SCOPED_TRACE(bad.what + ": " + command);
      Result r = run_limited(fill(command, data, box.path("out")), 60);
      expect_one_line_error(r, 1, "--skip-bad");
      EXPECT_TRUE(std::regex_search(r.err, std::regex(R"(data/\w+\.parquet)"))) << r.err;
      expect_same_tree(before, box.snapshot());
      r = run_limited(fill(command, data, box.path("out")) + " --skip-bad", 60);
      EXPECT_EQ(r.exit_code, 0) << r.err;
      EXPECT_NE(r.err.find("warning: skipping an unreadable file"), std::string::npos) << r.err;
      fs::remove_all(box.path("out"));
    }
  }
}

// Item 9: a dedup output saved inside the data folder does not count its rows twice: the answer
// is the same as without it, and stderr says which file repeated which.
TEST(DerivedFiles, AreNotCountedTwice) {
  Sandbox box;
  const std::string data = box.copy_sample();
  const std::string progression =
      "progression --data " + data + " --user tonda -p nvfp4_dual_gemm -f csv";
  const std::string top = "top --data " + data + " -p nvfp4_gemm -n 0 -f csv";
  const Result clean_progression = run_limited(progression, 60);
  const Result clean_top = run_limited(top, 60);
  ASSERT_EQ(clean_progression.exit_code, 0) << clean_progression.err;
  ASSERT_EQ(run_limited("dedup " + data + "/nvidia_nvfp4_submissions.parquet " + data +
                            "/nvfp4-unique.parquet --exact",
                        60)
                .exit_code,
            0);
  ASSERT_EQ(
      run_limited(
          "convert " + data + "/trimul_submissions.parquet " + data + "/a-trimul-copy.parquet", 60)
          .exit_code,
      0);
  Result r = run_limited(progression, 60);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, clean_progression.out);
  EXPECT_NE(r.err.find("nvfp4-unique.parquet repeats"), std::string::npos) << r.err;
  r = run_limited(top, 60);
  EXPECT_EQ(r.out, clean_top.out);
  r = run_limited("records --data " + data + " -p trimul -f csv", 60);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("a-trimul-copy.parquet repeats"), std::string::npos) << r.err;
  // Each submission once in the listing, though two files hold it.
  r = run_limited("submissions --data " + data + " -p trimul -f csv --columns submission_id,runner",
                  60);
  std::vector<std::string> rows = lines(r.out);
  std::sort(rows.begin(), rows.end());
  EXPECT_EQ(std::adjacent_find(rows.begin(), rows.end()), rows.end()) << r.out;
}

// Item 10: a legacy-format file of a leaderboard the registry places in a flat config (trimul,
// 496) answers `-p trimul` as it answers `--leaderboard 496`, under the config's name or another.
TEST(ProblemNames, ResolveInLegacyFilesOfAnyLeaderboard) {
  std::vector<LegacyRow> rows;
  for (int i = 0; i < 6; ++i) {
    LegacyRow r;
    r.submission_id = 700 + i / 2;  // three submissions, two runs each
    r.leaderboard_id = 496;
    r.user_id = 1 + i % 3;
    r.submission_time_ms = 1'750'000'000'000 + i * 1000;
    r.code = "print(" + std::to_string(i / 2) + ")";
    r.code_id = 70 + i / 2;
    r.run_id = 9000 + i;
    r.run_mode = i % 2 == 0 ? "test" : "leaderboard";
    if (i % 2 == 1) r.run_score = 1e-3 * (i + 1);
    r.run_passed = true;
    rows.push_back(r);
  }
  for (const std::string name : {"trimul_submissions.parquet", "old-trimul.parquet"}) {
    SCOPED_TRACE(name);
    Sandbox box;
    const std::string data = box.folder("data");
    write_bytes(data + "/" + name, legacy_file(rows, false));
    const std::string list = "submissions --data " + shell_quote(data) +
                             " -f csv --columns submission_id,problem_name,score ";
    const Result by_name = run_limited(list + "-p trimul", 60);
    const Result by_id = run_limited(list + "--leaderboard 496", 60);
    ASSERT_EQ(by_name.exit_code, 0) << by_name.err;
    ASSERT_EQ(by_id.exit_code, 0) << by_id.err;
    EXPECT_EQ(by_name.out, by_id.out);
    EXPECT_EQ(lines(by_name.out).size(), 4u) << by_name.out;  // the header and 3 submissions
    EXPECT_NE(by_name.out.find("700,trimul,"), std::string::npos) << by_name.out;
  }
}

// Item 12: convert verifies page checksums where the input has them; a damaged page is an error
// at its place, and no output appears.
TEST(Convert, RefusesDamagedPages) {
  Sandbox box;
  const std::string data = box.copy_sample();
  const std::string with_crc = box.path("crc.parquet");
  ASSERT_EQ(run_limited("convert " + data + "/trimul_submissions.parquet " + with_crc +
                            " --checksums -z none",
                        60)
                .exit_code,
            0);
  std::string bytes = read_file(with_crc);
  bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x20);
  std::ofstream(with_crc, std::ios::binary | std::ios::trunc) << bytes;
  const Result r =
      run_limited("convert " + with_crc + " " + box.path("out.parquet") + " --checksums", 60);
  expect_one_line_error(r, 1, "checksum mismatch");
  EXPECT_NE(r.err.find("row group 0, column"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(box.path("out.parquet")));
}

// Item 14: names that are not UTF-8 never abort inspect --json (the JSON stays valid), and a FIFO
// given as a file is an error, not a hang.
TEST(HostileNames, InvalidUtf8AndFifos) {
  Sandbox box;
  const std::string data = box.copy_sample();
  // A column renamed in the footer to bytes that are not UTF-8 (same length, so the footer's
  // structure is unchanged), in a file whose own name is not UTF-8 either.
  std::string bytes = read_file(data + "/trimul_submissions.parquet");
  const size_t footer_length = static_cast<unsigned char>(bytes[bytes.size() - 8]) |
                               static_cast<unsigned char>(bytes[bytes.size() - 7]) << 8 |
                               static_cast<unsigned char>(bytes[bytes.size() - 6]) << 16;
  const size_t footer = bytes.size() - 8 - footer_length;
  for (size_t at = bytes.find("runner", footer); at != std::string::npos;
       at = bytes.find("runner", at + 1)) {
    bytes[at + 2] = '\xff';
  }
  const std::string odd = box.write("odd-\xfe-name.parquet", bytes);
  Result r = run_limited("inspect --json " + shell_quote(odd), 60);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const bool valid_json = nlohmann::json::accept(r.out);
  EXPECT_TRUE(valid_json) << r.out.substr(0, 400);
  EXPECT_NE(r.out.find("ru\xef\xbf\xbdner"), std::string::npos);  // U+FFFD in the name
  r = run_limited("inspect " + shell_quote(odd), 60);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = run_limited("cat " + shell_quote(odd) + " --limit 2", 60);
  EXPECT_EQ(r.exit_code, 0) << r.err;

  const std::string fifo = box.fifo("pipe.parquet");
  for (const std::string command : {"cat ", "inspect ", "inspect --json ", "convert "}) {
    SCOPED_TRACE(command);
    r = run_limited(
        command + fifo + (command == std::string("convert ") ? " " + box.path("o.parquet") : ""),
        30);
    expect_one_line_error(r, 1, "not a regular file (it is a FIFO)");
  }
}

// Item 15: near-duplicate search on very short code keeps its work per row flat: 20,000 rows of
// one user, code of under 8 bytes (50 distinct texts, every row its own code_id), examine a
// number of candidate pairs linear in the rows, not quadratic.
TEST(FuzzyDedup, ShortCodeCostsLinearWork) {
  Sandbox box;
  std::vector<FlatRow> rows;
  for (int i = 0; i < 20000; ++i) {
    FlatRow row;
    row.submission_id = 1000000 + i;
    row.leaderboard_id = 597;
    row.problem_name = "nvfp4_gemm";
    row.user_id = "42";
    row.user_name = "shorty";
    row.code_id = 5000000 + i;
    row.submission_time = 1'760'000'000'000'000 + int64_t{i} * 1'000'000;
    row.score = 1e-5 * (1 + i % 97);
    row.passed = true;
    row.mode = "leaderboard";
    row.runner = "B200";
    row.code = "k=" + std::to_string(i % 50);  // under 8 bytes
    rows.push_back(std::move(row));
  }
  write_bytes(box.path("short.parquet"), flat_file(rows));
  const Result r = run_limited(
      "dedup " + box.path("short.parquet") + " " + box.path("out.parquet") + " --fuzzy", 600);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex(R"(([0-9]+) candidate pairs)"))) << r.out;
  EXPECT_LE(std::stoull(m[1]), 20000u * 20) << r.out;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex(R"(rows out\s+([0-9]+))"))) << r.out;
  EXPECT_EQ(m[1], "50") << r.out;  // one row per distinct text
}

}  // namespace
}  // namespace kbdata::testing
