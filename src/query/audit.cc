#include "query/audit.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "report/submissions.h"

namespace kbdata::query {
namespace {

// The summary line of one leaderboard: rows, verdicts, the rules and the users most flagged.
std::string summary_line(const audit::LeaderboardAudit& a) {
  std::string line = (a.problem_name.empty() ? "leaderboard" : a.problem_name) + " (" +
                     std::to_string(a.leaderboard_id) + "): " + std::to_string(a.rows) + " rows, " +
                     std::to_string(a.cheat) + " cheat, " + std::to_string(a.suspicious) +
                     " suspicious";
  const auto top = [](const std::map<std::string, uint64_t>& counts, size_t n) {
    std::vector<std::pair<std::string, uint64_t>> v(counts.begin(), counts.end());
    std::stable_sort(v.begin(), v.end(),
                     [](const auto& x, const auto& y) { return x.second > y.second; });
    std::string text;
    for (size_t i = 0; i < v.size() && i < n; ++i) {
      text += (text.empty() ? "" : ", ") + v[i].first + " " + std::to_string(v[i].second);
    }
    if (v.size() > n) text += ", ...";
    return text;
  };
  if (!a.by_rule.empty()) line += "; by rule: " + top(a.by_rule, a.by_rule.size());
  if (!a.by_user.empty()) line += "; by user: " + top(a.by_user, 5);
  for (const auto& [runner, rows] : a.floor_not_applied) {
    line += "; below-physical-floor not applied to " + std::to_string(rows) + " rows on runner " +
            runner + " (its GPU is not known)";
  }
  return line;
}

}  // namespace

const char* const kAuditRule =
    "kbdata audit: per submission row, the code rules over its Python and C++ tokens and the score "
    "rules (status hacked, the runner's physical floor for the problem's benchmark shapes, a jump "
    "of more than 10x over the record of the leaderboard and runner at that time); verdict cheat "
    "when a hard rule fired, suspicious when a support rule did, else clean (docs/audit.md)";

std::vector<result::Column> audit_columns(bool with_evidence) {
  std::vector<result::Column> columns = report::row_identity_columns();
  columns.push_back({"verdict", result::ColumnType::STRING});
  columns.push_back({"rules", result::ColumnType::STRING, true});
  if (with_evidence) columns.push_back({"evidence", result::ColumnType::STRING, true});
  return columns;
}

AuditQuery::AuditQuery(AuditRequest request)
    : request_(request), table_(audit_columns(request.with_evidence), kAuditRule) {}

void AuditQuery::add(const dataset::Submission& s, const std::vector<audit::Finding>& findings,
                     audit::Verdict verdict) {
  summary_.add(s, findings, verdict);
  ++audited_;
  if (verdict < request_.min_verdict) return;
  std::vector<result::Cell> cells = report::row_identity_cells(s);
  cells.emplace_back(std::string(audit::to_string(verdict)));
  cells.emplace_back(audit::rules_text(findings));
  if (request_.with_evidence) cells.emplace_back(audit::evidence_text(findings));
  table_.add_row(std::move(cells), s.leaderboard_id, s.problem_name);
}

result::ResultTable AuditQuery::finish() {
  for (const auto& [id, a] : summary_.leaderboards()) table_.summary(summary_line(a));
  return std::move(table_);
}

}  // namespace kbdata::query
