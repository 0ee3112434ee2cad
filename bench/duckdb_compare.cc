// kbdata against DuckDB, side by side in one run (issue 9): each task a whole process on each side
// (start, read the file, compute, print or write, exit), on the NVFP4 file of a `full` synthetic
// data set, in the published and in the kbdata layout.
//
//   duckdb_compare [--rounds N] [--problem NAME] [--tasks a,b,...] [--layout published|kbdata]
//                  [--tmp DIR] [PUBLISHED_DIR KBDATA_DIR]
//
// --tasks keeps the tasks whose names start with one of the words; --layout one of the layouts.
//
// Tasks (names for --tasks), kbdata's process against bench/duckdb_query's SQL:
//   footer       kbdata inspect FILE --json  |  parquet_schema(FILE), then parquet_metadata(FILE)
//   top          kbdata top -n 10            |  the ranking rules as window SQL (docs/analyses.md)
//   progression  kbdata progression --user U |  the progression rules as window SQL
//   records      kbdata records              |  the record series as window SQL
//   code         bench/code_scan FILE        |  count(code), sum(strlen(code)), bit_xor(hash(code))
//   dedup        kbdata dedup FILE OUT --exact | COPY (... QUALIFY row_number() OVER (PARTITION BY
//                leaderboard_id, user_id, code_id, runner ORDER BY score NULLS LAST,
//                submission_time, submission_id) = 1) TO OUT (FORMAT parquet), snappy both
//   convert      kbdata convert FILE OUT -z zstd | COPY (SELECT * FROM read_parquet(FILE)) TO OUT
//                (FORMAT parquet, COMPRESSION zstd)
// The folders default to build/bench-data/synth-published and build/bench-data/synth-kbdata of the
// source tree (`make bench` makes them). DuckDB uses its default threads (every core); kbdata's
// commands are single-threaded except dedup (one worker per core). The analyses take problem
// `nvfp4_dual_gemm` by default and the user with the most rows on it.
//
// Each measurement is a fork + exec with stdout to a file: wall time from fork to exit, peak RSS
// from wait4's ru_maxrss. After one untimed warm-up of each side (the file enters the page cache;
// its results are the ones checked) the sides alternate for N rounds (default 3). Outputs go to a
// fresh folder under --tmp (default: the build folder, on the same disk as the data) and are
// deleted after each run and at the end. Checks, each a failure (status 1) when it does not hold:
// the analyses print as many rows on both sides (kbdata's CSV has a header line more); the code
// scans agree on the value count and byte sum; the dedup and convert outputs of both sides agree on
// count(*), sum(score) and sum(code_id), read back by DuckDB.
//
// Prints per layout a Markdown table: the medians, the ratio kbdata / DuckDB of time (median of
// the per-round ratios, with their range) and of peak RSS (medians), each against issue 9's
// target, each side's median CPU time (user + system, from wait4: on a loaded machine a process
// waits for a core, so wall time exceeds CPU time) and the load average before and after.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
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
  double cpu_seconds = 0;  // user + system, every thread
  std::string out;         // stdout
};

// Runs argv with stdout to `out_path` (stderr to /dev/null) and measures it; throws when it fails.
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
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  r.cpu_seconds = seconds(usage.ru_utime) + seconds(usage.ru_stime);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string command;
    for (const std::string& a : argv) command += (command.empty() ? "" : " ") + a;
    throw std::runtime_error("failed (status " + std::to_string(status) + "): " + command);
  }
  std::ifstream in(out_path);
  std::stringstream ss;
  ss << in.rdbuf();
  r.out = ss.str();
  return r;
}

size_t count_lines(const std::string& text) {
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out(1);
  for (char c : text) {
    if (c == sep) {
      out.emplace_back();
    } else if (c != '\n' && c != '\r') {
      out.back() += c;
    }
  }
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string sql_text(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
}

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  in >> one >> five >> fifteen;
  return one + " " + five + " " + fifteen;
}

enum class Check { kNone, kRows, kScan, kOutputs };

struct Task {
  std::string name;
  std::vector<std::string> kbdata;  // the whole command line
  std::string sql;
  Check check = Check::kNone;
  std::optional<double> time_target;  // kbdata / DuckDB time at most this
};

struct Paths {
  std::string kbdata_out;  // the file each side writes, for dedup and convert
  std::string duckdb_out;
};

std::vector<Task> tasks(const std::string& path, const std::string& problem,
                        const std::string& user, const Paths& out) {
  const std::string file = "read_parquet(" + sql_text(path) + ")";
  const std::string dir = fs::path(path).parent_path().string();
  const std::string qualifying =
      "score IS NOT NULL AND passed AND coalesce(status, '') <> 'hacked'";
  std::vector<Task> t;
  t.push_back({"footer",
               {KBDATA_BINARY, "inspect", path, "--json"},
               "SELECT * FROM parquet_schema(" + sql_text(path) +
                   "); SELECT * FROM parquet_metadata(" + sql_text(path) + ")",
               Check::kNone,
               std::nullopt});
  t.push_back(
      {"top",
       {KBDATA_BINARY, "top", "--data", dir, "-p", problem, "-n", "10", "-f", "csv"},
       "WITH q AS (SELECT user_id, user_name, score, submission_id, submission_time, runner FROM " +
           file + " WHERE problem_name = " + sql_text(problem) + " AND " + qualifying +
           "), b AS (SELECT *, row_number() OVER (PARTITION BY runner, user_id ORDER BY score, "
           "submission_time, submission_id) AS n FROM q), r AS (SELECT rank() OVER (PARTITION BY "
           "runner ORDER BY score) AS rank, user_id, user_name, score, submission_id, "
           "submission_time, runner FROM b WHERE n = 1) SELECT * FROM r WHERE rank <= 10 ORDER BY "
           "runner, rank, submission_time, submission_id, user_id",
       Check::kRows,
       0.5});
  t.push_back(
      {"progression",
       {KBDATA_BINARY, "progression", "--data", dir, "-p", problem, "--user", user, "-f", "csv"},
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
           "submission_time, submission_id, runner NULLS LAST",
       Check::kRows,
       0.5});
  t.push_back(
      {"records",
       {KBDATA_BINARY, "records", "--data", dir, "-p", problem, "-f", "csv"},
       "WITH q AS (SELECT * FROM " + file + " WHERE problem_name = " + sql_text(problem) + " AND " +
           qualifying +
           "), w AS (SELECT *, min(score) OVER (PARTITION BY runner ORDER BY submission_time, "
           "submission_id, user_id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev FROM "
           "q) SELECT leaderboard_id, problem_name, runner, submission_time, submission_id, "
           "user_id, user_name, score, prev, prev / score FROM w WHERE prev IS NULL OR score < "
           "prev ORDER BY runner NULLS LAST, submission_time, submission_id, user_id",
       Check::kRows,
       std::nullopt});
  t.push_back({"code scan",
               {CODE_SCAN_BINARY, path, "code"},
               "SELECT count(code), sum(strlen(code)), bit_xor(hash(code)) FROM " + file,
               Check::kScan,
               0.6});
  t.push_back({"dedup --exact",
               {KBDATA_BINARY, "dedup", path, out.kbdata_out, "--exact"},
               "COPY (SELECT * FROM " + file +
                   " QUALIFY row_number() OVER (PARTITION BY leaderboard_id, user_id, code_id, "
                   "runner ORDER BY score NULLS LAST, submission_time, submission_id) = 1) TO " +
                   sql_text(out.duckdb_out) + " (FORMAT parquet, COMPRESSION snappy)",
               Check::kOutputs,
               std::nullopt});
  t.push_back({"convert zstd",
               {KBDATA_BINARY, "convert", path, out.kbdata_out, "-z", "zstd"},
               "COPY (SELECT * FROM " + file + ") TO " + sql_text(out.duckdb_out) +
                   " (FORMAT parquet, COMPRESSION zstd)",
               Check::kOutputs,
               1.0});
  return t;
}

// count(*), sum(score), sum(code_id) of a Parquet file, as DuckDB prints them.
std::vector<std::string> summary(const std::string& path, const std::string& out_path) {
  Run r = measure({DUCKDB_QUERY_BINARY,
                   "SELECT count(*), sum(score), sum(code_id) FROM "
                   "read_parquet(" +
                       sql_text(path) + ")"},
                  out_path);
  return split(r.out, ',');
}

bool same_numbers(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] == b[i]) continue;
    const double x = std::strtod(a[i].c_str(), nullptr);
    const double y = std::strtod(b[i].c_str(), nullptr);
    if (std::fabs(x - y) > 1e-9 * std::max(std::fabs(x), std::fabs(y))) return false;
  }
  return true;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

// Throws unless the warm-up runs' results agree (see the top comment). Returns what was checked.
std::string check(const Task& t, const Run& kb, const Run& db, const Paths& paths,
                  const std::string& out_path) {
  switch (t.check) {
    case Check::kNone:
      return "-";
    case Check::kRows:
      if (count_lines(kb.out) != count_lines(db.out) + 1) {
        throw std::runtime_error(t.name + ": kbdata printed " +
                                 std::to_string(count_lines(kb.out) - 1) + " rows, DuckDB " +
                                 std::to_string(count_lines(db.out)));
      }
      return std::to_string(count_lines(db.out)) + " rows";
    case Check::kScan: {
      auto a = split(kb.out, ',');
      auto b = split(db.out, ',');
      if (a.size() < 2 || b.size() < 2 || a[0] != b[0] || a[1] != b[1]) {
        throw std::runtime_error(t.name + ": kbdata " + kb.out + " against DuckDB " + db.out);
      }
      return a[0] + " values, " + a[1] + " bytes";
    }
    case Check::kOutputs: {
      auto a = summary(paths.kbdata_out, out_path);
      auto b = summary(paths.duckdb_out, out_path);
      if (!same_numbers(a, b)) {
        throw std::runtime_error(t.name + ": outputs differ: kbdata " + join(a) + ", DuckDB " +
                                 join(b));
      }
      return a[0] + " rows out";
    }
  }
  return "-";
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 3;
  std::string problem = "nvfp4_dual_gemm";
  std::string tmp_root = KBDATA_BINARY_DIR;
  std::vector<std::string> only;
  std::string only_layout;
  std::vector<std::string> dirs;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--rounds" && i + 1 < argc) {
      rounds = std::atoi(argv[++i]);
    } else if (a == "--problem" && i + 1 < argc) {
      problem = argv[++i];
    } else if (a == "--tasks" && i + 1 < argc) {
      only = split(argv[++i], ',');
    } else if (a == "--layout" && i + 1 < argc) {
      only_layout = argv[++i];
    } else if (a == "--tmp" && i + 1 < argc) {
      tmp_root = argv[++i];
    } else {
      dirs.push_back(a);
    }
  }
  if (dirs.empty()) {
    dirs = {std::string(KBDATA_SOURCE_DIR) + "/build/bench-data/synth-published",
            std::string(KBDATA_SOURCE_DIR) + "/build/bench-data/synth-kbdata"};
  }
  if (rounds < 1 || dirs.size() != 2 ||
      !(only_layout.empty() || only_layout == "published" || only_layout == "kbdata")) {
    std::fprintf(stderr,
                 "usage: duckdb_compare [--rounds N] [--problem NAME] [--tasks a,b,...] "
                 "[--layout published|kbdata] [--tmp DIR] [PUBLISHED_DIR KBDATA_DIR]\n");
    return 2;
  }
  const fs::path tmp = fs::path(tmp_root) / ("duckdb-compare-" + std::to_string(::getpid()));
  const std::string out_path = (tmp / "stdout").string();
  const Paths paths{(tmp / "kbdata.parquet").string(), (tmp / "duckdb.parquet").string()};
  int status = 0;
  try {
    fs::create_directories(tmp);
    const char* layouts[] = {"published", "kbdata"};
    std::printf(
        "duckdb_compare: %d rounds, problem %s, DuckDB with its default threads; load "
        "average %s\n",
        rounds, problem.c_str(), load_average().c_str());
    for (size_t l = 0; l < 2; ++l) {
      if (!only_layout.empty() && only_layout != layouts[l]) continue;
      const std::string path = dirs[l] + "/" + kFile;
      if (!fs::exists(path))
        throw std::runtime_error("missing " + path + " (make bench creates it)");
      // The user with the most rows on the problem: the longest progression.
      std::string user = split(
          measure({DUCKDB_QUERY_BINARY, "SELECT user_id FROM read_parquet(" + sql_text(path) +
                                            ") WHERE problem_name = " + sql_text(problem) +
                                            " GROUP BY user_id ORDER BY count(*) DESC, user_id "
                                            "LIMIT 1"},
                  out_path)
              .out,
          ',')[0];
      std::printf("\n%s layout (%s), progression of user %s\n\n", layouts[l], path.c_str(),
                  user.c_str());
      std::printf(
          "| task | kbdata | DuckDB | time ratio (range) | kbdata peak | DuckDB peak | "
          "peak ratio | target | met | CPU kbdata / DuckDB | checked |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|\n");
      std::fflush(stdout);
      for (const Task& t : tasks(path, problem, user, paths)) {
        if (!only.empty() && std::none_of(only.begin(), only.end(), [&](const std::string& o) {
              return t.name.rfind(o, 0) == 0;
            })) {
          continue;
        }
        const std::vector<std::string> db = {DUCKDB_QUERY_BINARY, t.sql};
        auto clean = [&] {
          fs::remove(paths.kbdata_out);
          fs::remove(paths.duckdb_out);
        };
        Run kb_warm = measure(t.kbdata, out_path);
        Run db_warm = measure(db, out_path);
        const std::string checked = check(t, kb_warm, db_warm, paths, out_path);
        clean();
        std::vector<double> kt, dt, ratio, km, dm, kc, dc;
        for (int r = 0; r < rounds; ++r) {
          Run a = measure(t.kbdata, out_path);
          clean();
          Run b = measure(db, out_path);
          clean();
          kt.push_back(a.seconds);
          dt.push_back(b.seconds);
          ratio.push_back(a.seconds / b.seconds);
          km.push_back(a.peak_mb);
          dm.push_back(b.peak_mb);
          kc.push_back(a.cpu_seconds);
          dc.push_back(b.cpu_seconds);
        }
        const double time_ratio = median(ratio);
        const double peak_ratio = median(km) / median(dm);
        std::string target = "peak ≤ 0.5";
        bool met = peak_ratio <= 0.5;
        if (t.time_target) {
          char buf[48];
          std::snprintf(buf, sizeof buf, "time ≤ %.1f, ", *t.time_target);
          target = buf + target;
          met = met && time_ratio <= *t.time_target;
        }
        std::printf(
            "| %s | %.3f s | %.3f s | **%.2f** (%.2f..%.2f) | %.1f MB | %.1f MB | **%.2f** "
            "| %s | %s | %.2f / %.2f s | %s |\n",
            t.name.c_str(), median(kt), median(dt), time_ratio,
            *std::min_element(ratio.begin(), ratio.end()),
            *std::max_element(ratio.begin(), ratio.end()), median(km), median(dm), peak_ratio,
            target.c_str(), met ? "yes" : "no", median(kc), median(dc), checked.c_str());
        std::fflush(stdout);
      }
    }
    std::printf("\nload average at the end: %s\n", load_average().c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "duckdb_compare: %s\n", e.what());
    status = 1;
  }
  std::error_code ignored;
  fs::remove_all(tmp, ignored);
  return status;
}
