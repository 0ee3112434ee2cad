// A code of tens of megabytes costs `techniques` and `extract` a few bytes per byte of it (the code
// model's tokens and facts), not tens: three codes of 48 MB each pass under an address limit of
// 1.5 GB with one thread; and when memory does run out on a code, the error names the row.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>

#include "dataset/flat_file_writer.h"
#include "support/run_kbdata.h"
#include "synth/code_generator.h"

namespace kbdata {
namespace {

namespace fs = std::filesystem;

// `kbdata ARGS` with the address space limited to `kilobytes` (ulimit -v).
testing::Result run_limited(size_t kilobytes, const std::string& args) {
  static int counter = 0;
  const std::string err_path =
      fs::temp_directory_path() /
      ("kbdata-limited-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".err");
  const std::string command = "ulimit -v " + std::to_string(kilobytes) + "; exec " +
                              std::string(KBDATA_BINARY) + " " + args + " 2>" + err_path;
  testing::Result result;
  FILE* pipe = ::popen(command.c_str(), "r");
  char buffer[65536];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) result.out.append(buffer, n);
  const int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.err = testing::read_file(err_path);
  fs::remove(err_path);
  return result;
}

class LargeCode : public ::testing::Test {
 protected:
  void SetUp() override {
#if defined(__SANITIZE_ADDRESS__)
    // AddressSanitizer reserves terabytes of address space for its shadow: no address limit of
    // gigabytes lets the binary start, and its quarantine makes the peak no measure of ours.
    GTEST_SKIP() << "address limits are not measured under AddressSanitizer";
#endif
  }
  static void SetUpTestSuite() {
#if defined(__SANITIZE_ADDRESS__)
    return;  // every test skips (SetUp)
#endif
    dir_ =
        (fs::temp_directory_path() / ("kbdata-large-code-" + std::to_string(::getpid()))).string();
    fs::remove_all(dir_);
    fs::create_directories(dir_ + "/data");
    dataset::FlatFileWriter w(dir_ + "/data/big_submissions.parquet", dataset::flat_file_columns(),
                              parquet::WriterOptions{}, {});
    for (int64_t id = 1; id <= 3; ++id) {
      // Real-shaped kernels of every language, one after the other, to 48 MB.
      std::string code;
      uint64_t lineage = static_cast<uint64_t>(id) * 1000;
      const synth::Language languages[] = {synth::Language::TRITON, synth::Language::CUDA_INLINE,
                                           synth::Language::HIP_INLINE, synth::Language::CUTE_DSL,
                                           synth::Language::PYTORCH};
      while (code.size() < (48u << 20)) {
        synth::generate_code({lineage, 0, languages[lineage % 5]}, "nvfp4_gemm", code);
        ++lineage;
      }
      dataset::Submission s;
      s.submission_id = id;
      s.leaderboard_id = 597;
      s.problem_name = "nvfp4_gemm";
      s.user_id = "u" + std::to_string(id);
      s.code_id = id;
      s.file_name = "submission.py";
      s.submission_time = 1'750'000'000'000'000 + id;
      s.status = "succeeded";
      s.score = 1e-5 * static_cast<double>(id);
      s.passed = true;
      s.mode = "leaderboard";
      s.runner = "B200";
      s.code = std::move(code);
      w.write(s);
    }
    w.commit();
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }
  static std::string dir_;
};
std::string LargeCode::dir_;

constexpr size_t kLimit = 1536 * 1024;  // KB: 1.5 GB of address space

TEST_F(LargeCode, TechniquesFitsUnderTheLimit) {
  const auto r = run_limited(kLimit, "techniques --data " + dir_ + "/data --threads 1 -f csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(testing::lines(r.out).size(), 4u) << r.out;  // the header and three rows
}

TEST_F(LargeCode, ExtractFitsUnderTheLimit) {
  const std::string out = dir_ + "/extract";
  const auto r = run_limited(
      kLimit, "extract --data " + dir_ + "/data -p nvfp4_gemm --all --threads 1 --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(testing::lines(testing::read_file(out + "/manifest.jsonl")).size(), 3u);
}

TEST_F(LargeCode, AuditFitsUnderTheLimit) {
  const auto r = run_limited(kLimit, "audit --data " + dir_ + "/data --threads 1 -f csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(testing::lines(r.out).size(), 4u) << r.out;
}

// As the limit goes down, the first run that fails fails on a code's model (the largest need):
// its error names the row, not just "out of memory". The limits are 32 MB apart from 768 MB down to
// 192 MB; a run that fits under a limit fits under any larger one, so the largest limit that fails
// is found by halving the range (six runs rather than up to nineteen).
TEST_F(LargeCode, RunningOutOfMemoryNamesTheRow) {
  constexpr size_t kLowest = 192 * 1024;
  constexpr size_t kHighest = 768 * 1024;
  constexpr size_t kStep = 32 * 1024;
  const auto attempt = [&](size_t limit) {
    return run_limited(limit, "techniques --data " + dir_ + "/data -u u1 --threads 1 -f csv");
  };
  testing::Result failed = attempt(kLowest);
  ASSERT_NE(failed.exit_code, 0) << "no limit down to 192 MB made it run out of memory";
  size_t fails = kLowest;          // the largest limit seen to fail
  size_t fits = kHighest + kStep;  // the smallest limit known to fit (above the range: assumed)
  while (fits - fails > kStep) {
    const size_t mid = fails + (fits - fails) / kStep / 2 * kStep;
    testing::Result r = attempt(mid);
    if (r.exit_code == 0) {
      fits = mid;
    } else {
      fails = mid;
      failed = std::move(r);
    }
  }
  EXPECT_EQ(failed.exit_code, 1) << failed.err;
  EXPECT_NE(failed.err.find("out of memory reading the code of submission "), std::string::npos)
      << "under " << fails << " KB: " << failed.err;
  EXPECT_NE(failed.err.find("(nvfp4_gemm on B200, "), std::string::npos) << failed.err;
}

}  // namespace
}  // namespace kbdata
