// `kbdata audit` as a query (docs/audit.md): one row per submission row at or above the least
// verdict asked for, with its verdict, the rules that fired and, when asked, their evidence; per
// leaderboard a summary line of every row audited. The folder is audited by the caller
// (audit::audit_folder), which hands every audited row to add().
#pragma once

#include <cstdint>
#include <vector>

#include "audit/folder_audit.h"
#include "audit/rules.h"
#include "dataset/submission.h"
#include "result/table.h"

namespace kbdata::query {

struct AuditRequest {
  audit::Verdict min_verdict = audit::Verdict::CLEAN;  // rows at least this bad
  bool with_evidence = false;                          // the evidence column
};

// What the rows are (Parquet's kbdata.rule).
extern const char* const kAuditRule;

// The answer's columns: report::row_identity_columns(), verdict, rules, and with evidence
// evidence (rules and evidence shown whole in a table: a cut list hides what fired).
[[nodiscard]] std::vector<result::Column> audit_columns(bool with_evidence);

class AuditQuery {
 public:
  explicit AuditQuery(AuditRequest request);

  // One audited row: counted in its leaderboard's summary, and a row of the answer when its
  // verdict is at least the request's.
  void add(const dataset::Submission& s, const std::vector<audit::Finding>& findings,
           audit::Verdict verdict);
  // The rows audited so far.
  [[nodiscard]] uint64_t audited() const { return audited_; }

  // The rows, each naming its leaderboard, then per leaderboard (by id) a summary line: rows,
  // verdicts, flagged rows by rule and by user, and where the physical floor was not applied.
  // Called once, after the last add().
  [[nodiscard]] result::ResultTable finish();

 private:
  AuditRequest request_;
  result::ResultTable table_;
  audit::AuditSummary summary_;
  uint64_t audited_ = 0;
};

}  // namespace kbdata::query
