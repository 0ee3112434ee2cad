// `kbdata dedup`'s summary as a query's answer: what the passes counted and how long each took,
// one row (dedup writes its rows to a file; this is what it tells of them).
#pragma once

#include "dedup/dedup.h"
#include "result/table.h"

namespace kbdata::query {

// What the rows are (Parquet's kbdata.rule).
extern const char* const kDedupSummaryRule;

struct DedupSummaryRequest {
  bool fuzzy = false;     // --fuzzy: the near-duplicate counts, the hashing and clustering passes
  bool emit_all = false;  // --emit-all: the rows written (every input row)
  double seconds = 0;     // the whole run's wall-clock time
};

// One row: rows_in, exact_duplicates, near_duplicate_clusters, near_duplicates, rows_out,
// rows_written, signatures, lsh_bands, lsh_rows, candidate_pairs, verified_pairs, shingle_sets,
// joined_pairs (INT64), seconds, metadata_seconds, hash_seconds, cluster_seconds, write_seconds
// (DOUBLE). What the run did not do is null: the fuzzy counts and passes without `fuzzy`,
// rows_written without `emit_all`.
[[nodiscard]] result::ResultTable dedup_summary(const dedup::DedupSummary& summary,
                                                const DedupSummaryRequest& request);

}  // namespace kbdata::query
