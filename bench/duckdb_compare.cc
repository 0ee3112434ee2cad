// The `kbdata` binary as a user runs it against DuckDB running the simplest SQL a user would write
// for the same answer (issue 18's targets): each task a whole process on each side (start, read
// the file, compute, print or write, exit), alternating in one run, on the NVFP4 file of the
// `full` synthetic set in three layouts.
//
//   duckdb_compare [--rounds N] [--heavy-rounds N] [--problem NAME] [--tasks a,b,...]
//                  [--layouts published,kbdata,duckdb] [--data-root DIR] [--tmp DIR] [--show-sql]
//
// --show-sql prints each task's two command lines (kbdata's, and DuckDB's SQL) and times nothing.
// Layouts, under --data-root (default build/bench-data of the source tree; `make bench` makes
// them):
//   published  synth-published/nvidia_nvfp4_submissions.parquet
//              (`kbdata synth --scale full --family flat --seed 1 --layout published`)
//   kbdata     synth-kbdata/... (`--layout kbdata`)
//   duckdb     duckdb-copy/...: the published file's rows written by DuckDB's own COPY (one row
//              group, DuckDB's page sizes and default codec); made here when absent.
// Each layout's file is hard-linked, with the set's leaderboards.parquet, into a folder of its own
// (compare-LAYOUT/) so that kbdata's `--data` commands read that one file, as DuckDB does.
//
// Tasks (names for --tasks; a word keeps the tasks whose names start with it). kbdata's command
// against bench/duckdb_query's SQL, f = read_parquet(FILE), P = --problem (default nvfp4_gemm),
// U = the user with the most rows on P, q = passed AND score IS NOT NULL AND status <> 'hacked':
//   top          top -p P -n 10 -f csv     | user_id, min(score) WHERE problem P and q, GROUP BY
//                                            user_id ORDER BY 2 LIMIT 10
//   progression  progression -p P --user U | the user's rows with the running best (a window min
//                -f csv                      of the qualifying scores per runner)
//   records      records -p P -f csv       | the rows below every earlier qualifying score
//   fastest      fastest -p P -f csv       | q rows ORDER BY score, submission_time,
//                                            submission_id LIMIT 1
//   stats        stats -f csv              | the stats columns per leaderboard (GROUP BY, FILTER,
//                                            quantile_cont, sum(strlen(code)))
//   extract      extract -p P --all --out D| COPY (the manifest's columns and code of P) TO D
//                                            (FORMAT csv, PARTITION_BY (submission_id)): a file
//                                            per submission
//   dedup        dedup FILE OUT --exact    | COPY (... QUALIFY row_number() OVER (PARTITION BY
//                                            leaderboard_id, user_id, code_id, runner ORDER BY
//                                            score NULLS LAST, submission_time, submission_id) = 1)
//   submissions  submissions -p P          | COPY (the 14 columns WHERE problem P) TO OUT
//                --with-code -f parquet -o OUT
//   convert      convert FILE OUT -z zstd  | COPY (FROM f) TO OUT (FORMAT parquet, COMPRESSION
//   zstd) threads      stats --threads 2 against stats --threads 1 (kbdata on both sides: the
//   scaling)
// extract, dedup, submissions and convert are the heavy tasks: --heavy-rounds (default 1) rounds
// and no warm-up, the first round's results being the checked ones; the others have one untimed
// warm-up each side and --rounds (default 3) rounds. Before a layout's tasks its file is read
// once, untimed, into the page cache.
//
// Each run is a fork + exec with stdout to a file: wall time from fork to exit; peak RSS and CPU
// time (user + system, every thread) from wait4's rusage. Linux counts the pages a forked child
// inherits in its peak, so the parent returns freed heap (malloc_trim) before each fork, and each
// layout's header gives the peak of /bin/true run the same way: the floor of every peak.
//
// Checks (a failure ends the program with status 1): top's users and scores; progression's
// submission ids and running bests; records' submission ids in order; fastest's submission id;
// stats' rows, users and code bytes per leaderboard; extract's file count; the Parquet outputs'
// count(*), sum(score) and sum(code_id), read back by DuckDB; the thread counts' identical stdout.
//
// Prints a Markdown table per layout: each side's median wall time, peak RSS and CPU time, the
// ratio kbdata / DuckDB of time (median of the per-round ratios, with their range) and of peak RSS
// (medians) against issue 18's targets (both ≤ 0.5), and the load average before and after.
#include <fcntl.h>
#include <malloc.h>
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
#include <functional>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr const char* kFile = "nvidia_nvfp4_submissions.parquet";
constexpr double kTarget = 0.5;  // issue 18: kbdata at most half DuckDB's time and memory
constexpr double kScalingTarget = 1.7;

struct Run {
  double seconds = 0;
  double peak_mb = 0;
  double cpu_seconds = 0;  // user + system, every thread
  std::string out;         // stdout
};

std::string command_line(const std::vector<std::string>& argv) {
  std::string command;
  for (const std::string& a : argv) command += (command.empty() ? "" : " ") + a;
  return command;
}

// Runs argv with stdout to `out_path` (stderr to /dev/null) and measures it; throws when it fails.
Run measure(const std::vector<std::string>& argv, const std::string& out_path) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // Linux counts the pages a forked child inherits in its peak RSS: give freed heap back first.
  ::malloc_trim(0);
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
    throw std::runtime_error("failed (status " + std::to_string(status) +
                             "): " + command_line(argv));
  }
  std::ifstream in(out_path);
  std::stringstream ss;
  ss << in.rdbuf();
  r.out = ss.str();
  return r;
}

// RFC 4180 rows (quoted fields may hold commas, quotes doubled, newlines).
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false, any = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = any = true;
    } else if (c == ',') {
      row.push_back(std::move(field));
      field.clear();
      any = true;
    } else if (c == '\n') {
      row.push_back(std::move(field));
      field.clear();
      rows.push_back(std::move(row));
      row.clear();
      any = false;
    } else if (c != '\r') {
      field += c;
      any = true;
    }
  }
  if (any) {
    row.push_back(std::move(field));
    rows.push_back(std::move(row));
  }
  return rows;
}

// A CSV with a header line, addressed by column name.
struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  size_t column(const std::string& name) const {
    auto it = std::find(header.begin(), header.end(), name);
    if (it == header.end()) throw std::runtime_error("kbdata's CSV has no column " + name);
    return static_cast<size_t>(it - header.begin());
  }
};

Table parse_table(const std::string& text) {
  auto rows = parse_csv(text);
  Table t;
  if (rows.empty()) return t;
  t.header = rows.front();
  t.rows.assign(rows.begin() + 1, rows.end());
  return t;
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

bool same_number(const std::string& a, const std::string& b) {
  if (a == b) return true;
  char* end_a = nullptr;
  char* end_b = nullptr;
  const double x = std::strtod(a.c_str(), &end_a);
  const double y = std::strtod(b.c_str(), &end_b);
  if (end_a == a.c_str() || end_b == b.c_str()) return false;
  return std::fabs(x - y) <= 1e-12 * std::max(std::fabs(x), std::fabs(y));
}

void require(bool ok, const std::string& task, const std::string& what) {
  if (!ok) throw std::runtime_error(task + ": results differ: " + what);
}

struct Context {
  std::string duckdb_query = DUCKDB_QUERY_BINARY;
  std::string out_path;    // stdout of every run
  std::string kbdata_out;  // the file or folder kbdata writes
  std::string duckdb_out;  // the file or folder DuckDB writes
};

// count(*), sum(score), sum(code_id) of a Parquet file, as DuckDB prints them.
std::vector<std::string> summary(const Context& ctx, const std::string& path) {
  Run r =
      measure({ctx.duckdb_query, "SELECT count(*), sum(score), sum(code_id) FROM read_parquet(" +
                                     sql_text(path) + ")"},
              ctx.out_path);
  return split(r.out, ',');
}

// Compares the first runs' results of both sides; returns what was checked, throws on a mismatch.
using Check = std::function<std::string(const std::string& name, const Run& kbdata,
                                        const Run& other, const Context& ctx)>;

std::string check_top(const std::string& name, const Run& kb, const Run& db, const Context&) {
  Table k = parse_table(kb.out);
  auto d = parse_csv(db.out);
  const size_t user = k.column("user_id"), score = k.column("score");
  require(k.rows.size() == d.size(), name,
          std::to_string(k.rows.size()) + " rows against " + std::to_string(d.size()));
  for (size_t i = 0; i < d.size(); ++i) {
    require(
        d[i].size() == 2 && k.rows[i][user] == d[i][0] && same_number(k.rows[i][score], d[i][1]),
        name, "row " + std::to_string(i + 1));
  }
  return std::to_string(d.size()) + " users and scores";
}

std::string check_progression(const std::string& name, const Run& kb, const Run& db,
                              const Context&) {
  Table k = parse_table(kb.out);
  auto d = parse_csv(db.out);
  require(!d.empty() && k.rows.size() == d.size(), name,
          std::to_string(k.rows.size()) + " rows against " + std::to_string(d.size()));
  const size_t id = k.column("submission_id"), best = k.column("best");
  for (size_t i = 0; i < d.size(); ++i) {
    require(k.rows[i][id] == d[i][0], name, "submission id of row " + std::to_string(i + 1));
    require(same_number(k.rows[i][best], d[i].back()) ||
                (k.rows[i][best].empty() && d[i].back().empty()),
            name, "running best of row " + std::to_string(i + 1));
  }
  return std::to_string(d.size()) + " rows, ids and running bests";
}

std::string check_records(const std::string& name, const Run& kb, const Run& db, const Context&) {
  Table k = parse_table(kb.out);
  auto d = parse_csv(db.out);
  require(k.rows.size() == d.size(), name,
          std::to_string(k.rows.size()) + " rows against " + std::to_string(d.size()));
  const size_t id = k.column("submission_id");
  for (size_t i = 0; i < d.size(); ++i) {
    require(k.rows[i][id] == d[i][0], name, "submission id of record " + std::to_string(i + 1));
  }
  return std::to_string(d.size()) + " record ids";
}

std::string check_fastest(const std::string& name, const Run& kb, const Run& db, const Context&) {
  Table k = parse_table(kb.out);
  auto d = parse_csv(db.out);
  require(k.rows.size() == 1 && d.size() == 1, name, "one row each");
  require(k.rows[0][k.column("submission_id")] == d[0][0], name, "submission id");
  return "submission " + d[0][0];
}

std::string check_stats(const std::string& name, const Run& kb, const Run& db, const Context&) {
  Table k = parse_table(kb.out);
  auto d = parse_csv(db.out);  // leaderboard_id, rows, users, code_bytes first
  require(k.rows.size() == d.size(), name,
          std::to_string(k.rows.size()) + " leaderboards against " + std::to_string(d.size()));
  const size_t lb = k.column("leaderboard_id"), rows = k.column("rows"), users = k.column("users"),
               bytes = k.column("code_bytes");
  long long total = 0;
  for (size_t i = 0; i < d.size(); ++i) {
    require(k.rows[i][lb] == d[i][0] && k.rows[i][rows] == d[i][1] && k.rows[i][users] == d[i][2] &&
                k.rows[i][bytes] == d[i][3],
            name, "leaderboard " + d[i][0]);
    total += std::atoll(d[i][3].c_str());
  }
  return std::to_string(d.size()) + " leaderboards, " + std::to_string(total) + " code bytes";
}

size_t count_files(const std::string& dir) {
  size_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir)) n += e.is_regular_file() ? 1 : 0;
  return n;
}

std::string check_extract(const std::string& name, const Run&, const Run&, const Context& ctx) {
  const size_t k = count_files(ctx.kbdata_out) - 1;  // manifest.jsonl
  const size_t d = count_files(ctx.duckdb_out);
  require(k == d, name, std::to_string(k) + " files against " + std::to_string(d));
  return std::to_string(k) + " files";
}

std::string check_outputs(const std::string& name, const Run&, const Run&, const Context& ctx) {
  auto a = summary(ctx, ctx.kbdata_out);
  auto b = summary(ctx, ctx.duckdb_out);
  bool same = a.size() == b.size();
  for (size_t i = 0; same && i < a.size(); ++i) same = a[i] == b[i] || same_number(a[i], b[i]);
  if (!same) {
    std::string x, y;
    for (const auto& v : a) x += v + " ";
    for (const auto& v : b) y += v + " ";
    require(false, name, "kbdata " + x + "against DuckDB " + y);
  }
  return a[0] + " rows out";
}

std::string check_same_stdout(const std::string& name, const Run& a, const Run& b, const Context&) {
  require(a.out == b.out, name, "stdout of 2 threads against 1");
  return "same output";
}

struct Task {
  std::string name;
  std::vector<std::string> kbdata;  // the whole command line
  std::vector<std::string> other;   // DuckDB's (or, for a scaling task, kbdata's baseline)
  std::string sql;                  // DuckDB's statement, for the report
  Check check;
  bool heavy = false;    // --heavy-rounds, no warm-up
  bool scaling = false;  // other is kbdata with 1 thread; the figure is other / kbdata
};

std::vector<Task> tasks(const Context& ctx, const std::string& dir, const std::string& path,
                        const std::string& problem, const std::string& user) {
  const std::string k = KBDATA_BINARY;
  const std::string f = "read_parquet(" + sql_text(path) + ")";
  const std::string p = "problem_name = " + sql_text(problem);
  const std::string q = "passed AND score IS NOT NULL AND status <> 'hacked'";
  std::vector<Task> t;
  auto add = [&](std::string name, std::vector<std::string> kb, std::string sql, Check check,
                 bool heavy = false) {
    t.push_back({std::move(name),
                 std::move(kb),
                 {ctx.duckdb_query, sql},
                 sql,
                 std::move(check),
                 heavy,
                 false});
  };
  add("top", {k, "top", "--data", dir, "-p", problem, "-n", "10", "-f", "csv"},
      "SELECT user_id, min(score) FROM " + f + " WHERE " + p + " AND " + q +
          " GROUP BY user_id ORDER BY 2, 1 LIMIT 10",
      check_top);
  add("progression", {k, "progression", "--data", dir, "-p", problem, "--user", user, "-f", "csv"},
      "SELECT submission_id, submission_time, runner, score, min(score) FILTER (WHERE " + q +
          ") OVER (PARTITION BY runner ORDER BY submission_time, submission_id) AS best FROM " + f +
          " WHERE " + p + " AND user_id = " + sql_text(user) +
          " ORDER BY submission_time, submission_id",
      check_progression);
  add("records", {k, "records", "--data", dir, "-p", problem, "-f", "csv"},
      "SELECT submission_id, submission_time, user_id, user_name, score, prev FROM (SELECT *, "
      "min(score) OVER (PARTITION BY runner ORDER BY submission_time, submission_id ROWS BETWEEN "
      "UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev FROM (SELECT submission_id, submission_time, "
      "user_id, user_name, score, runner FROM " +
          f + " WHERE " + p + " AND " + q +
          ")) WHERE prev IS NULL OR score < prev ORDER BY submission_time, submission_id",
      check_records);
  add("fastest", {k, "fastest", "--data", dir, "-p", problem, "-f", "csv"},
      "SELECT submission_id, leaderboard_id, runner, user_id, user_name, score, submission_time "
      "FROM " +
          f + " WHERE " + p + " AND " + q +
          " ORDER BY score, submission_time, submission_id LIMIT 1",
      check_fastest);
  const std::string qualifying = "passed AND isfinite(score) AND score >= 0 AND status <> 'hacked'";
  add("stats", {k, "stats", "--data", dir, "-f", "csv"},
      "SELECT leaderboard_id, count(*), count(DISTINCT user_id), sum(strlen(code)), problem_name, "
      "string_agg(DISTINCT runner, ',' ORDER BY runner), count(DISTINCT submission_id), count(*) "
      "FILTER (WHERE passed), count(score), count(*) FILTER (WHERE " +
          qualifying +
          "), count(*) FILTER (WHERE NOT isfinite(score) OR score < 0), min(score) "
          "FILTER (WHERE " +
          qualifying + "), quantile_cont(score, 0.1) FILTER (WHERE " + qualifying +
          "), quantile_cont(score, 0.5) FILTER (WHERE " + qualifying +
          "), min(submission_time), max(submission_time) FROM " + f +
          " GROUP BY leaderboard_id, problem_name ORDER BY leaderboard_id",
      check_stats);
  add("extract --all",
      {k, "extract", "--data", dir, "-p", problem, "--all", "--out", ctx.kbdata_out},
      "COPY (SELECT submission_id, leaderboard_id, problem_name, user_id, user_name, score, "
      "passed, "
      "runner, submission_time, code_id, file_name, code FROM " +
          f + " WHERE " + p + ") TO " + sql_text(ctx.duckdb_out) +
          " (FORMAT csv, PARTITION_BY (submission_id))",
      check_extract, true);
  add("dedup --exact", {k, "dedup", path, ctx.kbdata_out, "--exact"},
      "COPY (SELECT * FROM " + f +
          " QUALIFY row_number() OVER (PARTITION BY leaderboard_id, user_id, code_id, runner "
          "ORDER BY score NULLS LAST, submission_time, submission_id) = 1) TO " +
          sql_text(ctx.duckdb_out) + " (FORMAT parquet)",
      check_outputs, true);
  add("submissions --with-code -f parquet",
      {k, "submissions", "--data", dir, "-p", problem, "--with-code", "-f", "parquet", "-o",
       ctx.kbdata_out},
      "COPY (SELECT submission_id, leaderboard_id, problem_name, user_id, user_name, code_id, "
      "file_name, submission_time, status, score, passed, mode, runner, code FROM " +
          f + " WHERE " + p + ") TO " + sql_text(ctx.duckdb_out) + " (FORMAT parquet)",
      check_outputs, true);
  add("convert -z zstd", {k, "convert", path, ctx.kbdata_out, "-z", "zstd"},
      "COPY (FROM " + f + ") TO " + sql_text(ctx.duckdb_out) +
          " (FORMAT parquet, COMPRESSION zstd)",
      check_outputs, true);
  t.push_back({"threads: stats, 2 against 1",
               {k, "stats", "--data", dir, "-f", "csv", "--threads", "2"},
               {k, "stats", "--data", dir, "-f", "csv", "--threads", "1"},
               "",
               check_same_stdout,
               false,
               true});
  return t;
}

// Reads the file once so that every measured run finds it in the page cache.
void read_through(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> buffer(1 << 20);
  while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0) {
  }
}

// compare-LAYOUT/ under root: hard links to the layout's NVFP4 file and the set's leaderboards.
std::string data_folder(const fs::path& root, const std::string& layout, const fs::path& file) {
  const fs::path dir = root / ("compare-" + layout);
  fs::create_directories(dir);
  auto link = [&](const fs::path& from, const fs::path& to) {
    if (fs::exists(to) && fs::equivalent(from, to)) return;
    fs::remove(to);
    fs::create_hard_link(from, to);
  };
  link(file, dir / kFile);
  const fs::path leaderboards = root / "synth-published" / "leaderboards.parquet";
  if (fs::exists(leaderboards)) link(leaderboards, dir / "leaderboards.parquet");
  return dir.string();
}

// Moves the outputs aside, into a folder deleted when the program ends. Deleting them here would
// slow down the next run that creates files: an ext4 file system without a journal (this
// machine's) skips the inodes deleted in the last 30 seconds when it allocates one, reading each
// from its table, and extract's 48,120 files after the 96,000 of a round took 20-30 s of system
// time instead of 1.7 s (`perf record`: recently_deleted, find_inode_bit).
void remove_outputs(const Context& ctx) {
  static int moved = 0;
  const fs::path aside = fs::path(ctx.out_path).parent_path() / "done";
  std::error_code ignored;
  fs::create_directories(aside, ignored);
  for (const std::string& out : {ctx.kbdata_out, ctx.duckdb_out}) {
    if (!fs::exists(out)) continue;
    std::error_code error;
    fs::rename(out, aside / std::to_string(moved++), error);
    if (error) fs::remove_all(out, ignored);
  }
}

std::string fmt(const char* format, double a) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, a);
  return buf;
}

struct Verdict {
  std::string layout, task;
  bool met;
  std::string figure;
};

}  // namespace

int main(int argc, char** argv) {
  int rounds = 3, heavy_rounds = 1;
  std::string problem = "nvfp4_gemm";
  fs::path root = fs::path(KBDATA_SOURCE_DIR) / "build" / "bench-data";
  std::string tmp_root = KBDATA_BINARY_DIR;
  std::vector<std::string> only;
  std::vector<std::string> layouts = {"published", "kbdata", "duckdb"};
  bool usage = false, show_sql = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--rounds" && i + 1 < argc) {
      rounds = std::atoi(argv[++i]);
    } else if (a == "--heavy-rounds" && i + 1 < argc) {
      heavy_rounds = std::atoi(argv[++i]);
    } else if (a == "--problem" && i + 1 < argc) {
      problem = argv[++i];
    } else if (a == "--tasks" && i + 1 < argc) {
      only = split(argv[++i], ',');
    } else if (a == "--layouts" && i + 1 < argc) {
      layouts = split(argv[++i], ',');
    } else if (a == "--data-root" && i + 1 < argc) {
      root = argv[++i];
    } else if (a == "--show-sql") {
      show_sql = true;
    } else if (a == "--tmp" && i + 1 < argc) {
      tmp_root = argv[++i];
    } else {
      usage = true;
    }
  }
  const std::map<std::string, std::string> sources = {
      {"published", "synth-published"}, {"kbdata", "synth-kbdata"}, {"duckdb", "duckdb-copy"}};
  for (const std::string& l : layouts) usage = usage || !sources.count(l);
  if (usage || rounds < 1 || heavy_rounds < 1) {
    std::fprintf(stderr,
                 "usage: duckdb_compare [--rounds N] [--heavy-rounds N] [--problem NAME] "
                 "[--tasks a,b,...] [--layouts published,kbdata,duckdb] [--data-root DIR] "
                 "[--tmp DIR] [--show-sql]\n");
    return 2;
  }
  const fs::path tmp = fs::path(tmp_root) / ("duckdb-compare-" + std::to_string(::getpid()));
  Context ctx;
  ctx.out_path = (tmp / "stdout").string();
  int status = 0;
  std::vector<Verdict> verdicts;
  try {
    fs::create_directories(tmp);
    std::printf(
        "duckdb_compare: problem %s, %d rounds (heavy tasks %d), DuckDB with its default "
        "threads, kbdata with its default threads; load average %s\n",
        problem.c_str(), rounds, heavy_rounds, load_average().c_str());
    {  // DuckDB's fixed cost, part of every DuckDB figure: start, open a database, SELECT 1, exit.
      std::vector<double> wall, peak;
      for (int r = 0; r < 5; ++r) {
        const Run run = measure({ctx.duckdb_query, "SELECT 1"}, ctx.out_path);
        wall.push_back(run.seconds);
        peak.push_back(run.peak_mb);
      }
      std::printf(
          "DuckDB's start-up (duckdb_query 'SELECT 1', median of 5): %.3f s, %.1f MB peak\n",
          median(wall), median(peak));
    }
    for (const std::string& layout : layouts) {
      const fs::path file = root / sources.at(layout) / kFile;
      if (layout == "duckdb" && !fs::exists(file)) {
        const fs::path published = root / sources.at("published") / kFile;
        fs::create_directories(file.parent_path());
        std::printf("\nwriting %s with DuckDB's COPY (about a minute)\n", file.c_str());
        std::fflush(stdout);
        measure({ctx.duckdb_query, "COPY (FROM read_parquet(" + sql_text(published.string()) +
                                       ")) TO " + sql_text((file.string() + ".tmp")) +
                                       " (FORMAT parquet, ROW_GROUP_SIZE 1000000)"},
                ctx.out_path);
        fs::rename(file.string() + ".tmp", file);
      }
      if (!fs::exists(file))
        throw std::runtime_error("missing " + file.string() + " (make bench makes it)");
      const std::string dir = data_folder(root, layout, file);
      const std::string path = (fs::path(dir) / kFile).string();
      // The user with the most rows on the problem: the longest progression.
      const std::string user =
          split(measure({ctx.duckdb_query, "SELECT user_id FROM read_parquet(" + sql_text(path) +
                                               ") WHERE problem_name = " + sql_text(problem) +
                                               " GROUP BY user_id ORDER BY count(*) DESC, user_id "
                                               "LIMIT 1"},
                        ctx.out_path)
                    .out,
                ',')[0];
      if (!show_sql) read_through(path);
      const double floor_mb = measure({"/bin/true"}, ctx.out_path).peak_mb;
      std::printf(
          "\n%s layout (%s, %.2f GB), progression of user %s; load average %s; /bin/true run as "
          "the tasks are peaks at %.1f MB\n\n",
          layout.c_str(), fs::canonical(file).c_str(),
          static_cast<double>(fs::file_size(file)) / 1e9, user.c_str(), load_average().c_str(),
          floor_mb);
      if (!show_sql)
        std::printf(
            "| task | kbdata wall | DuckDB wall | time ratio (range) | kbdata peak | DuckDB peak | "
            "peak ratio | kbdata CPU | DuckDB CPU | rounds | met | checked |\n"
            "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
      std::fflush(stdout);
      ctx.kbdata_out = (tmp / "kbdata.out").string();
      ctx.duckdb_out = (tmp / "duckdb.out").string();
      std::vector<std::string> scaling_lines;
      for (const Task& t : tasks(ctx, dir, path, problem, user)) {
        if (!only.empty() && std::none_of(only.begin(), only.end(), [&](const std::string& o) {
              return t.name.rfind(o, 0) == 0;
            })) {
          continue;
        }
        if (show_sql) {
          std::printf("- %s\n  - `%s`\n  - `%s`\n", t.name.c_str(), command_line(t.kbdata).c_str(),
                      t.scaling ? command_line(t.other).c_str() : t.sql.c_str());
          continue;
        }
        remove_outputs(ctx);
        std::string checked;
        if (!t.heavy) {
          Run a = measure(t.kbdata, ctx.out_path);
          Run b = measure(t.other, ctx.out_path);
          checked = t.check(t.name, a, b, ctx);
          remove_outputs(ctx);
        }
        const int n = t.heavy ? heavy_rounds : rounds;
        std::vector<double> kt, dt, ratio, km, dm, kc, dc;
        for (int r = 0; r < n; ++r) {
          Run a = measure(t.kbdata, ctx.out_path);
          Run b = measure(t.other, ctx.out_path);
          if (checked.empty()) checked = t.check(t.name, a, b, ctx);
          remove_outputs(ctx);
          kt.push_back(a.seconds);
          dt.push_back(b.seconds);
          ratio.push_back(t.scaling ? b.seconds / a.seconds : a.seconds / b.seconds);
          km.push_back(a.peak_mb);
          dm.push_back(b.peak_mb);
          kc.push_back(a.cpu_seconds);
          dc.push_back(b.cpu_seconds);
        }
        const double time_ratio = median(ratio);
        const double lo = *std::min_element(ratio.begin(), ratio.end());
        const double hi = *std::max_element(ratio.begin(), ratio.end());
        if (t.scaling) {
          const bool met = time_ratio >= kScalingTarget;
          char line[512];
          std::snprintf(line, sizeof line,
                        "| %s | 2 threads %.3f s, %.1f MB, CPU %.2f s | 1 thread %.3f s, %.1f MB, "
                        "CPU %.2f s | speed-up **%.2f** (%.2f..%.2f) | target ≥ %.1f | %s | %s |",
                        t.name.c_str(), median(kt), median(km), median(kc), median(dt), median(dm),
                        median(dc), time_ratio, lo, hi, kScalingTarget, met ? "yes" : "no",
                        checked.c_str());
          scaling_lines.push_back(line);
          verdicts.push_back({layout, "stats scaling", met, fmt("%.2f", time_ratio)});
          continue;
        }
        const double peak_ratio = median(km) / median(dm);
        const bool met = time_ratio <= kTarget && peak_ratio <= kTarget;
        std::printf(
            "| %s | %.3f s | %.3f s | **%.2f** (%.2f..%.2f) | %.1f MB | %.1f MB | **%.2f** | "
            "%.2f s | %.2f s | %d | %s | %s |\n",
            t.name.c_str(), median(kt), median(dt), time_ratio, lo, hi, median(km), median(dm),
            peak_ratio, median(kc), median(dc), n,
            met ? "yes"
                : (time_ratio > kTarget && peak_ratio > kTarget ? "no (both)"
                   : time_ratio > kTarget                       ? "no (time)"
                                                                : "no (memory)"),
            checked.c_str());
        std::fflush(stdout);
        verdicts.push_back(
            {layout, t.name, met, fmt("%.2f", time_ratio) + " / " + fmt("%.2f", peak_ratio)});
      }
      for (const std::string& line : scaling_lines) {
        std::printf(
            "\n| scaling | kbdata | kbdata | figure | target | met | checked |\n"
            "|---|---|---|---|---|---|---|\n%s\n",
            line.c_str());
      }
      std::printf("\nload average after the %s layout: %s\n", layout.c_str(),
                  load_average().c_str());
      std::fflush(stdout);
    }
    size_t met = 0;
    for (const Verdict& v : verdicts) met += v.met ? 1 : 0;
    std::printf("\ntargets met: %zu of %zu; not met:", met, verdicts.size());
    for (const Verdict& v : verdicts) {
      if (!v.met) std::printf(" %s/%s (%s)", v.layout.c_str(), v.task.c_str(), v.figure.c_str());
    }
    rusage self{};
    ::getrusage(RUSAGE_SELF, &self);
    const Run floor = measure({"/bin/true"}, ctx.out_path);
    std::printf(
        "\nthis program's own peak RSS: %.1f MB; /bin/true run as the tasks are: %.1f MB peak (the "
        "floor of every peak above)\n",
        self.ru_maxrss / 1024.0, floor.peak_mb);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "duckdb_compare: %s\n", e.what());
    status = 1;
  }
  std::error_code ignored;
  fs::remove_all(tmp, ignored);
  return status;
}
