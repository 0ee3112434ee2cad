// Hostile files: every file of the corpus's bad/ folder must end in a clean kbdata::Error, read in
// process and through the CLI, and every file of encrypted/ in "encrypted Parquet files are not
// supported".
//
// "Clean" means, per file:
//   - in process (a forked child, so that a crash is a result, not the end of the test):
//     FileReader::open and ColumnReader::read_records over every column of every row group throw a
//     kbdata::Error (any class: the message changes as the reader learns more of the format), and
//     nothing else; or every column reads but one column's record count differs from its row
//     group's num_rows (the reader leaves that check to its consumer), and then `kbdata cat` must
//     refuse the file; within kTimeout; and the child's peak resident set grows by less than
//     kMaxRssGrowth (1 GiB; getrusage). Outside AddressSanitizer the child also runs under an
//     address-space limit of its size at start + kAddressSpaceHeadroom, so a runaway allocation
//     surfaces as std::bad_alloc (a failure) instead of exhausting the machine;
//   - `kbdata cat FILE` exits with status 1 within kTimeout and writes exactly one line to stderr,
//     starting "kbdata: " and naming the file; `kbdata inspect FILE` exits 0 or fails the same way.
// For the three files SOURCES.md names (DuckDB reads rows from them) a result without error is
// accepted too. The summary prints each file's outcome.
//
// Environment: KBDATA_CORPUS overrides the corpus location; CI=true makes a missing corpus a
// failure instead of a skip.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <set>
#include <string>
#include <typeinfo>
#include <vector>

#include "common/error.h"
#include "hostile_support.h"
#include "parquet/column_reader.h"
#include "parquet/file_reader.h"

#if defined(__SANITIZE_ADDRESS__)
#define KBDATA_HOSTILE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KBDATA_HOSTILE_ASAN 1
#endif
#endif

namespace kbdata::hostile {
namespace {

constexpr std::chrono::seconds kTimeout{120};
constexpr long kMaxRssGrowthKib = 1L << 20;  // 1 GiB
constexpr uint64_t kAddressSpaceHeadroom = 3ull << 30;
constexpr size_t kRecordsPerBatch = 1024;

// bad/ files from which DuckDB reads rows (SOURCES.md): an error or a defined result.
const std::set<std::string> kResultAccepted = {
    "bad/parquet-testing/ARROW-GH-43605.parquet",
    "bad/parquet-testing/ARROW-GH-45185.parquet",
    "bad/parquet-testing/ARROW-RS-GH-6229-LEVELS.parquet",
};

constexpr const char* kEncryptedMessage = "encrypted Parquet files are not supported";

std::string error_class(const Error& e) {
  if (dynamic_cast<const TruncatedError*>(&e)) return "TruncatedError";
  if (dynamic_cast<const FormatError*>(&e)) return "FormatError";
  if (dynamic_cast<const UnsupportedError*>(&e)) return "UnsupportedError";
  if (dynamic_cast<const IoError*>(&e)) return "IoError";
  if (dynamic_cast<const UsageError*>(&e)) return "UsageError";
  return "Error";
}

void limit_address_space() {
#ifndef KBDATA_HOSTILE_ASAN
  std::ifstream statm("/proc/self/statm");
  uint64_t pages = 0;
  if (statm >> pages) {
    const uint64_t limit =
        pages * static_cast<uint64_t>(sysconf(_SC_PAGESIZE)) + kAddressSpaceHeadroom;
    rlimit rl{limit, limit};
    setrlimit(RLIMIT_AS, &rl);
  }
#endif
}

// The in-process outcome, as the child reports it: "ok <levels> levels", "error <Class>: <what>",
// "mismatch <which column>" or "other <what>", then a line with the peak-RSS growth in KiB.
struct InProcess {
  ProcessResult process;
  std::string kind;  // "ok", "error", "other", or "" when the child did not report
  std::string detail;
  long rss_growth_kib = 0;
};

InProcess read_in_child(const fs::path& path) {
  InProcess result;
  result.process = run_in_child(
      [&]() -> std::string {
        limit_address_space();
        const long before = peak_rss_kib();
        std::string outcome;
        try {
          auto reader = parquet::FileReader::open(path.string());
          parquet::ColumnBatch batch;
          size_t levels = 0;
          std::string mismatch;
          for (int g = 0; g < reader->num_row_groups(); ++g) {
            const int64_t rows = reader->metadata().row_groups[static_cast<size_t>(g)].num_rows;
            for (size_t c = 0; c < reader->schema().leaves().size(); ++c) {
              auto column = reader->column(g, static_cast<int>(c));
              int64_t records = 0;
              while (size_t n = column->read_records(kRecordsPerBatch, batch)) {
                records += static_cast<int64_t>(n);
                levels += batch.num_levels;
              }
              if (records != rows && mismatch.empty()) {
                mismatch = "row group " + std::to_string(g) + ", column '" +
                           reader->schema().leaves()[c].dotted_path + "' has " +
                           std::to_string(records) + " records, the row group " +
                           std::to_string(rows) + " rows";
              }
            }
          }
          outcome = mismatch.empty() ? "ok " + std::to_string(levels) + " levels"
                                     : "mismatch " + mismatch;
        } catch (const Error& e) {
          outcome = "error " + error_class(e) + ": " + e.what();
        } catch (const std::exception& e) {
          outcome = std::string("other ") + typeid(e).name() + ": " + e.what();
        } catch (...) {
          outcome = "other (not a std::exception)";
        }
        return outcome + "\n" + std::to_string(peak_rss_kib() - before) + "\n";
      },
      kTimeout);
  const std::string& out = result.process.out;
  const size_t first = out.find('\n');
  if (first != std::string::npos) {
    const std::string line = out.substr(0, first);
    const size_t space = line.find(' ');
    result.kind = line.substr(0, space);
    result.detail = space == std::string::npos ? "" : line.substr(space + 1);
    result.rss_growth_kib = std::atol(out.c_str() + first + 1);
  }
  return result;
}

// Checks a CLI run that must fail cleanly: status 1, one stderr line "kbdata: ..." naming `path`.
void expect_clean_cli_failure(const ProcessResult& run, const fs::path& path,
                              const std::string& what) {
  EXPECT_FALSE(run.timed_out) << what << ": timed out after " << kTimeout.count() << " s";
  EXPECT_EQ(run.exit_code, 1) << what << ": " << run.describe() << "; stderr: " << run.err;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1)
      << what << ": stderr is not exactly one line: " << run.err;
  EXPECT_TRUE(run.err.ends_with('\n')) << what << ": stderr: " << run.err;
  EXPECT_TRUE(run.err.starts_with("kbdata: ")) << what << ": stderr: " << run.err;
  EXPECT_NE(run.err.find(path.string()), std::string::npos)
      << what << ": the message does not name the file: " << run.err;
}

std::vector<fs::path> files_under(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& entry : fs::recursive_directory_iterator(dir, ec)) {
    if (!entry.is_regular_file()) continue;
    const std::string name = entry.path().filename().string();
    if (name.ends_with(".md") || name.ends_with(".txt") || name.ends_with(".json")) continue;
    files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Skips (or, in CI, fails) when the corpus is missing; else returns it.
#define KBDATA_REQUIRE_CORPUS(root)                                                                \
  const auto root = corpus_root();                                                                 \
  if (!root) {                                                                                     \
    if (env_flag("CI"))                                                                            \
      FAIL() << "the corpus must be present in CI; not found at " << corpus_location();            \
    GTEST_SKIP() << "Parquet corpus not found at " << corpus_location() << " (set KBDATA_CORPUS)"; \
  }

TEST(Hostile, BadFilesFailCleanly) {
  KBDATA_REQUIRE_CORPUS(root);
  const auto files = files_under(*root / "bad");
  ASSERT_FALSE(files.empty()) << "no files under " << (*root / "bad");
  std::cout << "hostile: " << files.size() << " files under " << (*root / "bad").string()
            << " (in process, then `kbdata cat`)\n";
  for (const auto& path : files) {
    const std::string name = path.lexically_relative(*root).generic_string();
    SCOPED_TRACE(name);
    const bool result_ok = kResultAccepted.contains(name);

    const InProcess in = read_in_child(path);
    EXPECT_FALSE(in.process.timed_out)
        << "in process: timed out after " << kTimeout.count() << " s";
    EXPECT_TRUE(in.process.exit_code == 0 && !in.kind.empty())
        << "in process: the child crashed (" << in.process.describe()
        << "); stderr: " << in.process.err.substr(0, 4000);
    const ProcessResult cat =
        run_program({KBDATA_BINARY, "cat", path.string()}, kTimeout, /*keep_stdout=*/false);
    if (!in.kind.empty()) {
      // "mismatch": every column read, but not the row group's row count; the reader leaves that
      // check to its consumer, so the CLI must then refuse the file.
      EXPECT_TRUE(in.kind == "error" || (in.kind == "mismatch" && cat.exit_code == 1) ||
                  (result_ok && in.kind == "ok"))
          << "in process: " << in.kind << " " << in.detail;
      EXPECT_LT(in.rss_growth_kib, kMaxRssGrowthKib)
          << "in process: peak RSS grew by " << in.rss_growth_kib << " KiB";
    }

    if (result_ok && cat.exit_code == 0) {
      EXPECT_TRUE(cat.err.empty()) << "kbdata cat: stderr: " << cat.err;
    } else {
      expect_clean_cli_failure(cat, path, "kbdata cat");
    }
    const ProcessResult inspect =
        run_program({KBDATA_BINARY, "inspect", path.string()}, kTimeout, /*keep_stdout=*/false);
    if (inspect.exit_code != 0) expect_clean_cli_failure(inspect, path, "kbdata inspect");

    std::string cli = cat.exit_code == 1 ? "cat exit 1" : "cat " + cat.describe();
    std::cout << "hostile: " << name << ": " << (in.kind.empty() ? in.process.describe() : in.kind)
              << (in.detail.empty() ? "" : " " + in.detail) << " [" << cli << ", inspect "
              << inspect.describe() << ", peak RSS +" << in.rss_growth_kib << " KiB]\n";
  }
}

TEST(Hostile, EncryptedFilesAreRefused) {
  KBDATA_REQUIRE_CORPUS(root);
  const auto files = files_under(*root / "encrypted");
  ASSERT_FALSE(files.empty()) << "no files under " << (*root / "encrypted");
  for (const auto& path : files) {
    const std::string name = path.lexically_relative(*root).generic_string();
    SCOPED_TRACE(name);
    const InProcess in = read_in_child(path);
    EXPECT_EQ(in.kind, "error") << in.process.describe() << " " << in.detail << " "
                                << in.process.err.substr(0, 4000);
    EXPECT_NE(in.detail.find(kEncryptedMessage), std::string::npos) << in.detail;

    const ProcessResult cat =
        run_program({KBDATA_BINARY, "cat", path.string()}, kTimeout, /*keep_stdout=*/false);
    expect_clean_cli_failure(cat, path, "kbdata cat");
    EXPECT_NE(cat.err.find(kEncryptedMessage), std::string::npos) << cat.err;
    std::cout << "hostile: " << name << ": " << in.kind << " " << in.detail << "\n";
  }
}

}  // namespace
}  // namespace kbdata::hostile
