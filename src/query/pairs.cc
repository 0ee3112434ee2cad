#include "query/pairs.h"

namespace kbdata::query {

const char* const kPairsSummaryRule =
    "kbdata pairs: the rows read, the versions and lineages, the candidates dropped by each "
    "filter, and what was written";

result::ResultTable pairs_summary(const pairs::PairsSummary& s, const PairsSummaryRequest& r) {
  using result::Cell;
  using result::ColumnType;
  const auto count = [](uint64_t n) -> Cell { return static_cast<int64_t>(n); };
  // A count the run makes only when `made`: null otherwise.
  const auto when = [](bool made, uint64_t n) -> Cell {
    if (!made) return {};
    return static_cast<int64_t>(n);
  };
  const bool pairs = !r.trajectories;
  std::vector<result::Column> columns = {{"kind", ColumnType::STRING}};
  for (const char* name :
       {"rows", "versions", "without_code", "groups", "lineages", "candidates",
        "dropped_min_speedup", "dropped_max_gap", "dropped_not_significant", "dropped_no_change",
        "dropped_ngram", "dropped_minhash", "written", "significant", "significance_unknown"}) {
    columns.push_back({name, ColumnType::INT64});
  }
  columns.push_back({"out", ColumnType::STRING});
  columns.push_back({"bytes", ColumnType::INT64});
  columns.push_back({"card", ColumnType::STRING});
  result::ResultTable table(std::move(columns), kPairsSummaryRule);
  table.add_row({std::string(pairs ? "pairs" : "trajectories"), count(s.rows), count(s.versions),
                 count(s.without_code), count(s.groups), count(s.lineages), count(s.candidates),
                 count(s.dropped_min_speedup), when(pairs, s.dropped_max_gap),
                 when(pairs && r.significant, s.dropped_not_significant),
                 when(pairs, s.dropped_no_change), when(r.decontaminate, s.dropped_ngram),
                 when(r.decontaminate, s.dropped_minhash), count(s.written),
                 when(pairs, s.significant), when(pairs, s.significance_unknown), r.out,
                 count(s.bytes), r.card});
  return table;
}

}  // namespace kbdata::query
