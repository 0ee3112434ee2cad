// Deduplication of submissions (docs/dedup.md): the platform's exact rule (docs/dataset.md §4.1)
// and near-duplicate clustering by MinHash LSH, over a flat or legacy per-run file, written as a
// flat file with the cluster of every row.
//
//   shingles.*     byte shingles of lower-cased code, exact Jaccard
//   minhash.*      one-permutation MinHash signatures with optimal densification; LSH banding
//   dedup.*        the passes below; the output file is the flat schema + cluster_id +
//                  cluster_size | kept, written by dataset::FlatFileWriter
//
// Passes over the input (each a streaming load, dataset/loader.h):
//   1. metadata, no code: the exact rule partitions rows by (leaderboard_id, user_id, code_id,
//      runner) and keeps the best of each (keeper order below). Exact mode needs no code here.
//   2. fuzzy only: code of one row per (scope, code_id) among the exact keepers. Batches of rows
//      are hashed by --threads threads into LSH band keys (kept: b x 4 bytes per row), and the code
//      is spilled, snappy-compressed, to an unlinked temporary file beside OUT.
//   3. fuzzy only, per scope group in parallel: bucket rows by band key, verify each candidate
//      pair not already joined by exact Jaccard on shingle sets re-made from the spill, and join
//      pairs at or above the threshold (union-find: clusters are transitive).
//   4. every row again, with code, in input order: the rows to keep (or all with --emit-all)
//      are written.
// Memory: the rows' metadata, the band keys, one batch of code, and each worker's cache of
// shingle sets (bounded); never all code. A legacy file is grouped per submission by the loader,
// which holds the code of every submission while it reads one with code (docs/data-model.md).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/progress.h"
#include "dataset/filter.h"
#include "dataset/submission.h"
#include "similarity/minhash.h"

namespace kbdata::dedup {

enum class Mode { EXACT, FUZZY };

struct DedupOptions {
  std::string input;
  std::string output;
  Mode mode = Mode::EXACT;
  int shingle_bytes = 5;      // 1..similarity::kMaxShingleBytes
  double threshold = 0.8;     // Jaccard, (0, 1]
  bool across_users = false;  // near-duplicate scope: leaderboard instead of (leaderboard, user)
  bool emit_all = false;      // every row, with cluster_id and kept
  int threads = 1;            // worker threads, at least 1 (the command line decides: --threads)
  std::string command_line;   // recorded as kbdata.command
  // When set, called once IN and OUT are checked, before the first pass: the rows of IN to leave
  // out (--exclude-flagged), as if IN did not hold them. Their count is recorded in OUT as
  // kbdata.dedup.rows_left_out.
  std::function<std::shared_ptr<const dataset::RowSet>()> exclude;
};

struct DedupSummary {
  uint64_t rows_in = 0;
  uint64_t exact_duplicates = 0;         // rows dropped by the exact rule
  uint64_t near_duplicate_clusters = 0;  // fuzzy clusters joining two or more exact keepers
  uint64_t near_duplicates = 0;          // exact keepers dropped by fuzzy clustering
  uint64_t rows_out = 0;                 // rows kept (written, unless --emit-all writes all)
  uint64_t rows_written = 0;
  uint64_t signatures = 0;       // rows whose code was hashed (fuzzy)
  uint64_t candidate_pairs = 0;  // distinct pairs sharing a band (of buckets up to 32 items)
  uint64_t sets_built = 0;       // shingle sets made from the spilled code for verification
  uint64_t verified_pairs = 0;   // candidate pairs checked by exact Jaccard
  uint64_t joined_pairs = 0;     // verified pairs at or above the threshold that joined clusters
  similarity::LshParams lsh;
  // Wall-clock seconds of each pass.
  double metadata_seconds = 0;
  double hash_seconds = 0;
  double cluster_seconds = 0;
  double write_seconds = 0;
};

// The keeper order: lower score first (a null or NaN score after every score), then earlier
// submission_time, then lower submission_id. True when `a` is kept over `b`.
[[nodiscard]] bool keeper_before(const dataset::Submission& a, const dataset::Submission& b);

// Runs the whole command, reporting to `progress` (may be empty) the stages "reading metadata",
// "hashing code", "clustering groups" (in groups) and "writing" (in rows). Throws UsageError for
// invalid options or OUT naming IN; FormatError / UnsupportedError for input that is not a flat or
// legacy submissions file or is corrupt; IoError. On any failure OUT is left as it was.
DedupSummary run_dedup(const DedupOptions& options, const ProgressFn& progress);

// The clustering alone, for rows already in memory (tests; run_dedup uses the same engine):
// keeper[i] is the index of the keeper of row i's cluster. Rows' code must be set for FUZZY; the
// spill file goes to $TMPDIR (else /tmp).
struct Clustering {
  std::vector<size_t> keeper;  // per row: the index of its cluster's keeper
  DedupSummary summary;
};
[[nodiscard]] Clustering cluster_rows(const std::vector<dataset::Submission>& rows,
                                      const DedupOptions& options);

}  // namespace kbdata::dedup
