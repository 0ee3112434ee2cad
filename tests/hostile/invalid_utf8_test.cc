// Invalid UTF-8 in STRING columns (policy in docs/parquet.md, "Invalid UTF-8"): the reader passes
// the bytes through unchanged; `kbdata cat` (JSON lines, CSV, table) and `kbdata inspect`
// (statistics, metadata) print well-formed UTF-8, each maximal subpart of an ill-formed sequence
// replaced by U+FFFD, and exit 0.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/file.h"
#include "hostile_support.h"
#include "parquet/column_reader.h"
#include "parquet/file_reader.h"
#include "support/string_file.h"

namespace kbdata::hostile {
namespace {

constexpr std::chrono::seconds kTimeout{120};
const std::string kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Well-formed UTF-8 as Unicode Table 3-7 defines it (independent of common/text.h on purpose).
bool well_formed(const std::string& s) {
  size_t i = 0;
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  while (i < s.size()) {
    const unsigned char b = byte(i);
    size_t n = 0;
    unsigned char lo = 0x80;
    unsigned char hi = 0xBF;
    if (b < 0x80) {
      ++i;
      continue;
    } else if (b >= 0xC2 && b <= 0xDF) {
      n = 1;
    } else if (b >= 0xE0 && b <= 0xEF) {
      n = 2;
      if (b == 0xE0) lo = 0xA0;
      if (b == 0xED) hi = 0x9F;
    } else if (b >= 0xF0 && b <= 0xF4) {
      n = 3;
      if (b == 0xF0) lo = 0x90;
      if (b == 0xF4) hi = 0x8F;
    } else {
      return false;
    }
    if (i + n >= s.size()) return false;
    if (byte(i + 1) < lo || byte(i + 1) > hi) return false;
    for (size_t k = 2; k <= n; ++k) {
      if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return false;
    }
    i += n + 1;
  }
  return true;
}

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

// Raw value -> how the CLI must print it.
struct Case {
  std::string raw;
  std::string shown;
};
const std::vector<Case> kCases = {
    {"plain", "plain"},
    {"caf\xC3\xA9", "caf\xC3\xA9"},
    {"a\xFF"
     "b",
     "a" + kReplacement + "b"},                     // never-valid byte
    {"x\xE2\x82y", "x" + kReplacement + "y"},       // truncated 3-byte: one subpart
    {"\xF0\x9F\x98", kReplacement},                 // truncated 4-byte
    {"\xC0\xAF", repeat(kReplacement, 2)},          // overlong
    {"\xED\xA0\x80", repeat(kReplacement, 3)},      // surrogate
    {"\xF4\x90\x80\x80", repeat(kReplacement, 4)},  // beyond U+10FFFF
    {"\x80tail", kReplacement + "tail"},            // lone continuation
};

fs::path write_temp_file(const std::vector<uint8_t>& bytes) {
  const fs::path path =
      fs::temp_directory_path() / ("kbdata_invalid_utf8_" + std::to_string(getpid()) + ".parquet");
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  return path;
}

testing::StringFileSpec hand_built_spec() {
  testing::StringFileSpec spec;
  for (const auto& c : kCases) spec.values.push_back(c.raw);
  spec.min_value = "\x80min";
  spec.max_value = "max\xFF";
  spec.created_by = "writer \xC0 1.0";
  spec.key_value_metadata = {{"note", "bad \xED\xA0\x80 value"}};
  return spec;
}

TEST(InvalidUtf8, ReaderPassesBytesThrough) {
  auto reader = parquet::FileReader::open(std::make_unique<MemoryFile>(
      "strings.parquet", testing::build_string_file(hand_built_spec())));
  auto column = reader->column(0, 0);
  parquet::ColumnBatch batch;
  ASSERT_EQ(column->read_batch(100, batch), kCases.size());
  for (size_t i = 0; i < kCases.size(); ++i) {
    EXPECT_EQ(batch.values.string(i), kCases[i].raw) << "row " << i;
  }
}

TEST(InvalidUtf8, CliRepairsHandBuiltFile) {
  const fs::path path = write_temp_file(testing::build_string_file(hand_built_spec()));
  for (const char* format : {"jsonl", "csv", "table"}) {
    SCOPED_TRACE(format);
    const ProcessResult run =
        run_program({KBDATA_BINARY, "cat", path.string(), "--format", format}, kTimeout);
    EXPECT_EQ(run.exit_code, 0) << run.describe() << " " << run.err;
    EXPECT_TRUE(run.err.empty()) << run.err;
    EXPECT_TRUE(well_formed(run.out)) << run.out;
    size_t from = 0;
    for (const auto& c : kCases) {
      const size_t at = run.out.find(c.shown, from);
      EXPECT_NE(at, std::string::npos) << "missing '" << c.shown << "' in:\n" << run.out;
      if (at != std::string::npos) from = at + c.shown.size();
    }
    if (std::string(format) == "jsonl") {
      EXPECT_NE(run.out.find("{\"s\":\"a" + kReplacement + "b\"}\n"), std::string::npos) << run.out;
    }
  }
  for (const bool json : {false, true}) {
    SCOPED_TRACE(json ? "inspect --json" : "inspect");
    std::vector<std::string> argv = {KBDATA_BINARY, "inspect", path.string()};
    if (json) argv.push_back("--json");
    const ProcessResult run = run_program(argv, kTimeout);
    EXPECT_EQ(run.exit_code, 0) << run.describe() << " " << run.err;
    EXPECT_TRUE(well_formed(run.out)) << run.out;
    std::vector<std::string> expected = {kReplacement + "min", "max" + kReplacement,
                                         "writer " + kReplacement + " 1.0"};
    // The text form lists metadata keys with their sizes; the JSON form has the values.
    if (json) expected.push_back("bad " + repeat(kReplacement, 3) + " value");
    for (const std::string& shown : expected) {
      EXPECT_NE(run.out.find(shown), std::string::npos) << "missing '" << shown << "' in:\n"
                                                        << run.out;
    }
  }
  fs::remove(path);
}

// The corpus's files with invalid UTF-8 in STRING columns: every output well-formed, U+FFFD in
// some output. A file whose encoding the reader does not decode yet fails with "not supported"
// and is reported, not failed; once decoded, the policy applies to it.
TEST(InvalidUtf8, CorpusFiles) {
  const auto root = corpus_root();
  if (!root) {
    if (env_flag("CI"))
      FAIL() << "the corpus must be present in CI; not found at " << corpus_location();
    GTEST_SKIP() << "Parquet corpus not found at " << corpus_location() << " (set KBDATA_CORPUS)";
  }
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(*root / "duckdb")) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("invalid") && name.ends_with(".parquet")) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty());
  for (const auto& path : files) {
    const std::string name = path.lexically_relative(*root).generic_string();
    SCOPED_TRACE(name);
    bool replaced = false;
    std::string note;
    for (const std::vector<std::string>& args :
         std::vector<std::vector<std::string>>{{"cat", "--format", "jsonl"},
                                               {"cat", "--format", "csv"},
                                               {"cat", "--format", "table"},
                                               {"inspect"},
                                               {"inspect", "--json"}}) {
      std::vector<std::string> argv = {KBDATA_BINARY, args[0], path.string()};
      argv.insert(argv.end(), args.begin() + 1, args.end());
      const ProcessResult run = run_program(argv, kTimeout);
      if (run.exit_code == 1 && run.err.find("not supported") != std::string::npos) {
        note = "not decoded yet: " + run.err.substr(0, run.err.size() - 1);
        continue;
      }
      EXPECT_EQ(run.exit_code, 0) << args[0] << ": " << run.describe() << " " << run.err;
      EXPECT_TRUE(well_formed(run.out)) << args[0] << " output is not well-formed UTF-8";
      replaced = replaced || run.out.find(kReplacement) != std::string::npos;
    }
    EXPECT_TRUE(replaced) << "no U+FFFD in any output";
    std::cout << "invalid utf8: " << name << ": " << (replaced ? "U+FFFD shown" : "no U+FFFD")
              << (note.empty() ? "" : "; cat " + note) << "\n";
  }
}

}  // namespace
}  // namespace kbdata::hostile
