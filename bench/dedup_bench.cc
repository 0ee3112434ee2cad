// Fuzzy dedup of the `full` synthetic NVFP4 file (about 200,000 kernels): time, peak memory, and
// precision and recall against brute-force exact Jaccard on a sample of (leaderboard, user) groups.
//
//   dedup_bench [--threads N] [--groups G] [FILE]
//
// FILE defaults to build/bench-data/synth-kbdata/nvidia_nvfp4_submissions.parquet of the source
// tree (`kbdata synth --scale full --family flat --seed 1 --layout kbdata`, which `make bench`
// runs). Steps:
//   1. a forked child runs dedup::run_dedup(FILE, OUT, --fuzzy --emit-all) exactly as
//      `kbdata dedup FILE OUT --fuzzy --emit-all` does; its wall time (fork to exit) and peak RSS
//      (wait4's ru_maxrss) are the figures reported, with its summary;
//   2. G groups (default 40) of 2 to 400 rows are drawn at random (fixed seed) from the file's
//      (leaderboard_id, user_id) groups; one pass reads their code;
//   3. per group, every pair's exact Jaccard (5-byte shingles) gives the true clusters (connected
//      components at >= 0.8); the output's cluster_id gives the predicted ones; pairwise precision
//      and recall are summed over the sample.
// --emit-all writes every row (the default writes only kept rows): a little more output work than
// the plain command, so the time is an upper bound for it.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "dataset/loader.h"
#include "dedup/dedup.h"
#include "parquet/file_reader.h"
#include "similarity/shingles.h"

namespace {

namespace fs = std::filesystem;
using kbdata::dataset::Submission;

struct ChildSummary {
  kbdata::dedup::DedupSummary summary;
  bool ok = false;
};

// The output's cluster_id column, in row order.
std::vector<int64_t> read_cluster_ids(const std::string& path) {
  auto reader = kbdata::parquet::FileReader::open(path);
  const int leaf = *reader->schema().find_leaf("cluster_id");
  std::vector<int64_t> out;
  for (int g = 0; g < reader->num_row_groups(); ++g) {
    auto column = reader->column(g, leaf);
    kbdata::parquet::ColumnBatch batch;
    batch.values = kbdata::parquet::ValueBuffer::for_type(kbdata::parquet::PhysicalType::INT64, 0);
    const int64_t rows = reader->metadata().row_groups[static_cast<size_t>(g)].num_rows;
    for (int64_t done = 0; done < rows;) {
      batch.clear();
      const size_t want = static_cast<size_t>(std::min<int64_t>(65536, rows - done));
      const size_t got = column->read_batch(want, batch);
      for (size_t i = 0; i < got; ++i) out.push_back(batch.values.get<int64_t>(i));
      done += static_cast<int64_t>(got);
      if (got == 0) break;
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  size_t sample_groups = 40;
  std::string file = std::string(KBDATA_SOURCE_DIR) +
                     "/build/bench-data/synth-kbdata/nvidia_nvfp4_submissions.parquet";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if ((a == "--threads" || a == "--jobs") && i + 1 < argc) {
      jobs = std::atoi(argv[++i]);
    } else if (a == "--groups" && i + 1 < argc) {
      sample_groups = static_cast<size_t>(std::atoi(argv[++i]));
    } else {
      file = a;
    }
  }
  if (!fs::exists(file)) {
    std::fprintf(stderr,
                 "dedup_bench: %s is missing; make it with kbdata synth --scale full --family "
                 "flat --seed 1 --layout kbdata --out DIR\n",
                 file.c_str());
    return 1;
  }
  const std::string out =
      (fs::temp_directory_path() / ("dedup-bench-" + std::to_string(::getpid()) + ".parquet"))
          .string();

  // 1. The timed run, in a child.
  int pipe_fd[2];
  if (::pipe(pipe_fd) != 0) return 1;
  const auto start = std::chrono::steady_clock::now();
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(pipe_fd[0]);
    ChildSummary result;
    try {
      kbdata::dedup::DedupOptions o;
      o.input = file;
      o.output = out;
      o.mode = kbdata::dedup::Mode::FUZZY;
      o.emit_all = true;
      o.threads = jobs;
      o.command_line = "dedup_bench";
      result.summary = kbdata::dedup::run_dedup(o, {});
      result.ok = true;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "dedup_bench: %s\n", e.what());
    }
    if (::write(pipe_fd[1], &result, sizeof result) != sizeof result) ::_exit(2);
    ::_exit(result.ok ? 0 : 1);
  }
  ::close(pipe_fd[1]);
  ChildSummary result;
  const ssize_t got = ::read(pipe_fd[0], &result, sizeof result);
  int status = 0;
  struct rusage usage {};
  ::wait4(child, &status, 0, &usage);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (got != sizeof result || !result.ok) return 1;
  const auto& s = result.summary;
  std::printf("file: %s\n", file.c_str());
  std::printf(
      "fuzzy dedup (--emit-all, threads %d): %.1f s wall, %.1f s user + %.1f s system CPU, "
      "peak RSS %.0f MB\n",
      jobs, seconds, static_cast<double>(usage.ru_utime.tv_sec) + usage.ru_utime.tv_usec / 1e6,
      static_cast<double>(usage.ru_stime.tv_sec) + usage.ru_stime.tv_usec / 1e6,
      static_cast<double>(usage.ru_maxrss) / 1024.0);
  std::printf("  passes: metadata %.1f s, hashing %.1f s, clustering %.1f s, writing %.1f s\n",
              s.metadata_seconds, s.hash_seconds, s.cluster_seconds, s.write_seconds);
  std::printf(
      "  rows in %llu, exact duplicates %llu, near-duplicate clusters %llu, rows out %llu\n",
      static_cast<unsigned long long>(s.rows_in),
      static_cast<unsigned long long>(s.exact_duplicates),
      static_cast<unsigned long long>(s.near_duplicate_clusters),
      static_cast<unsigned long long>(s.rows_out));
  std::printf("  LSH %d bands x %d rows; %llu candidate pairs, %llu verified, %llu joined\n",
              s.lsh.bands, s.lsh.rows, static_cast<unsigned long long>(s.candidate_pairs),
              static_cast<unsigned long long>(s.verified_pairs),
              static_cast<unsigned long long>(s.joined_pairs));

  // 2. The sample.
  const std::vector<int64_t> cluster = read_cluster_ids(out);
  fs::remove(out);
  auto reader = kbdata::parquet::FileReader::open(file);
  std::vector<Submission> meta;
  kbdata::dataset::LoadStats stats;
  kbdata::dataset::load_file(
      *reader, kbdata::dataset::SchemaFamily::FLAT, {},
      [&](Submission&& x) { meta.push_back(std::move(x)); }, stats);
  if (meta.size() != cluster.size()) {
    std::fprintf(stderr, "dedup_bench: %zu rows in, %zu cluster ids out\n", meta.size(),
                 cluster.size());
    return 1;
  }
  std::map<std::pair<int64_t, std::string>, std::vector<size_t>> groups;
  for (size_t i = 0; i < meta.size(); ++i)
    groups[{meta[i].leaderboard_id, meta[i].user_id}].push_back(i);
  std::vector<const std::vector<size_t>*> eligible;
  for (const auto& [key, rows] : groups) {
    if (rows.size() >= 2 && rows.size() <= 400) eligible.push_back(&rows);
  }
  std::mt19937_64 rng(20261129);
  std::shuffle(eligible.begin(), eligible.end(), rng);
  if (eligible.size() > sample_groups) eligible.resize(sample_groups);
  std::vector<int> wanted(meta.size(), 0);
  size_t sample_rows = 0;
  for (const auto* rows : eligible) {
    for (size_t i : *rows) wanted[i] = 1;
    sample_rows += rows->size();
  }
  std::vector<std::vector<uint64_t>> sets(meta.size());
  kbdata::dataset::LoadOptions with_code;
  with_code.with_code = true;
  size_t index = 0;
  kbdata::dataset::load_file(
      *reader, kbdata::dataset::SchemaFamily::FLAT, with_code,
      [&](Submission&& x) {
        if (wanted[index]) sets[index] = kbdata::similarity::shingle_set(x.code.value_or(""), 5);
        ++index;
      },
      stats);

  // 3. Brute force.
  uint64_t truth_pairs = 0;
  uint64_t predicted_pairs = 0;
  uint64_t both = 0;
  for (const auto* rows_ptr : eligible) {
    const std::vector<size_t>& rows = *rows_ptr;
    std::vector<size_t> parent(rows.size());
    for (size_t i = 0; i < parent.size(); ++i) parent[i] = i;
    auto find = [&](size_t x) {
      while (parent[x] != x) x = parent[x] = parent[parent[x]];
      return x;
    };
    for (size_t a = 0; a < rows.size(); ++a) {
      for (size_t b = a + 1; b < rows.size(); ++b) {
        const bool same_code = meta[rows[a]].code_id == meta[rows[b]].code_id;
        if (same_code || kbdata::similarity::jaccard(sets[rows[a]], sets[rows[b]]) >= 0.8) {
          parent[find(a)] = find(b);
        }
      }
    }
    for (size_t a = 0; a < rows.size(); ++a) {
      for (size_t b = a + 1; b < rows.size(); ++b) {
        const bool t = find(a) == find(b);
        const bool p = cluster[rows[a]] == cluster[rows[b]];
        truth_pairs += t;
        predicted_pairs += p;
        both += t && p;
      }
    }
  }
  const double precision = predicted_pairs ? static_cast<double>(both) / predicted_pairs : 1.0;
  const double recall = truth_pairs ? static_cast<double>(both) / truth_pairs : 1.0;
  std::printf("sample: %zu (leaderboard, user) groups, %zu rows, %llu true same-cluster pairs\n",
              eligible.size(), sample_rows, static_cast<unsigned long long>(truth_pairs));
  std::printf(
      "  precision %.4f, recall %.4f (pairwise, against brute-force exact Jaccard >= 0.8)\n",
      precision, recall);
  return precision >= 0.95 && recall >= 0.95 ? 0 : 1;
}
