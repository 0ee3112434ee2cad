// Which submissions `kbdata extract` writes (docs/analyses.md, "extract"): a pure function over
// the model's rows (metadata only; code is read afterwards for the chosen rows alone).
//
//   top K     per (leaderboard, runner), the best qualifying row of every user whose rank is at
//             most K (ranking.h: RANK() semantics, so users tied at rank K all stay)
//   every     every row given (the caller has filtered them: a user's rows, or all of a problem)
//
// With exact deduplication, rows sharing a code_id (exact code identity, docs/dataset.md §2) keep
// one row: the lowest score (unscored last), then the earliest time, then the lowest submission id;
// the kept row counts the others in `duplicates_dropped`.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "dataset/submission.h"

namespace kbdata::analysis {

struct ExtractRequest {
  int64_t top = 0;           // > 0: the top K users per (leaderboard, runner); 0: every row
  bool dedup_exact = false;  // one row per code_id
};

struct ExtractEntry {
  dataset::Submission row;      // as given (no code needed)
  std::optional<int64_t> rank;  // with `top`
  uint64_t duplicates_dropped = 0;
};

// The rows to write, in order: with `top`, by leaderboard, runner (runner-less last) and rank
// (then time, id); otherwise by leaderboard, runner, submission time, submission id.
[[nodiscard]] std::vector<ExtractEntry> select_for_extract(
    const std::vector<dataset::Submission>& rows, const ExtractRequest& request);

}  // namespace kbdata::analysis
