#include "query/dedup.h"

namespace kbdata::query {

const char* const kDedupSummaryRule =
    "kbdata dedup: what the exact and near-duplicate passes counted, and their times";

result::ResultTable dedup_summary(const dedup::DedupSummary& s, const DedupSummaryRequest& r) {
  using result::Cell;
  using result::ColumnType;
  const auto count = [](uint64_t n) -> Cell { return static_cast<int64_t>(n); };
  // What only the fuzzy passes count and time: null without them.
  const auto fuzzy_count = [&](uint64_t n) -> Cell {
    if (!r.fuzzy) return {};
    return static_cast<int64_t>(n);
  };
  const auto fuzzy_seconds = [&](double seconds) -> Cell {
    if (!r.fuzzy) return {};
    return seconds;
  };
  std::vector<result::Column> columns;
  for (const char* name :
       {"rows_in", "exact_duplicates", "near_duplicate_clusters", "near_duplicates", "rows_out",
        "rows_written", "signatures", "lsh_bands", "lsh_rows", "candidate_pairs", "verified_pairs",
        "shingle_sets", "joined_pairs"}) {
    columns.push_back({name, ColumnType::INT64});
  }
  for (const char* name :
       {"seconds", "metadata_seconds", "hash_seconds", "cluster_seconds", "write_seconds"}) {
    columns.push_back({name, ColumnType::DOUBLE});
  }
  result::ResultTable table(std::move(columns), kDedupSummaryRule);
  table.add_row({count(s.rows_in), count(s.exact_duplicates),
                 fuzzy_count(s.near_duplicate_clusters), fuzzy_count(s.near_duplicates),
                 count(s.rows_out), r.emit_all ? count(s.rows_written) : Cell{},
                 fuzzy_count(s.signatures), fuzzy_count(static_cast<uint64_t>(s.lsh.bands)),
                 fuzzy_count(static_cast<uint64_t>(s.lsh.rows)), fuzzy_count(s.candidate_pairs),
                 fuzzy_count(s.verified_pairs), fuzzy_count(s.sets_built),
                 fuzzy_count(s.joined_pairs), r.seconds, s.metadata_seconds,
                 fuzzy_seconds(s.hash_seconds), fuzzy_seconds(s.cluster_seconds), s.write_seconds});
  return table;
}

}  // namespace kbdata::query
