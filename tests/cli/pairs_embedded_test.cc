// kbdata pairs run inside another program (cli/embedded.h, as the Python module runs commands):
// its rows are handed over as a result table, the table OUT would have held, and nothing is
// written; the same rows, rendered by the one writer of tables, are the file the command line
// writes, byte for byte, in every pairs format.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/embedded.h"
#include "report/writer.h"
#include "result/table.h"
#include "support/run_kbdata.h"
#include "support/temp_dir.h"

namespace {

namespace fs = std::filesystem;
using kbdata::testing::read_file;
using kbdata::testing::run;
using kbdata::testing::TempDir;

const std::string kSample = std::string(KBDATA_SOURCE_DIR) + "/data/sample";

// The files in `dir`, by name.
std::vector<std::string> listing(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

// `args` run embedded (the current folder is `cwd`, so that a stray file would be seen there),
// its answer, with what it wrote to its stdout and stderr.
struct Embedded {
  kbdata::result::ResultTable table;
  std::string out;
  std::string err;
};

std::string stream_text(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string text;
  char buffer[4096];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) text.append(buffer, n);
  return text;
}

Embedded embedded(const std::vector<std::string>& args) {
  kbdata::cli::EmbeddedRun run;
  run.out = std::tmpfile();
  run.err = std::tmpfile();
  kbdata::result::ResultTable table = kbdata::cli::answer_command_line(args, run);
  Embedded e{std::move(table), stream_text(run.out), stream_text(run.err)};
  std::fclose(run.out);
  std::fclose(run.err);
  return e;
}

class PairsEmbedded : public testing::TestWithParam<const char*> {};

TEST_P(PairsEmbedded, HandsOverTheRowsTheCommandLineWrites) {
  const std::string format = GetParam();
  TempDir tmp("pairs-embedded");
  const std::string file = tmp.path() + "/pairs.jsonl";
  const auto written = run("pairs --data " + kSample + " --format " + format + " --out " + file);
  ASSERT_EQ(written.exit_code, 0) << written.err;

  const fs::path before = fs::current_path();
  fs::current_path(tmp.path());
  Embedded answer = embedded({"pairs", "--data", kSample, "--format", format});
  fs::current_path(before);

  // Nothing written: no file, no card, no spill left behind.
  EXPECT_EQ(listing(tmp.path()), (std::vector<std::string>{"pairs.jsonl", "pairs.jsonl.card.md"}));
  const std::string file_text = read_file(file);
  ASSERT_FALSE(file_text.empty());
  EXPECT_EQ(kbdata::report::table_text(answer.table, kbdata::report::Format::JSONL), file_text);
  EXPECT_EQ(answer.table.rule().rfind("kbdata pairs", 0), 0u) << answer.table.rule();
  // The counts are the table's summary lines; stdout is left alone.
  bool written_line = false;
  for (const std::string& line : answer.table.summary_lines()) {
    written_line = written_line || line.rfind("pairs written", 0) == 0;
  }
  EXPECT_TRUE(written_line);
  EXPECT_EQ(answer.out, "");
}

INSTANTIATE_TEST_SUITE_P(Formats, PairsEmbedded, testing::Values("jsonl", "chat", "preference"));

TEST(PairsEmbeddedTypes, ScoresAndSpeedupsKeepTheirMeaning) {
  Embedded answer = embedded({"pairs", "--data", kSample});
  ASSERT_GT(answer.table.rows(), 0);
  for (const kbdata::result::Column& c : answer.table.columns()) {
    if (c.name == "baseline_score" || c.name == "improved_score") {
      EXPECT_EQ(c.type, kbdata::result::ColumnType::SCORE) << c.name;
    }
    if (c.name == "speedup") {
      EXPECT_EQ(c.type, kbdata::result::ColumnType::FACTOR);
    }
    if (c.name == "baseline_time") {
      EXPECT_EQ(c.type, kbdata::result::ColumnType::TIMESTAMP);
    }
  }
  Embedded trajectories = embedded({"pairs", "--data", kSample, "--trajectories"});
  ASSERT_GT(trajectories.table.rows(), 0);
  bool scores = false;
  for (const kbdata::result::Column& c : trajectories.table.columns()) {
    if (c.name == "scores") {
      scores = true;
      EXPECT_TRUE(c.list);
      EXPECT_EQ(c.type, kbdata::result::ColumnType::SCORE);
    }
  }
  EXPECT_TRUE(scores);
}

TEST(PairsEmbeddedTypes, TheCommandLineStillRequiresOut) {
  const auto r = run("pairs --data " + kSample);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--out"), std::string::npos) << r.err;
}

}  // namespace
