// One rule for --out in every command that writes rows (docs/cli.md, "Output files"): any format
// to a file, the format from --format, else from the file's extension, else the command's
// default; the file holds exactly what stdout would have held; --format and a name that says
// another format are refused before anything is written; a failed command leaves the file as it
// was.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "support/run_kbdata.h"
#include "support/temp_dir.h"

namespace {

namespace fs = std::filesystem;
using kbdata::testing::read_file;
using kbdata::testing::run;

const std::string kData = std::string(" --data ") + KBDATA_SOURCE_DIR + "/data/sample";

// Every command with --out, as a user types it (on the bundled sample).
const std::vector<std::string>& commands() {
  static const std::vector<std::string> all = {
      "submissions -p trimul --scored",
      "top -p trimul",
      "progression --user tonda -p nvfp4_dual_gemm",
      "records -p trimul --runner H100",
      "noise -p trimul",
      "fastest",
      "stats",
      "audit -p trimul",
      "techniques -p trimul",
      "techniques -p trimul --trend",
      "techniques -p trimul --winners",
  };
  return all;
}

struct Named {
  std::string name;    // the output file's name
  std::string format;  // what it must hold, as --format names it
};

// The extensions and what they say; a name that says nothing gets the default, a table.
const std::vector<Named>& names() {
  static const std::vector<Named> all = {
      {"out.csv", "csv"}, {"out.json", "json"}, {"out.jsonl", "jsonl"}, {"out.ndjson", "jsonl"},
      {"OUT.CSV", "csv"}, {"out.txt", "table"}, {"out", "table"},       {"out.parquet", "parquet"}};
  return all;
}

TEST(OutputFiles, EveryCommandWritesEveryFormatToAFileAsItWouldToStdout) {
  kbdata::testing::TempDir dir("output-files");
  for (const std::string& command : commands()) {
    std::map<std::string, std::string> printed;  // format -> what stdout gets
    for (const std::string format : {"table", "csv", "json", "jsonl"}) {
      const auto r = run(command + kData + " --format " + format);
      ASSERT_EQ(r.exit_code, 0) << command << ": " << r.err;
      printed[format] = r.out;
    }
    // --format wins over a name that says nothing.
    const std::string plain = dir.file("plain");
    fs::remove(plain);
    ASSERT_EQ(run(command + kData + " --format csv -o " + plain).exit_code, 0);
    EXPECT_EQ(read_file(plain), printed["csv"]) << command;
    for (const Named& n : names()) {
      SCOPED_TRACE(command + " -o " + n.name);
      const std::string out = dir.file(n.name);
      fs::remove(out);
      const auto r = run(command + kData + " -o " + out);
      ASSERT_EQ(r.exit_code, 0) << r.err;
      EXPECT_EQ(r.out, "");  // everything went to the file
      ASSERT_TRUE(fs::is_regular_file(out));
      const std::string written = read_file(out);
      if (n.format == "parquet") {
        EXPECT_EQ(written.substr(0, 4), "PAR1");
        continue;
      }
      EXPECT_EQ(written, printed[n.format]);
    }
  }
}

TEST(OutputFiles, AFormatAndANameThatDisagreeAreRefusedAndNothingIsWritten) {
  kbdata::testing::TempDir dir("output-files-disagree");
  for (const std::string& command : commands()) {
    SCOPED_TRACE(command);
    const std::string out = dir.file("ranking.parquet");
    const auto r = run(command + kData + " --format csv -o " + out);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(
        r.err.find("--format csv and --out " + out + " disagree: the file's name says parquet"),
        std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(out));
    // A table into a .json name, too.
    EXPECT_EQ(run(command + kData + " --format table -o " + dir.file("x.json")).exit_code, 2);
    EXPECT_FALSE(fs::exists(dir.file("x.json")));
  }
}

TEST(OutputFiles, ParquetStillNeedsAFile) {
  const auto r = run("top -p trimul --format parquet" + kData);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--format parquet needs --out FILE"), std::string::npos) << r.err;
}

// A command that fails after its output was opened leaves the file as it was.
TEST(OutputFiles, AFailureLeavesTheFileAsItWas) {
  kbdata::testing::TempDir dir("output-files-failure");
  const std::string out = dir.file("ranking.csv");
  std::ofstream(out) << "previous\n";
  const auto r = run("top -p no_such_problem" + kData + " -o " + out);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(read_file(out), "previous\n");
  for (const auto& e : fs::directory_iterator(dir.path())) {
    EXPECT_EQ(e.path().filename().string().find(".kbdata-"), std::string::npos) << e.path();
  }
}

// pairs follows the same rule with its own formats: JSON Lines (jsonl, chat, preference) and
// Parquet; a name that says JSON or CSV names a format it does not write.
TEST(OutputFiles, PairsRefusesNamesOfFormatsItDoesNotWrite) {
  kbdata::testing::TempDir dir("output-files-pairs");
  for (const std::string name : {"p.json", "p.csv"}) {
    const auto r = run("pairs -p trimul" + kData + " -o " + dir.file(name));
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("which pairs does not write"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir.file(name)));
  }
  const auto r = run("pairs -p nvfp4_gemm" + kData + " -o " + dir.file("p.ndjson"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_file(dir.file("p.ndjson")).substr(0, 2), "{\"");
}

}  // namespace
