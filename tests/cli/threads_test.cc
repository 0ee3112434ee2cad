// Every reading command prints and writes the same bytes whatever the threads: the medium
// synthetic data set (its NVFP4 file has a streamed code column cut into several units) in the
// published layout (one row group, no page index) and in kbdata's, each command run with
// KBDATA_THREADS=1, 2, 3, 5 and 8 (the environment rather than --threads, so that outputs
// recording their command line stay comparable) and compared with the run on one thread;
// --threads N once against KBDATA_THREADS.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "support/run_kbdata.h"

namespace {

namespace fs = std::filesystem;
using kbdata::testing::lines;
using kbdata::testing::read_file;
using kbdata::testing::Result;
using kbdata::testing::run;

fs::path sandbox() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("kbdata-threads-" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

// The medium set in `layout`, made once per test process.
std::string medium(const std::string& layout) {
  static std::map<std::string, std::string> made;
  if (auto it = made.find(layout); it != made.end()) return it->second;
  const std::string dir = (sandbox() / ("medium-" + layout)).string();
  Result r = run("synth --scale medium --seed 3 --family both --layout " + layout + " --out " +
                 dir + " >/dev/null");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  made[layout] = dir;
  return dir;
}

// Every file under `dir` with its contents, by relative path.
std::map<std::string, std::string> tree(const fs::path& dir) {
  std::map<std::string, std::string> out;
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) out[fs::relative(e.path(), dir).string()] = read_file(e.path());
  }
  return out;
}

// What one run produced: its exit code, stdout and the files it wrote.
struct Output {
  int exit_code = 0;
  std::string out;
  std::map<std::string, std::string> files;
  bool operator==(const Output&) const = default;
};

// Runs `args` (with {OUT} replaced by a fresh output folder) on `threads` threads.
Output run_on(const std::string& args, int threads, const std::string& env_or_flag = "env") {
  const fs::path out = sandbox() / "out";
  fs::remove_all(out);
  fs::create_directories(out);
  std::string command = args;
  for (size_t at; (at = command.find("{OUT}")) != std::string::npos;) {
    command.replace(at, 5, out.string());
  }
  if (env_or_flag == "flag") {
    command.insert(command.find(' '), " --threads " + std::to_string(threads));
  }
  // run() puts the binary first: the variable goes through env(1).
  Result r = env_or_flag == "env"
                 ? run("--version >/dev/null; KBDATA_THREADS=" + std::to_string(threads) + " " +
                       KBDATA_BINARY + " " + command)
                 : run(command);
  Output o;
  o.exit_code = r.exit_code;
  // dedup's summary reports its costs: the seconds it took, and how many shingle sets its
  // workers built (each worker caches its own): the only text that may differ.
  for (std::string line : lines(r.out)) {
    if (line.starts_with("time ")) continue;
    if (const size_t at = line.find(" shingle sets)"); at != std::string::npos) {
      line.erase(line.rfind('(', at), at - line.rfind('(', at));
    }
    o.out += line + "\n";
  }
  o.files = tree(out);
  EXPECT_EQ(r.exit_code, 0) << command << ": " << r.err;
  return o;
}

// Field `n` of a CSV line without quotes.
std::string field(const std::string& line, size_t n) {
  size_t begin = 0;
  for (size_t i = 0; i < n; ++i) begin = line.find(',', begin) + 1;
  return line.substr(begin, line.find(',', begin) - begin);
}

class SameWhateverTheThreads : public ::testing::TestWithParam<std::string> {};

TEST_P(SameWhateverTheThreads, EveryReadingCommand) {
  const std::string data = medium(GetParam());
  const std::string nvfp4 = data + "/nvidia_nvfp4_submissions.parquet";
  const std::string legacy = data + "/submissions.parquet";
  const std::string d = " --data " + data;
  // The best user of nvfp4_dual_gemm (CSV: leaderboard_id,problem_name,rank,user_id,user_name,..)
  // and a submission of nvfp4_gemm.
  const std::string user_name =
      field(lines(run("top" + d + " -p nvfp4_dual_gemm -n 1 -f csv").out).at(1), 4);
  const std::string id =
      field(lines(run("submissions" + d + " -p nvfp4_gemm -f csv").out).at(7), 0);
  const std::vector<std::string> commands = {
      "top" + d + " -p nvfp4_dual_gemm -n 25 -f csv",
      "top" + d + " -p amd-fp8-mm -f json",
      "progression" + d + " -p nvfp4_dual_gemm --user " + user_name + " -f csv",
      "records" + d + " -p nvfp4_dual_gemm -f jsonl",
      "fastest" + d + " -f csv",
      "stats" + d + " -f csv",
      "submissions" + d + " -p nvfp4_gemm -f csv",
      "submissions" + d + " -p nvfp4_gemm --with-code -f parquet -o {OUT}/s.parquet",
      "show" + d + " " + id,
      "extract" + d + " -p nvfp4_dual_gemm --top 40 --out {OUT}/kernels",
      "dedup " + nvfp4 + " {OUT}/exact.parquet --exact",
      "dedup " + nvfp4 + " {OUT}/fuzzy.parquet --fuzzy",
      "dedup " + legacy + " {OUT}/legacy.parquet --exact",
      "convert " + nvfp4 + " {OUT}/converted.parquet",
      "cat " + nvfp4 + " --offset 700 --limit 2500 -f csv",
      "cat " + nvfp4 + " --where 'problem_name = nvfp4_gemm' --columns submission_id,score,code",
      "cat " + legacy + " --limit 400",
  };
  for (const std::string& command : commands) {
    const Output one = run_on(command, 1);
    EXPECT_TRUE(!one.out.empty() || !one.files.empty()) << command;
    // An even split, an odd one, a prime count and more threads than the machine's cores: the
    // ways a division of rows, row groups or code units can go wrong.
    for (const int threads : {2, 3, 5, 8}) {
      EXPECT_TRUE(run_on(command, threads) == one) << command << " with " << threads << " threads";
    }
  }
  // --threads N prints what KBDATA_THREADS=N prints.
  EXPECT_EQ(run_on(commands[0], 3, "flag").out, run_on(commands[0], 3).out);
}

INSTANTIATE_TEST_SUITE_P(Layouts, SameWhateverTheThreads, ::testing::Values("published", "kbdata"));

TEST(Threads, BadValuesAreUsageErrors) {
  Result r =
      run("top --data " + std::string(KBDATA_SOURCE_DIR) + "/data/sample -p trimul --threads 0");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  r = run("--version >/dev/null; KBDATA_THREADS=many " + std::string(KBDATA_BINARY) +
          " top --data " + std::string(KBDATA_SOURCE_DIR) + "/data/sample -p trimul");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("KBDATA_THREADS='many' is not a number of threads from 1 to 256"),
            std::string::npos)
      << r.err;
}

// The default is decided once, by the command line, for every command, those without --threads
// too: a bad $KBDATA_THREADS stops synth before it makes its folder.
TEST(Threads, ABadEnvironmentStopsACommandWithoutTheFlagBeforeAnyWork) {
  const fs::path out = sandbox() / "synth-bad-environment";
  const Result r = run("--version >/dev/null; KBDATA_THREADS=0 " + std::string(KBDATA_BINARY) +
                       " synth --scale small --out " + out.string());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find("KBDATA_THREADS='0' is not a number of threads from 1 to 256"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(out));
}

// dedup's threads are --threads, as every command's; --jobs and -j, its older spellings, still
// work, and 0 is no longer "the default" but a usage error.
TEST(Threads, DedupTakesThreadsAndItsOlderSpellings) {
  const std::string in = std::string(KBDATA_SOURCE_DIR) + "/data/sample/trimul_submissions.parquet";
  for (const std::string flag : {"--threads 2", "--jobs 2", "-j 2"}) {
    const fs::path out = sandbox() / "dedup-spellings.parquet";
    fs::remove(out);
    const Result r = run("dedup " + in + " " + out.string() + " --exact " + flag);
    EXPECT_EQ(r.exit_code, 0) << flag << ": " << r.err;
    EXPECT_TRUE(fs::exists(out)) << flag;
  }
  const Result zero = run("dedup " + in + " " + (sandbox() / "dedup-zero.parquet").string() +
                          " --exact --threads 0");
  EXPECT_EQ(zero.exit_code, 2) << zero.err;
  EXPECT_NE(zero.err.find("--threads"), std::string::npos) << zero.err;
}

}  // namespace
