// Loading the scored rows of one problem: kbdata's dataset API against DuckDB running the same
// query, on the NVFP4 file of a `full` synthetic data set in the published layout (one row group,
// no page index) and in the kbdata layout (row groups of 100,000 rows, page index).
//
//   load_bench [--rounds N] [--problem NAME] [PUBLISHED_DIR KBDATA_DIR]
//
// The folders default to build/bench-data/synth-published and build/bench-data/synth-kbdata of the
// source tree (`kbdata synth --scale full --family flat --seed 1 --layout published|kbdata`, which
// `make bench` runs); the file read is nvidia_nvfp4_submissions.parquet in each.
//
// Every measurement runs in its own forked child, so the peak resident set size (wait4's
// ru_maxrss of the child) and the wall time (fork to exit) are those of that task alone:
//   kbdata  dataset::load_file with the filter problem = NAME, scored only, without code (the
//           columns `kbdata submissions` lists), counting the rows and summing the scores;
//   DuckDB  dlopens libduckdb.so (bench/duckdb_c_api.h) and materialises
//           SELECT <the same 13 columns> FROM read_parquet(file)
//           WHERE problem_name = NAME AND score IS NOT NULL
//           into a temporary table, then counts its rows and sums its scores. Default thread
//           count (every core), and once more with SET threads = 1 for reference (kbdata's loader
//           is single-threaded).
// A child that only starts DuckDB and runs SELECT 1 is timed too, to show DuckDB's fixed cost.
// The sides alternate over N rounds (default 3) after one untimed warm-up of each, which brings
// the file into the page cache. Every run's row count and score sum must agree with the others;
// a mismatch is printed and the program exits 1.
//
// Prints per layout each side's median wall time and peak RSS, and the ratios kbdata / DuckDB of
// time (median of the per-round ratios, with their range) and of peak RSS (medians).
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "common/file.h"
#include "dataset/data_dir.h"
#include "dataset/loader.h"
#include "duckdb_c_api.h"
#include "parquet/file_reader.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr const char* kFile = "nvidia_nvfp4_submissions.parquet";

// What a child sends back through its pipe.
struct Answer {
  int64_t rows = 0;
  double score_sum = 0;
  uint64_t row_groups = 0;          // kbdata: row groups of the file
  uint64_t row_groups_skipped = 0;  // kbdata: pruned by statistics or the page index
  uint64_t bytes_read = 0;          // kbdata: bytes read from the file
  char error[512] = {};
};

struct Measurement {
  Answer answer;
  double seconds = 0;
  double peak_mb = 0;
};

// Runs `task` in a forked child and measures it from fork to exit.
Measurement measure(const std::function<Answer()>& task) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
  std::fflush(stdout);
  std::fflush(stderr);
  const auto start = Clock::now();
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::close(fds[0]);
    Answer answer;
    try {
      answer = task();
    } catch (const std::exception& e) {
      std::snprintf(answer.error, sizeof answer.error, "%s", e.what());
    }
    ssize_t n = ::write(fds[1], &answer, sizeof answer);
    // _exit: skip the parent's atexit handlers and DuckDB's static destructors.
    ::_exit(n == static_cast<ssize_t>(sizeof answer) ? 0 : 1);
  }
  ::close(fds[1]);
  Measurement m;
  size_t got = 0;
  auto* bytes = reinterpret_cast<char*>(&m.answer);
  while (got < sizeof m.answer) {
    ssize_t n = ::read(fds[0], bytes + got, sizeof m.answer - got);
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  ::close(fds[0]);
  int status = 0;
  struct rusage usage {};
  if (::wait4(pid, &status, 0, &usage) != pid) throw std::runtime_error("wait4 failed");
  m.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  m.peak_mb = static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
  if (got != sizeof m.answer || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw std::runtime_error("a measured child died (status " + std::to_string(status) + ")");
  }
  if (m.answer.error[0] != '\0') throw std::runtime_error(m.answer.error);
  return m;
}

Answer load_kbdata(const std::string& path, const std::string& problem) {
  // load_file leaves LoadStats::bytes_read to load_dir: count here.
  auto file = std::make_unique<kbdata::CountingFile>(kbdata::LocalFile::open(path));
  kbdata::CountingFile* counter = file.get();
  auto reader = kbdata::parquet::FileReader::open(std::move(file));
  auto family = kbdata::dataset::detect_family(reader->schema());
  if (!family) throw std::runtime_error(path + ": no schema family");
  kbdata::dataset::LoadOptions options;
  options.threads = static_cast<int>(
      std::max(1u, std::thread::hardware_concurrency()));  // as the command's default
  options.filter.problem = problem;
  options.filter.scored_only = true;
  options.with_code = false;
  kbdata::dataset::LoadStats stats;
  Answer answer;
  kbdata::dataset::load_file(
      *reader, *family, options,
      [&](kbdata::dataset::Submission&& s) {
        ++answer.rows;
        answer.score_sum += *s.score;
      },
      stats);
  answer.row_groups = stats.row_groups;
  answer.row_groups_skipped = stats.row_groups_skipped;
  answer.bytes_read = counter->bytes_read();
  return answer;
}

// DuckDB's fixed cost in a fresh process: dlopen, an in-memory database, one trivial query.
Answer start_duckdb() {
  kbdata::bench::DuckDb duckdb(kbdata::bench::duckdb_library(KBDATA_SOURCE_DIR));
  duckdb.run("SELECT 1");
  return Answer{};
}

Answer load_duckdb(const std::string& path, const std::string& problem, bool one_thread) {
  kbdata::bench::DuckDb duckdb(kbdata::bench::duckdb_library(KBDATA_SOURCE_DIR));
  if (one_thread) duckdb.run("SET threads = 1");
  duckdb.run(
      "CREATE TEMP TABLE r AS SELECT submission_id, leaderboard_id, problem_name, user_id, "
      "user_name, code_id, file_name, submission_time, status, score, passed, mode, runner "
      "FROM read_parquet('" +
      path + "') WHERE problem_name = '" + problem + "' AND score IS NOT NULL");
  auto [rows, sum] = duckdb.count_and_sum("SELECT count(*), sum(score) FROM r");
  duckdb.run("DROP TABLE r");
  Answer answer;
  answer.rows = rows;
  answer.score_sum = sum;
  return answer;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 == 1 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// Same rows and the same sum up to the order of additions (DuckDB sums in parallel).
bool same(const Answer& a, const Answer& b) {
  return a.rows == b.rows &&
         std::fabs(a.score_sum - b.score_sum) <= 1e-9 * std::max(1.0, std::fabs(a.score_sum));
}

struct Side {
  const char* name;
  std::function<Answer()> task;
  std::vector<Measurement> runs;
};

}  // namespace

int main(int argc, char** argv) {
  int rounds = 3;
  std::string problem = "nvfp4_gemm";
  std::vector<std::string> dirs;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--rounds" && i + 1 < argc) {
      rounds = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--problem" && i + 1 < argc) {
      problem = argv[++i];
    } else {
      dirs.push_back(arg);
    }
  }
  const std::string data = std::string(KBDATA_SOURCE_DIR) + "/build/bench-data/";
  if (dirs.empty()) dirs = {data + "synth-published", data + "synth-kbdata"};
  if (dirs.size() != 2) {
    std::fprintf(stderr,
                 "usage: load_bench [--rounds N] [--problem NAME] [PUBLISHED_DIR KBDATA_DIR]\n");
    return 2;
  }
  const char* layouts[] = {"published", "kbdata"};
  try {
    std::printf(
        "load_bench: scored rows of %s, %d rounds, alternating, one child process per run\n",
        problem.c_str(), rounds);
    for (int l = 0; l < 2; ++l) {
      const std::string path = dirs[static_cast<size_t>(l)] + "/" + kFile;
      if (!fs::exists(path)) {
        std::fprintf(stderr,
                     "load_bench: %s is missing; run `kbdata synth --scale full --family flat "
                     "--seed 1 --layout %s --out %s` (make bench does)\n",
                     path.c_str(), layouts[l], dirs[static_cast<size_t>(l)].c_str());
        return 1;
      }
      std::vector<Side> sides = {
          {"kbdata", [&] { return load_kbdata(path, problem); }, {}},
          {"DuckDB (default)", [&] { return load_duckdb(path, problem, false); }, {}},
          {"DuckDB 1 thread", [&] { return load_duckdb(path, problem, true); }, {}},
      };
      // Warm-up (page cache), and the reference answer.
      Answer expected;
      for (size_t s = 0; s < sides.size(); ++s) {
        Measurement m = measure(sides[s].task);
        if (s == 0) expected = m.answer;
        if (!same(m.answer, expected)) {
          std::fprintf(stderr,
                       "load_bench: MISMATCH on %s: kbdata %lld rows, score sum %.17g; %s %lld "
                       "rows, score sum %.17g\n",
                       path.c_str(), static_cast<long long>(expected.rows), expected.score_sum,
                       sides[s].name, static_cast<long long>(m.answer.rows), m.answer.score_sum);
          return 1;
        }
      }
      Side startup{"(DuckDB start-up)", start_duckdb, {}};
      measure(startup.task);
      for (int r = 0; r < rounds; ++r) {
        startup.runs.push_back(measure(startup.task));
        for (auto& side : sides) {
          Measurement m = measure(side.task);
          if (!same(m.answer, expected)) {
            std::fprintf(stderr,
                         "load_bench: MISMATCH on %s, round %d: expected %lld rows, score sum "
                         "%.17g; %s %lld rows, score sum %.17g\n",
                         path.c_str(), r + 1, static_cast<long long>(expected.rows),
                         expected.score_sum, side.name, static_cast<long long>(m.answer.rows),
                         m.answer.score_sum);
            return 1;
          }
          side.runs.push_back(m);
        }
      }
      const Answer& kb = sides[0].runs.front().answer;
      std::printf(
          "\n%s layout: %s (%.0f MB), %lld rows, score sum %.6g; kbdata read %.2f MB, "
          "skipped %llu of %llu row groups\n",
          layouts[l], path.c_str(), static_cast<double>(fs::file_size(path)) / 1e6,
          static_cast<long long>(expected.rows), expected.score_sum,
          static_cast<double>(kb.bytes_read) / 1e6,
          static_cast<unsigned long long>(kb.row_groups_skipped),
          static_cast<unsigned long long>(kb.row_groups));
      std::printf("%-17s %10s %12s  %-34s %s\n", "side", "median s", "peak RSS MB",
                  "kbdata/side time (median, range)", "kbdata/side RSS");
      auto times = [](const Side& side) {
        std::vector<double> v;
        for (const auto& m : side.runs) v.push_back(m.seconds);
        return v;
      };
      auto peaks = [](const Side& side) {
        std::vector<double> v;
        for (const auto& m : side.runs) v.push_back(m.peak_mb);
        return v;
      };
      for (const auto& side : sides) {
        std::printf("%-17s %10.3f %12.1f", side.name, median(times(side)), median(peaks(side)));
        if (&side != &sides[0]) {
          std::vector<double> ratios;
          for (int r = 0; r < rounds; ++r) {
            ratios.push_back(sides[0].runs[static_cast<size_t>(r)].seconds /
                             side.runs[static_cast<size_t>(r)].seconds);
          }
          char range[64];
          std::snprintf(range, sizeof range, "%.2f (%.2f..%.2f)", median(ratios),
                        *std::min_element(ratios.begin(), ratios.end()),
                        *std::max_element(ratios.begin(), ratios.end()));
          std::printf("  %-34s %.2f", range, median(peaks(sides[0])) / median(peaks(side)));
        }
        std::printf("\n");
      }
      std::printf("%-17s %10.3f %12.1f  (dlopen, open, SELECT 1: part of each DuckDB time)\n",
                  startup.name, median(times(startup)), median(peaks(startup)));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "load_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
