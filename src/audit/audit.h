// The audit of submissions (kbdata audit, docs/audit.md): every rule over one submission, on
// whatever thread its row was built (audit_submission), and the record jumps once every scored
// row of a leaderboard is known (RecordJumps).
//
//   source/     tokens of Python and C++, C++ embedded in Python strings
//   rules       the rule table: ids, tiers, families, docs; verdicts
//   code_rules  the code rules over tokens; normalisation for reference copies
//   score_rules the GPU table, the problems' benchmark costs, the physical floor, records
//   audit       one submission's findings; the problems' references
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "audit/rules.h"
#include "dataset/leaderboards_file.h"
#include "dataset/submission.h"

namespace kbdata::audit {

// What the audit knows of one problem's reference implementation.
struct Reference {
  std::string normalised;  // normalised_code of the reference
  std::optional<int> float_bits;
};

// The references of the problems, by leaderboard id and by name (leaderboards.parquet).
class References {
 public:
  void add(const dataset::LeaderboardEntry& entry);
  // The reference of the submission's leaderboard (by id, else by problem name), or nullptr.
  [[nodiscard]] const Reference* find(const dataset::Submission& s) const;
  [[nodiscard]] bool empty() const { return by_name_.empty() && by_id_.empty(); }

 private:
  std::map<int64_t, Reference> by_id_;
  std::map<std::string, Reference, std::less<>> by_name_;
};

// The findings of every rule that one submission alone decides: the code rules when it has
// `code` (its decoded text; precision-downgrade and reference-copy against its problem's
// reference, when known), the status rule, and the physical floor of its score on its runner.
// Safe to call from several threads at once (it reads `references` only).
[[nodiscard]] std::vector<Finding> audit_submission(const dataset::Submission& s,
                                                    std::optional<std::string_view> code,
                                                    const References& references);

// The text of a record-jump finding: the score and the record it beat.
[[nodiscard]] std::string jump_text(double score, double record);

}  // namespace kbdata::audit
