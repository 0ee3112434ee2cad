// Golden outputs: every reading command, on the bundled sample (data/sample) and on the `medium`
// synthetic set (`kbdata synth --scale medium --seed 3 --family both --layout kbdata`, made once
// per run: support/oracle.h), in every format it writes, compared byte for byte with the files
// kept in tests/golden/expected/ (the medium set's in expected/medium/). They hold the
// answers still while the commands move onto the result table (src/result/): a change in any
// output, even of one byte, fails here and shows in the diff of the golden files.
//
// Regenerating: `make golden` (or KBDATA_UPDATE_GOLDEN=1 build/tests/golden/golden_test) writes
// the files instead of comparing, from the build's kbdata; review the diff before committing it.
//
// What is normalised, and nothing else:
//   - the temporary folder of a run (the --out of pairs, dedup and extract) reads "$TMP";
//   - the checkout's folder (configs names the data folder it read) reads "$SRC", the medium
//     set's folder "$MEDIUM";
//   - the value of a summary's "time" line (dedup's: "time   0.1 s (metadata 0.0, ...)") reads "#".
// Parquet outputs are compared by their rows, read back as `kbdata cat FILE -f jsonl`, and their
// schema as `kbdata inspect FILE` prints it (the file's bytes hold kbdata's version in
// created_by, which a release changes).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <string>
#include <vector>

#include "support/oracle.h"
#include "support/run_kbdata.h"
#include "support/temp_dir.h"

namespace {

namespace fs = std::filesystem;
using kbdata::testing::read_file;
using kbdata::testing::run;
using kbdata::testing::TempDir;

const std::string kSample = std::string(KBDATA_SOURCE_DIR) + "/data/sample";
const std::string kExpected = std::string(KBDATA_SOURCE_DIR) + "/tests/golden/expected";
const std::string kExpectedMedium = kExpected + "/medium";

// One command line and the formats it writes. `args` may name "$OUT" (a file or folder in the
// run's temporary folder) and "$SAMPLE" (the data folder: the sample, or the medium set for the
// medium cases); `--data $SAMPLE` is added when `data` is set.
struct Case {
  std::string name;  // the golden files' stem
  std::string args;
  std::vector<std::string> formats;  // empty: the command has no --format (dedup, extract)
  bool data = true;
  bool reads_out = false;  // the answer is the file at $OUT (pairs), not stdout
  bool medium = false;     // on the medium set (medium_cases), not the sample
  // A file in the folder $OUT names, shown after stdout (extract's manifest).
  std::string out_file = {};
};

// gtest names a failing case by its name, not its bytes.
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

const std::vector<std::string> kAll = {"table", "csv", "json", "jsonl", "parquet"};

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {"submissions_dual_gemm",
       "submissions -p nvfp4_dual_gemm --scored --user-name tonda --columns "
       "submission_id,user_name,submission_time,score,runner,passed,file_name",
       kAll},
      {"submissions_legacy", "submissions -p amd-fp8-mm --scored", kAll},
      {"submissions_code", "submissions -p amd-identity --user-id 3 --with-code", kAll},
      {"show_flat", "show 30000856", {"table", "json", "jsonl"}},
      {"show_legacy", "show 10000004", {"table", "json", "jsonl"}},
      {"show_near_duplicates", "show 30000856 --near-duplicates", {"table", "json", "jsonl"}},
      {"top_dual_gemm", "top -p nvfp4_dual_gemm", kAll},
      {"top_uncertainty", "top -p nvfp4_dual_gemm --uncertainty -n 5", kAll},
      {"top_legacy", "top -p amd-fp8-mm -n 0", kAll},
      {"progression", "progression --user tonda -p nvfp4_dual_gemm", kAll},
      {"records", "records -p trimul --runner H100", kAll},
      {"fastest", "fastest -p nvfp4_gemm", kAll},
      {"stats", "stats", kAll},
      {"noise", "noise", kAll},
      {"tasks", "tasks -p nvfp4_gemm -p trimul --after 2025-07-20", kAll},
      {"place", "place -p nvfp4_gemm --runner NVIDIA --label m 20us 12us 35us", kAll},
      {"place_refused", "place -p nvfp4_gemm --runner NVIDIA --epoch 1 --at 2025-11-25 20us", kAll},
      {"audit", "audit -p nvfp4_gemm --with-evidence", kAll},
      {"techniques", "techniques -p trimul", kAll},
      {"techniques_winners", "techniques --winners -p nvfp4_gemm", kAll},
      {"techniques_trend", "techniques --trend -p nvfp4_gemm", kAll},
      {"configs", "configs", {"table", "json"}},
      {"pairs",
       "pairs -p trimul --out $OUT",
       {"jsonl", "parquet", "chat", "preference"},
       true,
       true},
      {"dedup_exact", "dedup $SAMPLE/nvidia_nvfp4_submissions.parquet $OUT --exact", {}, false},
      {"dedup_fuzzy", "dedup $SAMPLE/trimul_submissions.parquet $OUT --fuzzy", {}, false},
      {"extract",
       "extract -p nvfp4_gemm --top 3 --out $OUT",
       {},
       true,
       false,
       false,
       "manifest.jsonl"},
  };
  return all;
}

// The same commands on the medium set, their selections chosen so that each answer is a few KB
// to a few tens of KB.
const std::vector<Case>& medium_cases() {
  static const std::vector<Case> all = [] {
    std::vector<Case> cases = {
        {"submissions",
         "submissions -p nvfp4_gemm --scored --user-name cudev --columns "
         "submission_id,user_name,submission_time,score,runner,passed,file_name",
         kAll},
        {"show", "show 30003687", {"table", "json", "jsonl"}},
        {"show_near_duplicates", "show 30003687 --near-duplicates", {"table", "json", "jsonl"}},
        {"top", "top -p nvfp4_gemm -n 15", kAll},
        {"top_uncertainty", "top -p nvfp4_dual_gemm --uncertainty -n 5", kAll},
        {"top_legacy", "top -p amd-fp8-mm -n 10", kAll},
        {"progression", "progression --user _trida -p nvfp4_gemm", kAll},
        {"records", "records -p trimul", kAll},
        {"fastest", "fastest -p nvfp4_gemm", kAll},
        {"stats", "stats", kAll},
        {"noise", "noise -p trimul", kAll},
        {"tasks", "tasks -p nvfp4_gemm -p trimul --after 2025-07-20", kAll},
        {"place", "place -p nvfp4_gemm --runner NVIDIA --label m 20us 12us 35us", kAll},
        {"audit", "audit -p trimul --runner H100", kAll},
        {"techniques", "techniques -p trimul --runner H100", kAll},
        {"techniques_winners", "techniques --winners -p nvfp4_gemm", kAll},
        {"techniques_trend", "techniques --trend -p nvfp4_gemm", kAll},
        {"configs", "configs", {"table", "json"}},
        {"pairs",
         "pairs -p trimul --user trikaka --significant --out $OUT",
         {"jsonl", "parquet", "chat", "preference"},
         true,
         true},
        {"dedup_exact", "dedup $SAMPLE/trimul_submissions.parquet $OUT --exact", {}, false},
        {"dedup_fuzzy", "dedup $SAMPLE/trimul_submissions.parquet $OUT --fuzzy", {}, false},
        {"extract",
         "extract -p trimul --top 5 --dedup exact --out $OUT",
         {},
         true,
         false,
         false,
         "manifest.jsonl"},
    };
    for (Case& c : cases) c.medium = true;
    return cases;
  }();
  return all;
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

// The run's temporary folder as "$TMP", the checkout as "$SRC", the value of a summary's "time"
// line as "#".
std::string normalise(std::string text, const std::string& tmp, const Case& c) {
  text = replace_all(std::move(text), tmp, "$TMP");
  if (c.medium) text = replace_all(std::move(text), kbdata::testing::medium_data(), "$MEDIUM");
  text = replace_all(std::move(text), KBDATA_SOURCE_DIR, "$SRC");
  std::string out;
  for (const std::string& line : kbdata::testing::lines(text)) {
    const size_t value = line.find_first_not_of(' ', 4);
    out += line.rfind("time ", 0) == 0 && value != std::string::npos ? line.substr(0, value) + "#"
                                                                     : line;
    out += '\n';
  }
  if (!text.empty() && text.back() != '\n') out.pop_back();
  return out;
}

// What one case prints in one format: stdout (or the file at $OUT), then stderr and the exit
// code when they say anything.
std::string answer(const Case& c, const std::string& format) {
  TempDir tmp("golden");
  std::string out_name = "out";
  if (format == "parquet") {
    out_name = "out.parquet";
  } else if (c.reads_out) {
    out_name = "out.jsonl";
  }
  const std::string out = tmp.file(out_name);
  const std::string& folder = c.medium ? kbdata::testing::medium_data() : kSample;
  std::string args = replace_all(replace_all(c.args, "$OUT", out), "$SAMPLE", folder);
  if (c.data) args += " --data " + folder;
  const bool to_file = format == "parquet" || c.reads_out;
  if (format == "parquet" && c.args.find("$OUT") == std::string::npos) args += " -o " + out;
  if (!format.empty()) args += " -f " + format;
  const kbdata::testing::Result r = run(args);
  std::string text;
  if (to_file && r.exit_code == 0) {
    text += "stdout:\n" + r.out;
    if (format == "parquet") {
      const kbdata::testing::Result rows = run("cat " + out + " -f jsonl");
      text += "rows:\n" + rows.out + rows.err;
      // The schema: the columns' types, which the rows alone do not show.
      const std::string inspected = run("inspect " + out).out;
      const size_t at = inspected.find("schema:\n");
      if (at != std::string::npos) {
        text += inspected.substr(at, inspected.find("\n\n", at) - at) + "\n";
      }
    } else {
      text += "file:\n" + read_file(out);
    }
  } else {
    text += r.out;
  }
  if (!c.out_file.empty() && r.exit_code == 0) {
    text += "--- " + c.out_file + "\n" + read_file(out + "/" + c.out_file);
  }
  if (!r.err.empty()) text += "--- stderr\n" + r.err;
  if (r.exit_code != 0) text += "--- exit " + std::to_string(r.exit_code) + "\n";
  return normalise(text, tmp.path(), c);
}

class Golden : public ::testing::TestWithParam<Case> {};

TEST_P(Golden, SameBytesAsTheGoldenFiles) {
  const Case& c = GetParam();
  const bool update = std::getenv("KBDATA_UPDATE_GOLDEN") != nullptr;
  std::vector<std::string> formats = c.formats;
  if (formats.empty()) formats.push_back("");
  for (const std::string& format : formats) {
    const std::string& dir = c.medium ? kExpectedMedium : kExpected;
    const std::string path = dir + "/" + c.name + (format.empty() ? "" : "." + format);
    const std::string got = answer(c, format);
    if (update) {
      fs::create_directories(dir);
      std::ofstream(path, std::ios::binary) << got;
      continue;
    }
    ASSERT_TRUE(fs::exists(path)) << path << " is missing: run `make golden` to write it";
    EXPECT_EQ(got, read_file(path)) << "kbdata " << c.args << " -f " << format << " differs from "
                                    << path << " (`make golden` rewrites it)";
  }
}

INSTANTIATE_TEST_SUITE_P(Commands, Golden, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& param) {
                           return param.param.name;
                         });
INSTANTIATE_TEST_SUITE_P(Medium, Golden, ::testing::ValuesIn(medium_cases()),
                         [](const ::testing::TestParamInfo<Case>& param) {
                           return param.param.name;
                         });

// Every golden file belongs to a case: one left behind by a renamed case would hold nothing.
void expect_every_file_has_its_case(const std::string& dir, const std::vector<Case>& of) {
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_directory() && dir == kExpected && name == "medium") continue;
    bool known = false;
    for (const Case& c : of) {
      std::vector<std::string> formats = c.formats;
      if (formats.empty()) formats.push_back("");
      for (const std::string& f : formats) known |= name == c.name + (f.empty() ? "" : "." + f);
    }
    EXPECT_TRUE(known) << dir << "/" << name << " belongs to no case";
  }
}

TEST(GoldenFiles, EveryFileHasItsCase) {
  expect_every_file_has_its_case(kExpected, cases());
  expect_every_file_has_its_case(kExpectedMedium, medium_cases());
}

}  // namespace
