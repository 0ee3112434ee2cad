// The analyses as users run them: `kbdata top`, `progression` and `records` against the same rules
// in DuckDB SQL, each a whole process (start, read the file, compute, print CSV, exit), on the
// NVFP4 file of a `full` synthetic data set, in the published and in the kbdata layout.
//
//   analysis_bench [--rounds N] [--problem NAME] [PUBLISHED_DIR KBDATA_DIR]
//
// The folders default to build/bench-data/synth-published and build/bench-data/synth-kbdata of the
// source tree (`make bench` makes them with `kbdata synth --scale full --family flat --seed 1`).
// DuckDB runs through bench/duckdb_query (libduckdb.so from the npm peers, default threads: every
// core) over read_parquet of nvidia_nvfp4_submissions.parquet; kbdata reads the folder with --data
// (its registry sends the problem to the same file). The SQL is the rules of docs/analyses.md,
// the same SQL the oracle tests (tests/analysis/analysis_oracle_test.cc) check kbdata against.
//
// Each measurement is a fork + exec with stdout to a file: wall time from fork to exit, peak RSS
// from wait4's ru_maxrss. After one untimed warm-up of each side (the file enters the page cache)
// the sides alternate for N rounds (default 5). Both sides' row counts must agree (kbdata's CSV
// has a header line more); a mismatch or a failed run ends the program with status 1.
// Prints per layout and task the medians, the ratio kbdata / DuckDB of time (median of the
// per-round ratios, with their range) and of peak RSS (medians).
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr const char* kFile = "nvidia_nvfp4_submissions.parquet";

struct Run {
  double seconds = 0;
  double peak_mb = 0;
  size_t lines = 0;
};

// Runs argv with stdout to `out_path` (stderr to /dev/null) and measures it.
Run measure(const std::vector<std::string>& argv, const std::string& out_path) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const auto start = Clock::now();
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int null = ::open("/dev/null", O_WRONLY);
    if (out < 0 || null < 0) ::_exit(127);
    ::dup2(out, 1);
    ::dup2(null, 2);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  int status = 0;
  rusage usage{};
  if (::wait4(pid, &status, 0, &usage) != pid) throw std::runtime_error("wait4 failed");
  Run r;
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  r.peak_mb = static_cast<double>(usage.ru_maxrss) / 1024.0;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw std::runtime_error("failed (status " + std::to_string(status) + "): " + argv[0] + " " +
                             (argv.size() > 1 ? argv[1] : ""));
  }
  std::ifstream in(out_path);
  std::string line;
  while (std::getline(in, line)) ++r.lines;
  return r;
}

std::string capture(const std::vector<std::string>& argv, const std::string& out_path) {
  (void)measure(argv, out_path);
  std::ifstream in(out_path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct Task {
  std::string name;
  std::vector<std::string> kbdata;  // arguments after the binary
  std::string sql;
};

std::string sql_text(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
}

std::vector<Task> tasks(const std::string& dir, const std::string& problem,
                        const std::string& user) {
  const std::string file = "read_parquet(" + sql_text(dir + "/" + kFile) + ")";
  const std::string qualifying = "score IS NOT NULL AND passed AND coalesce(status, '') <> 'hacked'";
  std::vector<Task> out;
  out.push_back(
      {"top -n 10",
       {"top", "--data", dir, "-p", problem, "-n", "10", "-f", "csv"},
       "WITH q AS (SELECT user_id, user_name, score, submission_id, submission_time, runner FROM " +
           file + " WHERE problem_name = " + sql_text(problem) + " AND " + qualifying +
           "), b AS (SELECT *, row_number() OVER (PARTITION BY runner, user_id ORDER BY score, "
           "submission_time, submission_id) AS n FROM q), r AS (SELECT rank() OVER (PARTITION BY "
           "runner ORDER BY score) AS rank, user_id, user_name, score, submission_id, "
           "submission_time, runner FROM b WHERE n = 1) SELECT * FROM r WHERE rank <= 10 ORDER BY "
           "runner, rank, submission_time, submission_id, user_id"});
  out.push_back(
      {"progression",
       {"progression", "--data", dir, "-p", problem, "--user", user, "-f", "csv"},
       "WITH o AS (SELECT *, coalesce(" + qualifying + ", false) AS q FROM " + file +
           " WHERE problem_name = " + sql_text(problem) + " AND user_id = " + sql_text(user) +
           "), w AS (SELECT *, min(CASE WHEN q THEN score END) OVER (PARTITION BY runner ORDER BY "
           "submission_time, submission_id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS "
           "prev, min(CASE WHEN q THEN score END) OVER (PARTITION BY runner ORDER BY "
           "submission_time, submission_id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS "
           "best, first_value(CASE WHEN q THEN score END IGNORE NULLS) OVER (PARTITION BY runner "
           "ORDER BY submission_time, submission_id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT "
           "ROW) AS first FROM o) SELECT leaderboard_id, problem_name, user_id, user_name, "
           "submission_id, submission_time, runner, status, passed, score, q, best, q AND (prev IS "
           "NULL OR score < prev), CASE WHEN q AND score < prev THEN prev / score END, CASE WHEN q "
           "AND (prev IS NULL OR score < prev) THEN first / score END FROM w ORDER BY "
           "submission_time, submission_id, runner NULLS LAST"});
  out.push_back(
      {"records",
       {"records", "--data", dir, "-p", problem, "-f", "csv"},
       "WITH q AS (SELECT * FROM " + file + " WHERE problem_name = " + sql_text(problem) + " AND " +
           qualifying +
           "), w AS (SELECT *, min(score) OVER (PARTITION BY runner ORDER BY submission_time, "
           "submission_id, user_id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev FROM "
           "q) SELECT leaderboard_id, problem_name, runner, submission_time, submission_id, "
           "user_id, user_name, score, prev, prev / score FROM w WHERE prev IS NULL OR score < "
           "prev ORDER BY runner NULLS LAST, submission_time, submission_id, user_id"});
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 5;
  std::string problem = "nvfp4_dual_gemm";
  std::vector<std::string> dirs;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--rounds" && i + 1 < argc) {
      rounds = std::atoi(argv[++i]);
    } else if (a == "--problem" && i + 1 < argc) {
      problem = argv[++i];
    } else {
      dirs.push_back(a);
    }
  }
  if (dirs.empty()) {
    dirs = {std::string(KBDATA_SOURCE_DIR) + "/build/bench-data/synth-published",
            std::string(KBDATA_SOURCE_DIR) + "/build/bench-data/synth-kbdata"};
  }
  if (rounds < 1 || dirs.size() != 2) {
    std::fprintf(stderr, "usage: analysis_bench [--rounds N] [--problem NAME] [PUBLISHED_DIR KBDATA_DIR]\n");
    return 2;
  }
  const std::string out_path =
      (fs::temp_directory_path() / ("analysis-bench-" + std::to_string(::getpid()) + ".out")).string();
  try {
    const char* layouts[] = {"published", "kbdata"};
    std::printf("analysis_bench: %s, %d rounds, DuckDB with its default threads (every core)\n",
                problem.c_str(), rounds);
    for (size_t l = 0; l < 2; ++l) {
      const std::string& dir = dirs[l];
      if (!fs::exists(dir + "/" + kFile)) {
        throw std::runtime_error("missing " + dir + "/" + kFile + " (make bench creates it)");
      }
      // The user with the most rows on the problem: the longest progression.
      std::string user = capture(
          {DUCKDB_QUERY_BINARY,
           "SELECT user_id FROM read_parquet(" + sql_text(dir + "/" + kFile) +
               ") WHERE problem_name = " + sql_text(problem) +
               " GROUP BY user_id ORDER BY count(*) DESC, user_id LIMIT 1"},
          out_path);
      while (!user.empty() && (user.back() == '\n' || user.back() == '\r')) user.pop_back();
      std::printf("\n%s layout (%s), progression of user %s\n", layouts[l], dir.c_str(),
                  user.c_str());
      std::printf("%-12s %10s %10s %18s %11s %11s %8s %6s\n", "task", "kbdata s", "DuckDB s",
                  "time ratio", "kbdata MB", "DuckDB MB", "RSS", "rows");
      for (const Task& t : tasks(dir, problem, user)) {
        std::vector<std::string> kb = {KBDATA_BINARY};
        kb.insert(kb.end(), t.kbdata.begin(), t.kbdata.end());
        const std::vector<std::string> db = {DUCKDB_QUERY_BINARY, t.sql};
        (void)measure(kb, out_path);  // warm-up
        (void)measure(db, out_path);
        std::vector<double> kt, dt, ratio, km, dm;
        size_t rows = 0;
        for (int r = 0; r < rounds; ++r) {
          Run a = measure(kb, out_path);
          Run b = measure(db, out_path);
          if (a.lines != b.lines + 1) {
            throw std::runtime_error(t.name + ": kbdata printed " + std::to_string(a.lines - 1) +
                                     " rows, DuckDB " + std::to_string(b.lines));
          }
          rows = b.lines;
          kt.push_back(a.seconds);
          dt.push_back(b.seconds);
          ratio.push_back(a.seconds / b.seconds);
          km.push_back(a.peak_mb);
          dm.push_back(b.peak_mb);
        }
        char range[64];
        std::snprintf(range, sizeof range, "%.2f (%.2f..%.2f)", median(ratio),
                      *std::min_element(ratio.begin(), ratio.end()),
                      *std::max_element(ratio.begin(), ratio.end()));
        std::printf("%-12s %10.3f %10.3f %18s %11.1f %11.1f %8.2f %6zu\n", t.name.c_str(),
                    median(kt), median(dt), range, median(km), median(dm),
                    median(km) / median(dm), rows);
        std::fflush(stdout);
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "analysis_bench: %s\n", e.what());
    std::filesystem::remove(out_path);
    return 1;
  }
  std::filesystem::remove(out_path);
  return 0;
}
