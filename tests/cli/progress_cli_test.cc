// One progress drawer: the libraries (dedup, the Parquet copy, synth) report through
// common/progress.h's callback and the command line draws the line (cli/progress.h), on a
// terminal only (KBDATA_PROGRESS=always stands for one here): never a line in a pipe, the same
// output either way.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "support/run_kbdata.h"

namespace {

namespace fs = std::filesystem;
using kbdata::testing::Result;
using kbdata::testing::run;

class Progress : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kbdata-progress-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    ::unsetenv("KBDATA_PROGRESS");
    fs::remove_all(dir_);
  }
  // The command's stderr with and without a progress line; its stdout the same either way.
  std::pair<std::string, std::string> both(const std::string& args) {
    ::unsetenv("KBDATA_PROGRESS");
    fs::remove_all(dir_ / "out");
    const Result quiet = run(args);
    EXPECT_EQ(quiet.exit_code, 0) << args << ": " << quiet.err;
    ::setenv("KBDATA_PROGRESS", "always", 1);
    fs::remove_all(dir_ / "out");
    const Result shown = run(args);
    ::unsetenv("KBDATA_PROGRESS");
    EXPECT_EQ(shown.exit_code, 0) << args << ": " << shown.err;
    return {quiet.err, shown.err};
  }
  std::string out() const { return (dir_ / "out").string(); }

  fs::path dir_;
};

const std::string kNvfp4 =
    std::string(KBDATA_SOURCE_DIR) + "/data/sample/nvidia_nvfp4_submissions.parquet";

TEST_F(Progress, DedupsStagesReachTheDrawer) {
  const auto [quiet, shown] = both("dedup " + kNvfp4 + " " + out() + " --fuzzy");
  EXPECT_EQ(quiet.find('\r'), std::string::npos) << quiet;
  EXPECT_NE(shown.find("\rkbdata: dedup: reading metadata: "), std::string::npos) << shown;
  EXPECT_NE(shown.find("\rkbdata: dedup: hashing code: "), std::string::npos) << shown;
  EXPECT_NE(shown.find("\rkbdata: dedup: writing: "), std::string::npos) << shown;
  // The drawer erases its line at the end: nothing of it stays on the terminal.
  EXPECT_EQ(shown.substr(shown.rfind('\r')), "\r\x1b[K") << shown;
}

TEST_F(Progress, ConvertsCopyReachesTheDrawer) {
  const auto [quiet, shown] = both("convert " + kNvfp4 + " " + out());
  EXPECT_EQ(quiet.find('\r'), std::string::npos) << quiet;
  EXPECT_NE(shown.find("\rkbdata: convert: "), std::string::npos) << shown;
  EXPECT_NE(shown.find(" rows ("), std::string::npos) << shown;
  EXPECT_EQ(shown.substr(shown.rfind('\r')), "\r\x1b[K") << shown;
}

TEST_F(Progress, SynthDrawsNoneForASmallSet) {
  const auto [quiet, shown] = both("synth --scale small --out " + out());
  EXPECT_EQ(quiet.find('\r'), std::string::npos) << quiet;
  EXPECT_EQ(shown.find('\r'), std::string::npos) << shown;
}

}  // namespace
