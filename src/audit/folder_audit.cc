#include "audit/folder_audit.h"

#include <cmath>
#include <set>
#include <unordered_map>

#include "audit/score_rules.h"
#include "dataset/leaderboards_file.h"

namespace kbdata::audit {

References folder_references(const dataset::DataDir& dir) {
  References refs;
  for (const dataset::DataFile* f : dataset::leaderboards_files(dir)) {
    for (const dataset::LeaderboardEntry& e : dataset::read_leaderboards(f->path)) refs.add(e);
  }
  return refs;
}

void audit_folder(const dataset::DataDir& dir, dataset::LoadOptions load,
                  const References& references, const AuditSink& sink, dataset::LoadStats& stats) {
  // Pass 1: the record each scored row faced.
  std::vector<RecordRow> scored;
  std::vector<uint32_t> scored_index;  // row number -> index in `scored`, or UINT32_MAX
  {
    dataset::LoadOptions scores = load;
    scores.with_code = false;
    scores.with_code_bytes = false;
    scores.with_details = false;
    scores.prepare = nullptr;
    std::unordered_map<std::string, int> runners;
    dataset::LoadStats ignored;
    dataset::load_dir(
        dir, scores,
        [&](dataset::Submission&& s) {
          if (!qualifies(s)) {
            scored_index.push_back(UINT32_MAX);
            return;
          }
          RecordRow r;
          r.leaderboard_id = s.leaderboard_id;
          r.runner =
              s.runner
                  ? runners.try_emplace(*s.runner, static_cast<int>(runners.size())).first->second
                  : -1;
          r.submission_time = s.submission_time;
          r.submission_id = s.submission_id;
          r.score = *s.score;
          const std::optional<double> floor =
              s.runner ? physical_floor(s.problem_name, *s.runner) : std::nullopt;
          r.sets_record = !(floor && *s.score < *floor);
          scored_index.push_back(static_cast<uint32_t>(scored.size()));
          scored.push_back(r);
        },
        ignored);
  }
  const std::vector<std::optional<double>> records = records_before(scored);
  scored = {};

  // Pass 2: the code, on the workers.
  load.with_code = true;
  load.with_code_bytes = false;
  load.with_details = true;
  load.prepare = [&references](dataset::Submission& s) {
    s.prepared = audit_submission(s, references);
    s.code.reset();
  };
  size_t row = 0;
  dataset::load_dir(
      dir, load,
      [&](dataset::Submission&& s) {
        auto findings = std::any_cast<std::vector<Finding>>(std::move(s.prepared));
        s.prepared.reset();
        const uint32_t at = row < scored_index.size() ? scored_index[row] : UINT32_MAX;
        ++row;
        if (at != UINT32_MAX && records[at] && *s.score * kJumpFactor < *records[at]) {
          // After the score rules, before the code rules.
          size_t pos = 0;
          while (pos < findings.size() && findings[pos].line == 0 &&
                 rule(findings[pos].rule).family == rule(RuleId::RECORD_JUMP).family) {
            ++pos;
          }
          findings.insert(findings.begin() + static_cast<std::ptrdiff_t>(pos),
                          Finding{RuleId::RECORD_JUMP, 0, jump_text(*s.score, *records[at])});
        }
        sink(s, findings, verdict_of(findings));
      },
      stats);
}

std::string rules_text(const std::vector<Finding>& findings) {
  std::string out;
  std::set<RuleId> seen;
  for (const Finding& f : findings) {
    if (!seen.insert(f.rule).second) continue;
    if (!out.empty()) out += ',';
    out += rule(f.rule).name;
    out += ':';
    out += to_string(rule(f.rule).tier);
  }
  return out;
}

std::string evidence_text(const std::vector<Finding>& findings) {
  std::string out;
  for (const Finding& f : findings) {
    if (!out.empty()) out += "; ";
    out += rule(f.rule).name;
    if (f.line > 0) out += "@" + std::to_string(f.line);
    out += ": ";
    out += f.text;
  }
  return out;
}

void AuditSummary::add(const dataset::Submission& s, const std::vector<Finding>& findings,
                       Verdict verdict) {
  LeaderboardAudit& a = by_id_[s.leaderboard_id];
  a.leaderboard_id = s.leaderboard_id;
  if (a.problem_name.empty()) a.problem_name = s.problem_name;
  ++a.rows;
  if (verdict == Verdict::SUSPICIOUS) ++a.suspicious;
  if (verdict == Verdict::CHEAT) ++a.cheat;
  std::set<RuleId> seen;
  for (const Finding& f : findings) {
    if (seen.insert(f.rule).second) ++a.by_rule[std::string(rule(f.rule).name)];
  }
  if (verdict != Verdict::CLEAN) {
    ++a.by_user[s.user_name && !s.user_name->empty() ? *s.user_name : s.user_id];
  }
}

}  // namespace kbdata::audit
