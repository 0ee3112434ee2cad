// `kbdata pairs`' summary as a query's answer: what the run read, built, dropped (by reason) and
// wrote, one row (pairs writes its rows to a file; this is what it tells of them).
#pragma once

#include <string>

#include "pairs/pairs.h"
#include "result/table.h"

namespace kbdata::query {

// What the rows are (Parquet's kbdata.rule).
extern const char* const kPairsSummaryRule;

struct PairsSummaryRequest {
  bool trajectories = false;   // --trajectories: rows are trajectories, not pairs
  bool significant = false;    // --significant: pairs not above the noise were dropped
  bool decontaminate = false;  // --decontaminate: the n-gram and MinHash drops
  std::string out;             // OUT, as given
  std::string card;            // the card's path
};

// One row: kind ("pairs" or "trajectories"), rows, versions, without_code, groups, lineages,
// candidates, dropped_min_speedup, dropped_max_gap, dropped_not_significant, dropped_no_change,
// dropped_ngram, dropped_minhash, written, significant, significance_unknown (INT64), out, bytes
// (OUT's size), card. A count the run does not make is null: the gap, significance and no-change
// counts of trajectories, dropped_not_significant without --significant, the decontamination's
// without --decontaminate.
[[nodiscard]] result::ResultTable pairs_summary(const pairs::PairsSummary& summary,
                                                const PairsSummaryRequest& request);

}  // namespace kbdata::query
