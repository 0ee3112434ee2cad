// A folder kept in memory (dataset/resident.h) gives what its files give: the same rows in the
// same order with the same fields, under every filter and load option, both schema families (the
// bundled sample holds flat and legacy files and a repeated config); what a named step prepared;
// and it steps aside when it cannot serve a load or the files changed.
#include "dataset/resident.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "common/error.h"
#include "support/temp_dir.h"

namespace kbdata::dataset {
namespace {

namespace fs = std::filesystem;

const std::string kSample = std::string(KBDATA_SOURCE_DIR) + "/data/sample";

// A step with a visible result: the code's length, for rows with a score only.
PrepareStep length_step() {
  PrepareStep step;
  step.key = "length";
  step.code_wanted = [](const Submission& s) { return s.score.has_value(); };
  step.prepare = [](Submission& s, std::optional<std::string_view> code) {
    s.prepared = code ? static_cast<int64_t>(code->size()) : int64_t{-1};
  };
  step.bytes = [](const std::any&) { return size_t{0}; };
  return step;
}

template <typename T>
std::string text(const std::optional<T>& v) {
  if (!v) return "null";
  std::ostringstream out;
  out << *v;
  return out.str();
}

std::string text(const BenchmarkResult& b) {
  return text(b.mean) + "/" + text(b.std_dev) + "/" + text(b.err) + "/" + text(b.runs) + "/" +
         text(b.best) + "/" + text(b.worst);
}

// Every field of a row, one line.
std::string line(const Submission& s) {
  std::ostringstream out;
  out << s.submission_id << '|' << s.leaderboard_id << '|' << s.problem_name << '|' << s.user_id
      << '|' << text(s.user_name) << '|' << text(s.code_id) << '|' << text(s.file_name) << '|'
      << s.submission_time << '|' << s.status << '|' << text(s.score) << '|' << text(s.passed)
      << '|' << text(s.mode) << '|' << text(s.runner) << '|' << text(s.code) << '|'
      << text(s.code_bytes) << "|runs:";
  for (const Run& r : s.runs) {
    out << r.run_id << ',' << text(r.start_time) << ',' << text(r.end_time) << ',' << r.mode << ','
        << text(r.score) << ',' << text(r.passed);
    for (const BenchmarkResult& b : r.benchmarks) out << ',' << text(b);
    out << ';';
  }
  out << "|benchmarks:";
  if (s.benchmarks) {
    for (const BenchmarkResult& b : *s.benchmarks) out << text(b) << ';';
  } else {
    out << "null";
  }
  out << "|prepared:";
  if (const auto* n = std::any_cast<int64_t>(&s.prepared)) out << *n;
  return out.str();
}

std::vector<std::string> lines(const DataDir& dir, const LoadOptions& load) {
  std::vector<std::string> out;
  LoadStats stats;
  load_dir(
      dir, load, [&](Submission&& s) { out.push_back(line(s)); }, stats);
  return out;
}

class ResidentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    files_ = scan_data_dir(kSample);
    uint64_t stopped = 0;
    resident_ = Resident::build(files_, {length_step()}, 2, 0, {}, &stopped);
    ASSERT_NE(resident_, nullptr);
    memory_ = files_;
    memory_.resident = resident_;
  }

  // The files' rows and memory's, for `load`; memory must serve it.
  void expect_same(const LoadOptions& load, const std::string& what) {
    SCOPED_TRACE(what);
    ASSERT_TRUE(resident_->serves(memory_, load));
    const std::vector<std::string> from_files = lines(files_, load);
    const std::vector<std::string> from_memory = lines(memory_, load);
    EXPECT_EQ(from_memory, from_files);
  }

  DataDir files_;
  DataDir memory_;
  std::shared_ptr<const Resident> resident_;
};

TEST_F(ResidentTest, HoldsEveryRowOfTheFolderOnce) {
  LoadOptions all;
  EXPECT_EQ(resident_->rows(), lines(files_, all).size());
  EXPECT_GT(resident_->rows(), 500U);
  EXPECT_GT(resident_->bytes(), resident_->rows() * sizeof(Submission));
}

TEST_F(ResidentTest, GivesWhatTheFilesGiveUnderEveryFilter) {
  LoadOptions load;
  expect_same(load, "no filter");
  load.with_details = false;
  expect_same(load, "without details");
  load = {};
  load.with_runs = true;
  expect_same(load, "with runs");
  load.with_results = true;
  expect_same(load, "with runs and results");
  load.with_runs = false;
  expect_same(load, "with results only");

  const std::vector<std::pair<std::string, std::function<void(Filter&)>>> filters = {
      {"problem, flat", [](Filter& f) { f.problem = "nvfp4_gemm"; }},
      {"problem, legacy", [](Filter& f) { f.problem = "amd-fp8-mm"; }},
      {"leaderboard", [](Filter& f) { f.leaderboard_id = 399; }},
      {"runner", [](Filter& f) { f.runner = "B200"; }},
      {"scored and passed",
       [](Filter& f) {
         f.scored_only = true;
         f.passed_only = true;
       }},
      {"scored and passed, legacy",
       [](Filter& f) {
         f.problem = "amd-fp8-mm";
         f.scored_only = true;
         f.passed_only = true;
       }},
      {"since and until",
       [](Filter& f) {
         f.since = parse_utc_time("2025-03-01", "since");
         f.until = parse_utc_time("2025-12-01", "until");
       }},
      {"epoch", [](Filter& f) {
         f.problem = "nvfp4_dual_gemm";
         f.epoch = 1;
       }}};
  for (const auto& [what, set] : filters) {
    for (bool details : {true, false}) {
      LoadOptions filtered;
      set(filtered.filter);
      filtered.with_details = details;
      expect_same(filtered, what + (details ? "" : ", without details"));
    }
  }

  // A user and a submission taken from the data.
  std::vector<Submission> rows;
  LoadStats stats;
  load_dir(
      files_, LoadOptions{}, [&](Submission&& s) { rows.push_back(std::move(s)); }, stats);
  ASSERT_FALSE(rows.empty());
  LoadOptions by_user;
  by_user.filter.user = rows[rows.size() / 2].user_id;
  expect_same(by_user, "user");
  LoadOptions by_id;
  by_id.filter.submission_id = rows[rows.size() / 3].submission_id;
  expect_same(by_id, "submission id");
  EXPECT_EQ(lines(memory_, by_id).size(), lines(files_, by_id).size());
}

TEST_F(ResidentTest, HandsOverWhatANamedStepPrepared) {
  const PrepareStep step = length_step();
  LoadOptions load;
  load.with_code = true;
  load.prepare_with(step);
  expect_same(load, "the step over every row");
  load.filter.problem = "amd-fp8-mm";
  expect_same(load, "the step over a legacy problem");
  // Some rows were prepared with their code, the others without.
  bool with_code = false;
  bool without = false;
  for (const std::string& l : lines(memory_, load)) {
    with_code = with_code || l.find("|prepared:-1") == std::string::npos;
    without = without || l.find("|prepared:-1") != std::string::npos;
  }
  EXPECT_TRUE(with_code);
  EXPECT_TRUE(without);
}

TEST_F(ResidentTest, RunsAStepWithoutCodeOnEachRow) {
  LoadOptions load;
  load.prepare = [](Submission& s, std::optional<std::string_view> code) {
    s.prepared = code ? int64_t{1} : int64_t{0};
  };
  expect_same(load, "a prepare step without code");
}

TEST_F(ResidentTest, LeavesToTheFilesWhatItDoesNotHold) {
  LoadOptions code;
  code.with_code = true;
  EXPECT_FALSE(resident_->serves(memory_, code)) << "the code itself";
  code.prepare = length_step().prepare;
  EXPECT_FALSE(resident_->serves(memory_, code)) << "a step without a key";
  code.prepare_key = "another";
  EXPECT_FALSE(resident_->serves(memory_, code)) << "a step it did not prepare";
  LoadOptions sizes;
  sizes.with_code_bytes = true;
  EXPECT_FALSE(resident_->serves(memory_, sizes));
  // Such loads still give the files' rows, code included.
  LoadOptions by_id;
  by_id.with_code = true;
  by_id.filter.problem = "nvfp4_gemv";
  const std::vector<std::string> rows = lines(memory_, by_id);
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows, lines(files_, by_id));
  EXPECT_EQ(rows[0].find("|null|null|runs"), std::string::npos) << rows[0];
}

TEST_F(ResidentTest, StepsAsideWhenAFileChanged) {
  testing::TempDir tmp("resident");
  for (const auto& e : fs::directory_iterator(kSample)) {
    fs::copy_file(e.path(), tmp.file(e.path().filename().string()));
  }
  DataDir copy = scan_data_dir(tmp.path());
  copy.resident = Resident::build(copy, {}, 1, 0, {});
  ASSERT_NE(copy.resident, nullptr);
  EXPECT_TRUE(copy.resident->serves(copy, LoadOptions{}));
  const std::string file = tmp.file("trimul_submissions.parquet");
  fs::last_write_time(file, fs::last_write_time(file) + std::chrono::seconds(5));
  DataDir rescanned = scan_data_dir(tmp.path());
  rescanned.resident = copy.resident;
  EXPECT_FALSE(copy.resident->serves(rescanned, LoadOptions{}));
  fs::remove(file);
  DataDir fewer = scan_data_dir(tmp.path());
  EXPECT_FALSE(copy.resident->serves(fewer, LoadOptions{}));
  // ... and such a folder loads from its files.
  fewer.resident = copy.resident;
  DataDir plain = scan_data_dir(tmp.path());
  EXPECT_EQ(lines(fewer, LoadOptions{}), lines(plain, LoadOptions{}));
}

TEST_F(ResidentTest, AProblemTheFolderLacksIsTheFilesError) {
  LoadOptions load;
  load.filter.problem = "nvfp4_gem";
  EXPECT_THROW(lines(memory_, load), UsageError);
}

TEST(ResidentBuild, StopsAtTheBoundOrWhenAskedTo) {
  const DataDir dir = scan_data_dir(kSample);
  uint64_t stopped = 0;
  EXPECT_EQ(Resident::build(dir, {length_step()}, 1, 100'000, {}, &stopped), nullptr);
  EXPECT_GT(stopped, 0U);
  EXPECT_LT(stopped, 1000U);
  uint64_t calls = 0;
  EXPECT_EQ(Resident::build(
                dir, {}, 1, 0,
                [&](uint64_t) {
                  ++calls;
                  return false;
                },
                &stopped),
            nullptr);
  EXPECT_EQ(calls, 1U);
  EXPECT_EQ(stopped, 1024U) << "stopped at the first progress call";
}

}  // namespace
}  // namespace kbdata::dataset
