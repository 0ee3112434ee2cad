// Loading into the model: legacy runs grouped per submission, flat rows as they are, every filter,
// pushdown that skips row groups and the code column (counted in bytes read), data folders.
#include "dataset/loader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <any>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "common/error.h"
#include "common/file.h"
#include "parquet/file_reader.h"
#include "support/oracle.h"
#include "support/submission_files.h"
#include "support/temp_dir.h"

namespace kbdata::dataset {
namespace {

namespace fs = std::filesystem;
using testing::FlatRow;
using testing::LegacyRow;

constexpr int64_t kDay = 86'400'000'000LL;

// Loads `bytes` through a RecordingFile; returns the submissions, fills stats and bytes read.
struct Loaded {
  std::vector<Submission> rows;
  LoadStats stats;
  uint64_t bytes = 0;
};

Loaded load(const std::vector<uint8_t>& bytes, SchemaFamily family, const LoadOptions& options) {
  MemoryFile memory("fixture.parquet", bytes);
  auto recording = std::make_unique<RecordingFile>(memory);
  RecordingFile* rec = recording.get();
  auto reader = parquet::FileReader::open(std::move(recording));
  Loaded out;
  load_file(
      *reader, family, options, [&](Submission&& s) { out.rows.push_back(std::move(s)); },
      out.stats);
  out.bytes = rec->bytes_read();
  return out;
}

// ---- Legacy ----

std::vector<LegacyRow> legacy_rows() {
  // Submission 10 (amd-fp8-mm, 399): test, two leaderboard runs (public and secret, the secret one
  // faster), a failed leaderboard run with a lower score that must not count. Rows shuffled with
  // submission 11's on purpose: the loader must not assume an order.
  // Submission 11 (amd-identity, 398): only a failing test run. Submission 12 (unknown
  // leaderboard 9999): a passed benchmark run with a score, which is not a leaderboard score.
  auto run = [](int64_t sid, int64_t lb, int64_t run_id, const char* mode,
                std::optional<double> score, std::optional<bool> passed) {
    LegacyRow r;
    r.submission_id = sid;
    r.leaderboard_id = lb;
    r.user_id = sid == 12 ? 3 : 7;
    r.submission_time_ms = 1'700'000'000'000 + sid * 1000;
    r.code = sid == 10 ? "\\x7072696e74" : "code of " + std::to_string(sid);
    r.code_id = 100 + sid;
    r.run_id = run_id;
    r.run_mode = mode;
    r.run_score = score;
    r.run_passed = passed;
    r.duration = 1.5;
    return r;
  };
  return {
      run(10, 399, 3, "leaderboard", 0.004, true),  run(11, 398, 5, "test", std::nullopt, false),
      run(10, 399, 1, "test", std::nullopt, true),  run(10, 399, 4, "leaderboard", 0.003, true),
      run(10, 399, 2, "leaderboard", 0.001, false), run(12, 9999, 6, "benchmark", 0.002, true)};
}

TEST(LegacyLoad, GroupsRunsPerSubmissionWithTheBestPassedLeaderboardScore) {
  LoadOptions options;
  options.with_code = true;
  options.with_runs = true;
  Loaded l = load(testing::legacy_file(legacy_rows(), false), SchemaFamily::LEGACY_RUNS, options);
  ASSERT_EQ(l.rows.size(), 3u);
  const Submission& s = l.rows[0];
  EXPECT_EQ(s.submission_id, 10);
  EXPECT_EQ(s.leaderboard_id, 399);
  EXPECT_EQ(s.problem_name, "amd-fp8-mm");  // from the registry
  EXPECT_EQ(s.user_id, "7");                // anonymised integer as decimal text
  EXPECT_FALSE(s.user_name);                // legacy files have no names
  EXPECT_FALSE(s.runner);                   // nor runners: its runs record no machine
  EXPECT_EQ(s.code_id, 110);
  EXPECT_EQ(s.submission_time, (1'700'000'000'000 + 10'000) * 1000);  // ms naive -> µs UTC
  ASSERT_TRUE(s.score);
  EXPECT_DOUBLE_EQ(*s.score, 0.003);  // not the failed 0.001 run
  EXPECT_EQ(s.passed, true);
  EXPECT_EQ(s.mode, "leaderboard");
  EXPECT_EQ(s.status, "succeeded");
  EXPECT_EQ(s.code, "print");  // hex escape decoded
  ASSERT_EQ(s.runs.size(), 4u);
  EXPECT_EQ(s.runs[0].run_id, 1);  // sorted by run id
  EXPECT_EQ(s.runs[3].run_id, 4);
  EXPECT_EQ(s.runs[3].start_time, s.submission_time + 1'000'000);

  const Submission& failed = l.rows[1];
  EXPECT_EQ(failed.submission_id, 11);
  EXPECT_EQ(failed.problem_name, "amd-identity");
  EXPECT_EQ(failed.status, "failed");
  EXPECT_FALSE(failed.score);
  EXPECT_FALSE(failed.passed);
  EXPECT_FALSE(failed.mode);

  const Submission& unknown = l.rows[2];
  EXPECT_EQ(unknown.problem_name, "leaderboard-9999");  // no registry or leaderboards file names it
  EXPECT_FALSE(unknown.score);  // a benchmark score is not a leaderboard score
  EXPECT_EQ(unknown.status, "failed");

  EXPECT_EQ(l.stats.code.values, 3u);  // once per submission, not per run
  EXPECT_EQ(l.stats.code.hex_decoded, 1u);
  EXPECT_EQ(l.stats.rows_read, 6u);
}

TEST(LegacyLoad, BinaryCodeColumnWithInvalidUtf8) {
  std::vector<LegacyRow> rows = legacy_rows();
  for (auto& r : rows) {
    if (r.submission_id == 11) r.code = std::string("bad \xFF byte");
  }
  LoadOptions options;
  options.with_code = true;
  Loaded l = load(testing::legacy_file(rows, true), SchemaFamily::LEGACY_RUNS, options);
  ASSERT_EQ(l.rows.size(), 3u);
  EXPECT_EQ(l.rows[0].code, "print");
  EXPECT_EQ(l.rows[1].code, "bad \xEF\xBF\xBD byte");
  EXPECT_EQ(l.stats.code.from_binary, 3u);
  EXPECT_EQ(l.stats.code.utf8_repaired, 1u);
  EXPECT_EQ(l.stats.code.repaired, 2u);
  EXPECT_TRUE(l.rows[0].runs.empty());  // runs only when asked
}

TEST(LegacyLoad, Filters) {
  auto bytes = testing::legacy_file(legacy_rows(), false);
  auto ids = [&](auto set) {
    LoadOptions options;
    set(options.filter);
    std::vector<int64_t> out;
    for (const auto& s : load(bytes, SchemaFamily::LEGACY_RUNS, options).rows) {
      out.push_back(s.submission_id);
    }
    return out;
  };
  using V = std::vector<int64_t>;
  EXPECT_EQ(ids([](Filter& f) { f.problem = "amd-fp8-mm"; }), V{10});
  EXPECT_EQ(ids([](Filter& f) { f.problem = "nvfp4_gemv"; }), V{});
  EXPECT_EQ(ids([](Filter& f) { f.leaderboard_id = 398; }), V{11});
  EXPECT_EQ(ids([](Filter& f) { f.user_id = "3"; }), V{12});
  EXPECT_EQ(ids([](Filter& f) { f.user_id = "alice"; }), V{});
  EXPECT_EQ(ids([](Filter& f) { f.user_name = "alice"; }), V{});
  EXPECT_EQ(ids([](Filter& f) { f.user = "3"; }), V{12});  // by id; legacy files have no names
  EXPECT_EQ(ids([](Filter& f) { f.user = "alice"; }), V{});
  EXPECT_EQ(ids([](Filter& f) { f.runner = "MI300"; }), V{});
  EXPECT_EQ(ids([](Filter& f) { f.passed_only = true; }), V{10});
  EXPECT_EQ(ids([](Filter& f) { f.scored_only = true; }), V{10});
  const int64_t t11 = (1'700'000'000'000 + 11'000) * 1000;
  EXPECT_EQ(ids([&](Filter& f) { f.since = t11; }), (V{11, 12}));
  EXPECT_EQ(ids([&](Filter& f) { f.until = t11; }), V{10});
  EXPECT_EQ(ids([&](Filter& f) {
              f.since = t11 - 1;
              f.until = t11 + 1;
            }),
            V{11});
}

TEST(LegacyLoad, PassedFilterKeepsTheScoreOfTheFullLoad) {
  // Pushing passed/scored down to the run rows must not change the chosen score.
  auto bytes = testing::legacy_file(legacy_rows(), false);
  LoadOptions options;
  options.filter.passed_only = true;
  Loaded l = load(bytes, SchemaFamily::LEGACY_RUNS, options);
  ASSERT_EQ(l.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(*l.rows[0].score, 0.003);
  EXPECT_EQ(l.rows[0].status, "succeeded");
}

// ---- Flat ----

std::vector<FlatRow> flat_rows(int per_problem) {
  // Sorted by leaderboard, then submission: row groups then hold one leaderboard each.
  std::vector<FlatRow> rows;
  const std::pair<int64_t, const char*> boards[] = {
      {595, "nvfp4_gemv"}, {597, "nvfp4_gemm"}, {598, "nvfp4_dual_gemm"}};
  int64_t id = 1;
  for (const auto& [lb, name] : boards) {
    for (int i = 0; i < per_problem; ++i, ++id) {
      FlatRow r;
      r.submission_id = id;
      r.leaderboard_id = lb;
      r.problem_name = name;
      r.user_id = std::to_string(1000 + i % 4);
      r.user_name = i % 4 == 3 ? "" : std::string(1, static_cast<char>('a' + i % 4));
      r.code_id = 500 + id;
      r.submission_time = (20'000 + id) * kDay;
      bool ok = i % 3 != 0;
      r.status = ok ? "succeeded" : "failed";
      if (ok) {
        r.score = 1e-4 * static_cast<double>(1 + i);
        r.passed = true;
        r.mode = "leaderboard";
        r.runner = i % 2 == 0 ? "B200" : "H100";
      }
      // Varied text, as real code is: it must not compress away.
      uint32_t x = static_cast<uint32_t>(id) * 2654435761u;
      for (int k = 0; k < 2000; ++k) {
        x = x * 1664525u + 1013904223u;
        r.code.push_back(static_cast<char>('!' + (x >> 24) % 90));
      }
      r.code += " kernel " + std::to_string(id);
      rows.push_back(r);
    }
  }
  return rows;
}

parquet::WriterOptions small_groups() {
  parquet::WriterOptions o;
  o.row_group_rows = 30;
  o.page_rows = 10;
  return o;
}

TEST(FlatLoad, RowsAsTheyAre) {
  LoadOptions options;
  options.with_code = true;
  Loaded l = load(testing::flat_file(flat_rows(3)), SchemaFamily::FLAT, options);
  ASSERT_EQ(l.rows.size(), 9u);
  const Submission& s = l.rows[1];
  EXPECT_EQ(s.submission_id, 2);
  EXPECT_EQ(s.problem_name, "nvfp4_gemv");
  EXPECT_EQ(s.user_id, "1001");
  EXPECT_EQ(s.user_name, "b");
  EXPECT_EQ(s.runner, "H100");
  EXPECT_DOUBLE_EQ(*s.score, 2e-4);
  EXPECT_EQ(s.passed, true);
  EXPECT_EQ(s.status, "succeeded");
  EXPECT_EQ(s.submission_time, 20'002 * kDay);
  EXPECT_EQ(s.code->substr(2000), " kernel 2");
  EXPECT_FALSE(l.rows[0].score);
  EXPECT_FALSE(l.rows[0].runner);
}

// Also the loader's row-level prefilter (rows dropped before their Submission is built), in a file
// of small row groups with a page index and in one of a single row group, where every row is
// decoded and only the prefilter and matches() choose.
TEST(FlatLoad, EveryFilterAgreesWithAFullScan) {
  auto rows = flat_rows(30);
  for (const auto& bytes : {testing::flat_file(rows, small_groups()), testing::flat_file(rows)}) {
    std::vector<Filter> filters(18);
    filters[0].problem = "nvfp4_gemm";
    filters[1].leaderboard_id = 598;
    filters[2].user_id = "1002";
    filters[3].user_name = "";
    filters[4].runner = "H100";
    filters[5].passed_only = true;
    filters[6].scored_only = true;
    filters[7].since = 20'050 * kDay;
    filters[8].until = 20'010 * kDay;
    filters[9].since = 20'010 * kDay;
    filters[9].until = 20'012 * kDay;
    filters[10].submission_id = 77;
    filters[11].problem = "nvfp4_gemv";
    filters[11].runner = "B200";
    filters[11].user_name = "c";
    filters[12].user = "1001";  // by id
    filters[13].user = "b";     // by name
    filters[14].user = "";      // by the empty name of users 1003
    filters[15].user = "1002";
    filters[15].problem = "nvfp4_dual_gemm";
    filters[15].passed_only = true;
    filters[16].user = "c";
    filters[16].runner = "B200";
    filters[16].scored_only = true;
    filters[17].user_id = "1000";
    filters[17].problem = "nvfp4_gemm";
    LoadOptions all;
    std::vector<Submission> everything = load(bytes, SchemaFamily::FLAT, all).rows;
    ASSERT_EQ(everything.size(), 90u);
    for (size_t i = 0; i < filters.size(); ++i) {
      LoadOptions options;
      options.filter = filters[i];
      std::vector<int64_t> got, expected;
      for (const auto& s : load(bytes, SchemaFamily::FLAT, options).rows)
        got.push_back(s.submission_id);
      for (const auto& s : everything) {
        if (matches(filters[i], s)) expected.push_back(s.submission_id);
      }
      EXPECT_EQ(got, expected) << "filter " << i;
      EXPECT_FALSE(expected.empty()) << "filter " << i;
    }
  }
}

TEST(FlatLoad, ProblemFilterSkipsRowGroupsAndReadsFewerBytes) {
  auto bytes = testing::flat_file(flat_rows(30), small_groups());
  LoadOptions all;
  Loaded full = load(bytes, SchemaFamily::FLAT, all);
  EXPECT_EQ(full.stats.row_groups, 3u);
  EXPECT_EQ(full.stats.row_groups_skipped, 0u);

  LoadOptions one;
  one.filter.problem = "nvfp4_gemm";
  Loaded part = load(bytes, SchemaFamily::FLAT, one);
  EXPECT_EQ(part.rows.size(), 30u);
  EXPECT_EQ(part.stats.row_groups_skipped, 2u);
  EXPECT_EQ(part.stats.rows_read, 30u);
  EXPECT_LT(part.bytes, full.bytes);
}

TEST(FlatLoad, TimeRangeUsesThePageIndex) {
  // One row group, pages of 10 rows, times increasing: the page index selects pages.
  parquet::WriterOptions o;
  o.page_rows = 10;
  auto bytes = testing::flat_file(flat_rows(30), o);
  LoadOptions options;
  options.filter.since = 20'021 * kDay;  // rows 20..24: the third page
  options.filter.until = 20'026 * kDay;
  Loaded l = load(bytes, SchemaFamily::FLAT, options);
  ASSERT_EQ(l.rows.size(), 5u);
  EXPECT_EQ(l.rows.front().submission_id, 21);
  EXPECT_EQ(l.stats.rows_read, 10u);  // one page of ten, not ninety rows
}

TEST(FlatLoad, CodeIsReadOnlyWhenAsked) {
  auto bytes = testing::flat_file(flat_rows(30), small_groups());
  LoadOptions without;
  LoadOptions with;
  with.with_code = true;
  Loaded a = load(bytes, SchemaFamily::FLAT, without);
  Loaded b = load(bytes, SchemaFamily::FLAT, with);
  EXPECT_FALSE(a.rows[0].code);
  EXPECT_TRUE(b.rows[0].code);
  EXPECT_EQ(a.stats.code.values, 0u);
  EXPECT_EQ(b.stats.code.values, 90u);
  // The code column holds most of the bytes: reading it at least doubles what is read.
  EXPECT_GT(b.bytes, 2 * a.bytes);
}

// Every thread count hands the sink the same submissions, in the same order, as one: with and
// without code, whole row groups and rows chosen by a page index, with the prefilter.
TEST(FlatLoad, EveryThreadCountLoadsWhatOneLoads) {
  auto rows = flat_rows(300);  // 900 rows, 1.8 MB of code
  parquet::WriterOptions groups;
  groups.row_group_rows = 600;
  groups.page_rows = 100;
  for (const auto& bytes : {testing::flat_file(rows), testing::flat_file(rows, groups)}) {
    std::vector<LoadOptions> cases(5);
    cases[1].with_code = true;
    cases[2].with_code = true;
    cases[2].filter.user = "b";
    cases[3].with_code = true;
    cases[3].filter.since = 20'100 * kDay;  // the page index selects pages
    cases[4].with_code = true;
    cases[4].with_details = false;
    for (size_t i = 0; i < cases.size(); ++i) {
      LoadOptions one = cases[i];
      one.threads = 1;
      Loaded a = load(bytes, SchemaFamily::FLAT, one);
      for (int threads : {2, 3, 8}) {
        LoadOptions many = cases[i];
        many.threads = threads;
        Loaded b = load(bytes, SchemaFamily::FLAT, many);
        ASSERT_EQ(a.rows.size(), b.rows.size()) << "case " << i;
        ASSERT_FALSE(a.rows.empty()) << "case " << i;
        for (size_t r = 0; r < a.rows.size(); ++r) {
          const Submission& x = a.rows[r];
          const Submission& y = b.rows[r];
          EXPECT_TRUE(x.submission_id == y.submission_id && x.leaderboard_id == y.leaderboard_id &&
                      x.problem_name == y.problem_name && x.user_id == y.user_id &&
                      x.user_name == y.user_name && x.code_id == y.code_id &&
                      x.file_name == y.file_name && x.submission_time == y.submission_time &&
                      x.status == y.status && x.score == y.score && x.passed == y.passed &&
                      x.mode == y.mode && x.runner == y.runner && x.code == y.code)
              << "case " << i << " row " << r;
        }
        EXPECT_EQ(a.stats.rows_read, b.stats.rows_read) << "case " << i;
        EXPECT_EQ(a.bytes, b.bytes) << "case " << i;
      }
    }
  }
}

// On a file kbdata wrote and on the flat sample DuckDB wrote (snappy, its dictionaries and pages).
TEST(FlatLoad, PrepareRunsOnTheWorkersAndItsResultReachesTheSinkInOrder) {
  std::ifstream in(std::string(KBDATA_TEST_DATA) + "/kernelbot_sample.parquet", std::ios::binary);
  const std::vector<uint8_t> duckdb{std::istreambuf_iterator<char>(in),
                                    std::istreambuf_iterator<char>()};
  ASSERT_FALSE(duckdb.empty());
  for (const std::vector<uint8_t>& bytes : {testing::flat_file(flat_rows(300)), duckdb}) {
    LoadOptions one;
    one.with_code = true;
    one.threads = 1;
    const Loaded plain = load(bytes, SchemaFamily::FLAT, one);
    LoadOptions many = one;
    many.threads = 4;
    std::mutex mutex;
    std::set<std::thread::id> threads;
    many.prepare = [&](Submission& s, std::optional<std::string_view> code) {
      {
        std::lock_guard lock(mutex);
        threads.insert(std::this_thread::get_id());
        EXPECT_FALSE(s.code.has_value());  // handed beside the row, never kept in it
      }
      s.prepared = code ? std::string(*code) : std::string("(null)");
    };
    const Loaded prepared = load(bytes, SchemaFamily::FLAT, many);
    ASSERT_GT(plain.rows.size(), 100U);
    ASSERT_EQ(plain.rows.size(), prepared.rows.size());
    for (size_t r = 0; r < plain.rows.size(); ++r) {
      EXPECT_EQ(plain.rows[r].submission_id, prepared.rows[r].submission_id);
      EXPECT_FALSE(prepared.rows[r].code.has_value());
      EXPECT_EQ(std::any_cast<std::string>(prepared.rows[r].prepared),
                plain.rows[r].code.value_or("(null)"));
    }
    EXPECT_EQ(threads.count(std::this_thread::get_id()), 0U);  // never on the calling thread
  }
}

// The threads are the caller's: a load never reads $KBDATA_THREADS (the command line decides it,
// cli/threads.h). By default it runs on the calling thread alone; given 3, on at most 3 workers.
TEST(FlatLoad, TheThreadsAreTheCallersNeverTheEnvironments) {
  ::setenv("KBDATA_THREADS", "not a number", 1);
  const std::vector<uint8_t> bytes = testing::flat_file(flat_rows(300));
  for (const int threads : {0, 3}) {
    LoadOptions options;
    options.with_code = true;
    if (threads > 0) options.threads = threads;
    std::mutex mutex;
    std::set<std::thread::id> seen;
    options.prepare = [&](Submission&, std::optional<std::string_view>) {
      std::lock_guard lock(mutex);
      seen.insert(std::this_thread::get_id());
    };
    const Loaded loaded = load(bytes, SchemaFamily::FLAT, options);
    EXPECT_EQ(loaded.rows.size(), 900u);
    if (threads == 0) {
      EXPECT_EQ(seen, std::set<std::thread::id>{std::this_thread::get_id()});
    } else {
      EXPECT_LE(seen.size(), 3u);
      EXPECT_EQ(seen.count(std::this_thread::get_id()), 0u);
    }
  }
  ::unsetenv("KBDATA_THREADS");
}

// code_wanted sees each row before its code is decoded: the rows it refuses have none, the others
// the same code as a plain load, and only the wanted rows' code counts as decoded.
TEST(FlatLoad, CodeWantedDecodesOnlyTheRowsItWants) {
  const auto bytes = testing::flat_file(flat_rows(300));
  LoadOptions plain;
  plain.with_code = true;
  LoadOptions some = plain;
  some.threads = 3;
  some.code_wanted = [](const Submission& s) { return s.submission_id % 3 == 0; };
  const Loaded all = load(bytes, SchemaFamily::FLAT, plain);
  const Loaded wanted = load(bytes, SchemaFamily::FLAT, some);
  ASSERT_EQ(all.rows.size(), wanted.rows.size());
  uint64_t decoded = 0;
  for (size_t r = 0; r < all.rows.size(); ++r) {
    const Submission& s = wanted.rows[r];
    EXPECT_EQ(s.submission_id, all.rows[r].submission_id);
    if (s.submission_id % 3 == 0) {
      EXPECT_EQ(s.code, all.rows[r].code);
      ++decoded;
    } else {
      EXPECT_FALSE(s.code);
    }
  }
  EXPECT_GT(decoded, 0u);
  EXPECT_EQ(wanted.stats.code.values, decoded);
}

// A legacy file's prepare runs once per submission the filter keeps, on the load's threads once
// the file is grouped, and the sink still gets the submissions in submission_id order.
TEST(LegacyLoad, PrepareRunsOnceForEveryKeptSubmissionOnTheLoadsThreads) {
  // 300 submissions (more than one block of 64), runs in reverse order.
  std::vector<LegacyRow> rows;
  for (int64_t sid = 300; sid >= 1; --sid) {
    LegacyRow r;
    r.submission_id = sid;
    r.leaderboard_id = 399;
    r.user_id = sid % 7;
    r.submission_time_ms = 1'700'000'000'000 + sid * 1000;
    r.code = "code of " + std::to_string(sid);
    r.code_id = 1000 + sid;
    r.run_id = sid;
    r.run_mode = "leaderboard";
    r.run_score = 0.001 * static_cast<double>(sid);
    r.run_passed = true;
    rows.push_back(r);
  }
  const auto bytes = testing::legacy_file(rows, false);
  LoadOptions plain;
  plain.with_code = true;
  const Loaded one = load(bytes, SchemaFamily::LEGACY_RUNS, plain);
  LoadOptions prepared = plain;
  prepared.threads = 3;
  std::mutex mutex;
  std::set<std::thread::id> threads;
  std::atomic<int> calls{0};
  prepared.prepare = [&](Submission& s, std::optional<std::string_view> code) {
    ++calls;
    {
      std::lock_guard lock(mutex);
      threads.insert(std::this_thread::get_id());
    }
    s.prepared = std::string(code.value_or(""));
  };
  const Loaded many = load(bytes, SchemaFamily::LEGACY_RUNS, prepared);
  ASSERT_EQ(one.rows.size(), many.rows.size());
  EXPECT_EQ(calls.load(), static_cast<int>(many.rows.size()));
  for (size_t r = 0; r < one.rows.size(); ++r) {
    EXPECT_EQ(many.rows[r].submission_id, one.rows[r].submission_id);
    EXPECT_FALSE(many.rows[r].code);
    EXPECT_EQ(std::any_cast<std::string>(many.rows[r].prepared), one.rows[r].code.value_or(""));
  }
  EXPECT_EQ(threads.count(std::this_thread::get_id()), 0U);  // on the pool, not the caller
}

TEST(LegacyLoad, CodeDecodedOnTheWorkersIsTheFirstRunsWhateverTheThreads) {
  // 400 submissions of 3 runs each, the runs of one submission 400 rows apart (so in different
  // batches of 256), every third code hex-escaped: each submission's code comes from its first
  // run, decoded and counted once, on any number of threads, with the code or only its size.
  const auto hex = [](const std::string& text) {
    std::string out;
    for (const unsigned char c : text) {
      out += "0123456789abcdef"[c >> 4];
      out += "0123456789abcdef"[c & 15];
    }
    return out;
  };
  std::vector<LegacyRow> rows;
  for (int64_t run = 0; run < 3; ++run) {
    for (int64_t sid = 1; sid <= 400; ++sid) {
      LegacyRow r;
      r.submission_id = sid;
      r.leaderboard_id = 399;
      r.user_id = sid % 7;
      r.submission_time_ms = 1'700'000'000'000 + sid * 1000;
      // A later run's code differs: only the first run's may be the submission's.
      const std::string code = "code of " + std::to_string(sid) + (run > 0 ? " (later run)" : "");
      r.code = sid % 3 == 0 && run == 0 ? "\\x" + hex(code) : code;
      r.code_id = 1000 + sid;
      r.run_id = run * 1000 + sid;
      r.run_mode = "leaderboard";
      r.run_score = 0.001 * static_cast<double>(sid + run);
      r.run_passed = true;
      rows.push_back(r);
    }
  }
  const auto bytes = testing::legacy_file(rows, false);
  for (const bool text : {true, false}) {
    SCOPED_TRACE(text ? "code" : "code bytes");
    for (const int threads : {1, 2, 4}) {
      SCOPED_TRACE(threads);
      LoadOptions options;
      options.with_code = text;
      options.with_code_bytes = !text;
      options.threads = threads;
      const Loaded l = load(bytes, SchemaFamily::LEGACY_RUNS, options);
      ASSERT_EQ(l.rows.size(), 400u);
      for (const Submission& s : l.rows) {
        const std::string want = "code of " + std::to_string(s.submission_id);
        if (text) {
          EXPECT_EQ(s.code, want);
        } else {
          EXPECT_EQ(s.code_bytes, want.size());
        }
      }
      EXPECT_EQ(l.stats.code.values, 400u);
      EXPECT_EQ(l.stats.code.hex_decoded, 133u);
      EXPECT_EQ(l.stats.rows_read, 1200u);
      // Only the submissions a filter keeps have their code counted.
      LoadOptions one_user = options;
      one_user.filter.user_id = "3";  // submissions 3, 10, ..., 395
      const Loaded u = load(bytes, SchemaFamily::LEGACY_RUNS, one_user);
      EXPECT_EQ(u.rows.size(), 57u);
      EXPECT_EQ(u.stats.code.values, 57u);

      // With a prepare step the code comes from a second pass over the code column, and
      // code_wanted sees the complete submission: its best score is that of its first run, 1200
      // rows from its last (the runs' scores are 0.001 x (sid + run)).
      LoadOptions prepared = options;
      std::atomic<int> asked{0};
      prepared.code_wanted = [&](const Submission& s) {
        ++asked;
        return s.score && *s.score < 0.2;  // submissions 1-199
      };
      prepared.prepare = [&](Submission& s, std::optional<std::string_view> code) {
        s.prepared =
            text ? std::string(code.value_or("(none)")) : std::to_string(s.code_bytes.value_or(0));
      };
      const Loaded p = load(bytes, SchemaFamily::LEGACY_RUNS, prepared);
      ASSERT_EQ(p.rows.size(), 400u);
      EXPECT_EQ(asked.load(), 400);
      for (const Submission& s : p.rows) {
        const std::string want = "code of " + std::to_string(s.submission_id);
        const std::string got = std::any_cast<std::string>(s.prepared);
        if (s.submission_id < 200) {
          EXPECT_EQ(got, text ? want : std::to_string(want.size())) << s.submission_id;
        } else {
          EXPECT_EQ(got, text ? "(none)" : "0") << s.submission_id;
        }
        EXPECT_FALSE(s.code);
      }
      EXPECT_EQ(p.stats.code.values, 199u);
      EXPECT_EQ(p.stats.code.hex_decoded, 66u);  // 3, 6, ..., 198
      EXPECT_EQ(p.stats.rows_read, 1200u);       // the first pass's rows; the second reads 400
    }
  }
}

TEST(LegacyLoad, APrepareLoadOfAFileDuckDbWroteGivesEachSubmissionItsCode) {
  // DuckDB writes the legacy file (its own row groups and pages): 3,000 submissions of 1-3 runs
  // each, the runs of one submission in different row groups, one code per submission (as the
  // platform stores it), every fifth submission's runs all failed. The two-pass load of a prepare
  // step gives each submission the code DuckDB reads back, whatever the threads.
  testing::TempDir dir("legacy-duckdb");
  const std::string path = dir.file("submissions.parquet");
  testing::duckdb().rows(
      "COPY (SELECT s AS submission_id, 399::BIGINT AS leaderboard_id, (s % 13)::BIGINT AS "
      "user_id, "
      "TIMESTAMP '2025-01-01' + to_seconds(s) AS submission_time, 'submission.py' AS file_name, "
      "'code of ' || s || repeat(' #pad', (s % 50)::INTEGER) AS code, (1000 + s)::BIGINT AS "
      "code_id, "
      "(r * 10000 + s)::BIGINT AS run_id, 'leaderboard' AS run_mode, "
      "(0.001 * s + r)::DOUBLE AS run_score, s % 5 <> 0 AS run_passed "
      "FROM range(1, 3001) t(s), range(0, 3) u(r) WHERE r <= s % 3 ORDER BY r, s) TO " +
      testing::sql_path(path) + " (FORMAT parquet, ROW_GROUP_SIZE 2048)");
  const auto expected = testing::duckdb().rows("SELECT submission_id, any_value(code) FROM " +
                                               testing::sql_path(path) + " GROUP BY 1 ORDER BY 1");
  ASSERT_EQ(expected.size(), 3000u);
  std::ifstream in(path, std::ios::binary);
  std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  auto reader =
      parquet::FileReader::open(std::make_unique<MemoryFile>("submissions.parquet", bytes));
  ASSERT_GT(reader->num_row_groups(), 1);
  for (const int threads : {1, 3}) {
    SCOPED_TRACE(threads);
    LoadOptions options;
    options.with_code = true;
    options.threads = threads;
    options.code_wanted = [](const Submission& s) { return s.score.has_value(); };
    options.prepare = [](Submission& s, std::optional<std::string_view> code) {
      s.prepared = std::string(code.value_or("(none)"));
    };
    std::vector<Submission> rows;
    LoadStats stats;
    load_file(
        *reader, SchemaFamily::LEGACY_RUNS, options,
        [&](Submission&& s) { rows.push_back(std::move(s)); }, stats);
    ASSERT_EQ(rows.size(), 3000u);
    uint64_t scored = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
      EXPECT_EQ(std::to_string(rows[i].submission_id), *expected[i][0]);
      const std::string got = std::any_cast<std::string>(rows[i].prepared);
      if (rows[i].score) {
        ++scored;
        EXPECT_EQ(got, *expected[i][1]) << rows[i].submission_id;
      } else {
        EXPECT_EQ(got, "(none)") << rows[i].submission_id;  // failed: its code not decoded
      }
    }
    EXPECT_EQ(scored, 2400u);
    EXPECT_EQ(stats.code.values, scored);
  }
}

TEST(FlatLoad, WithoutDetailsSkipsCodeIdFileNameAndMode) {
  auto bytes = testing::flat_file(flat_rows(30), small_groups());
  LoadOptions full;
  LoadOptions lean;
  lean.with_details = false;
  Loaded a = load(bytes, SchemaFamily::FLAT, full);
  Loaded b = load(bytes, SchemaFamily::FLAT, lean);
  ASSERT_EQ(a.rows.size(), b.rows.size());
  EXPECT_EQ(a.rows[1].code_id, 502);
  EXPECT_EQ(a.rows[1].mode, "leaderboard");
  for (size_t r = 0; r < b.rows.size(); ++r) {
    EXPECT_EQ(b.rows[r].code_id, std::nullopt);
    EXPECT_FALSE(b.rows[r].file_name);
    EXPECT_FALSE(b.rows[r].mode);
    EXPECT_EQ(b.rows[r].submission_id, a.rows[r].submission_id);
    EXPECT_EQ(b.rows[r].score, a.rows[r].score);
    EXPECT_EQ(b.rows[r].runner, a.rows[r].runner);
  }
  EXPECT_LT(b.bytes, a.bytes);  // their column chunks are not read
}

// A corrupt page: the load fails with the reader's error, located at its column, whatever the
// threads, and nothing is left running.
TEST(FlatLoad, AnErrorOnAWorkerThreadReachesTheCaller) {
  std::vector<uint8_t> bytes = testing::flat_file(flat_rows(300));
  {
    MemoryFile memory("fixture.parquet", bytes);
    auto reader = parquet::FileReader::open(std::make_unique<MemoryFile>(memory));
    const int leaf = *reader->schema().find_leaf("user_id");
    const auto& meta =
        *reader->metadata().row_groups[0].columns[static_cast<size_t>(leaf)].meta_data;
    const int64_t at =
        meta.dictionary_page_offset ? *meta.dictionary_page_offset : meta.data_page_offset;
    for (int64_t k = 0; k < 16; ++k) bytes[static_cast<size_t>(at + k)] = 0xFF;
  }
  for (int threads : {1, 2, 8}) {
    LoadOptions options;
    options.with_code = true;
    options.threads = threads;
    try {
      load(bytes, SchemaFamily::FLAT, options);
      ADD_FAILURE() << "no error with " << threads << " threads";
    } catch (const FormatError& e) {
      EXPECT_NE(std::string(e.what()).find("user_id"), std::string::npos) << e.what();
    }
  }
}

// ---- Data folders ----

class DataFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("kbdata-model-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(DataFolder, ScanDetectsConfigsFamiliesAndOtherFiles) {
  testing::write_bytes(dir_ / "nvidia_nvfp4_submissions.parquet", testing::flat_file(flat_rows(2)));
  testing::write_bytes(dir_ / "submissions.parquet", testing::legacy_file(legacy_rows(), false));
  testing::write_bytes(dir_ / "mine.parquet", testing::flat_file(flat_rows(1)));
  testing::write_bytes(dir_ / "junk.parquet", {'n', 'o', 'p', 'e'});
  testing::write_bytes(dir_ / "notes.txt", {'x'});
  DataDir d = scan_data_dir(dir_.string());
  ASSERT_EQ(d.files.size(), 3u);
  EXPECT_EQ(d.files[0].name, "mine.parquet");
  EXPECT_EQ(d.files[0].config, nullptr);
  EXPECT_EQ(d.files[0].family, SchemaFamily::FLAT);
  EXPECT_EQ(d.files[0].num_rows, 3);
  EXPECT_EQ(d.files[1].config->name, "nvidia_nvfp4_submissions");
  EXPECT_EQ(d.files[2].config->name, "amd_submissions");
  EXPECT_EQ(d.files[2].family, SchemaFamily::LEGACY_RUNS);
  ASSERT_EQ(d.skipped.size(), 1u);
  EXPECT_EQ(d.skipped[0].name, "junk.parquet");
  EXPECT_TRUE(d.skipped[0].unreadable);
  EXPECT_NE(d.skipped[0].reason.find("junk.parquet"), std::string::npos) << d.skipped[0].reason;
}

TEST_F(DataFolder, ProblemsResolveAcrossConfigs) {
  testing::write_bytes(dir_ / "nvidia_nvfp4_submissions.parquet", testing::flat_file(flat_rows(2)));
  testing::write_bytes(dir_ / "submissions.parquet", testing::legacy_file(legacy_rows(), false));
  testing::write_bytes(dir_ / "successful_submissions.parquet",
                       testing::legacy_file(legacy_rows(), false));
  FlatRow extra;
  extra.submission_id = 900;
  extra.leaderboard_id = 42;
  extra.problem_name = "my_problem";
  testing::write_bytes(dir_ / "mine.parquet", testing::flat_file({extra}));
  DataDir d = scan_data_dir(dir_.string());

  auto names = [&](const Filter& f) {
    std::vector<std::string> out;
    for (const DataFile* file : files_for(d, f)) out.push_back(file->name);
    return out;
  };
  using V = std::vector<std::string>;
  // amd_successful_submissions is a subset of amd_submissions: read only the latter. Registry
  // configs come first (so a derived copy beside one repeats it, not the other way round).
  EXPECT_EQ(names({}),
            (V{"nvidia_nvfp4_submissions.parquet", "submissions.parquet", "mine.parquet"}));
  for (const DataFile* f : files_for(d)) EXPECT_NE(f->name, "successful_submissions.parquet");
  // Which files may hold a problem is their statistics' to say, not a list's: the legacy file's
  // leaderboard ids (398..9999) may hold 399 and 597; the flat files' problem names and ids
  // exclude what they do not hold.
  Filter amd;
  amd.problem = "amd-fp8-mm";
  EXPECT_EQ(names(amd), (V{"submissions.parquet"}));
  Filter mine;
  mine.problem = "my_problem";
  EXPECT_EQ(names(mine), (V{"mine.parquet"}));
  Filter lb;
  lb.leaderboard_id = 597;
  EXPECT_EQ(names(lb), (V{"nvidia_nvfp4_submissions.parquet", "submissions.parquet"}));

  std::map<std::string, int> per_problem;
  LoadStats stats;
  LoadOptions options;
  load_dir(
      d, options, [&](Submission&& s) { per_problem[s.problem_name]++; }, stats);
  EXPECT_EQ(per_problem["my_problem"], 1);
  EXPECT_EQ(per_problem["amd-fp8-mm"], 1);
  EXPECT_EQ(per_problem["nvfp4_gemv"], 2);
  EXPECT_GT(stats.bytes_read, 0u);

  Filter unknown;
  unknown.problem = "nope";
  options.filter = unknown;
  try {
    load_dir(
        d, options, [](Submission&&) {}, stats);
    ADD_FAILURE();
  } catch (const UsageError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("unknown problem 'nope'"), std::string::npos) << m;
    EXPECT_NE(m.find("amd-fp8-mm"), std::string::npos) << m;
    EXPECT_NE(m.find("my_problem"), std::string::npos) << m;
    EXPECT_NE(m.find("nvfp4_gemv"), std::string::npos) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos);
  }
}

// Issue 15 item 10: a legacy-format file holding a leaderboard the registry places in a flat
// config (trimul, 496) answers a problem filter as it answers a leaderboard filter, whether the
// file has the config's name or another.
TEST_F(DataFolder, ProblemNamesResolveInLegacyFilesOfAnyLeaderboard) {
  std::vector<LegacyRow> rows = legacy_rows();
  for (LegacyRow& r : rows) r.leaderboard_id = 496;
  for (const char* name : {"trimul_submissions.parquet", "old_trimul.parquet"}) {
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    testing::write_bytes(dir_ / name, testing::legacy_file(rows, false));
    DataDir d = scan_data_dir(dir_.string());
    ASSERT_EQ(d.files.size(), 1u);
    ASSERT_EQ(d.files[0].family, SchemaFamily::LEGACY_RUNS);
    auto count = [&](const Filter& f) {
      LoadOptions options;
      options.filter = f;
      LoadStats stats;
      size_t n = 0;
      load_dir(
          d, options, [&](Submission&& s) { n += s.problem_name == "trimul" ? 1 : 1000; }, stats);
      return n;
    };
    Filter by_id;
    by_id.leaderboard_id = 496;
    Filter by_name;
    by_name.problem = "trimul";
    EXPECT_EQ(count(by_id), 3u) << name;
    EXPECT_EQ(count(by_name), 3u) << name;
  }
}

TEST(ChooseDataDir, FlagThenEnvThenSample) {
  EXPECT_EQ(choose_data_dir(std::string("/x"), "/y").path, "/x");
  EXPECT_FALSE(choose_data_dir(std::string("/x"), "/y").bundled_sample);
  EXPECT_EQ(choose_data_dir(std::nullopt, "/y").path, "/y");
  DataDirChoice c = choose_data_dir(std::nullopt, "");
  EXPECT_TRUE(c.bundled_sample);
  EXPECT_TRUE(fs::exists(fs::path(c.path) / "nvidia_nvfp4_submissions.parquet")) << c.path;
  auto candidates = bundled_sample_candidates();
  ASSERT_GE(candidates.size(), 3u);
  EXPECT_NE(candidates[0].find("share/kbdata/sample"), std::string::npos);
}

}  // namespace
}  // namespace kbdata::dataset
