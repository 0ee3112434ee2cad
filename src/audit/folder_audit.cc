#include "audit/folder_audit.h"

#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <tuple>
#include <unordered_map>

#include "audit/score_rules.h"
#include "dataset/leaderboards_file.h"
#include "dataset/row_key.h"

namespace kbdata::audit {

References folder_references(const dataset::DataDir& dir) {
  References refs;
  for (const dataset::DataFile* f : dataset::leaderboards_files(dir)) {
    for (const dataset::LeaderboardEntry& e : dataset::read_leaderboards(dir, *f)) refs.add(e);
  }
  return refs;
}

dataset::Filter record_scope(const dataset::Filter& filter) {
  dataset::Filter scope;
  scope.problem = filter.problem;
  scope.leaderboard_id = filter.leaderboard_id;
  scope.runner = filter.runner;
  scope.until = filter.until;
  return scope;
}

namespace {

// The record each scored row of `scope` faced, by the row's identity (submission_id, runner);
// rows that faced none are absent.
class RecordsFaced {
 public:
  RecordsFaced(const dataset::DataDir& dir, const dataset::LoadOptions& load) {
    dataset::LoadOptions scores;
    scores.filter = record_scope(load.filter);
    scores.threads = load.threads;
    scores.with_details = false;
    std::vector<RecordRow> scored;
    dataset::LoadStats ignored;
    dataset::load_dir(
        dir, scores,
        [&](dataset::Submission&& s) {
          if (!dataset::qualifies(s)) return;
          RecordRow r;
          r.leaderboard_id = s.leaderboard_id;
          r.runner = runners_.number(s.runner);
          r.submission_time = s.submission_time;
          r.submission_id = s.submission_id;
          r.score = *s.score;
          r.user = user_index(s.user_id);
          const std::optional<double> floor =
              s.runner ? physical_floor(s.problem_name, *s.runner) : std::nullopt;
          r.sets_record = !(floor && *s.score < *floor);
          scored.push_back(r);
        },
        ignored);
    const std::vector<std::optional<double>> records = records_before(scored);
    for (size_t i = 0; i < scored.size(); ++i) {
      if (records[i]) record_[{scored[i].submission_id, scored[i].runner}] = *records[i];
    }
  }

  [[nodiscard]] std::optional<double> of(const dataset::Submission& s) const {
    const std::optional<int32_t> runner = runners_.find(s.runner);
    if (!runner) return std::nullopt;
    const auto it = record_.find({s.submission_id, *runner});
    if (it == record_.end()) return std::nullopt;
    return it->second;
  }

 private:
  int64_t user_index(const std::string& user) {
    return users_.try_emplace(user, static_cast<int64_t>(users_.size())).first->second;
  }

  dataset::RunnerNumbers runners_;
  std::unordered_map<std::string, int64_t> users_;
  std::unordered_map<dataset::RowKey, double, dataset::RowKeyHash> record_;
};

}  // namespace

dataset::PrepareStep audit_step(const References& references) {
  dataset::PrepareStep step;
  step.key = "audit";
  step.prepare = [references](dataset::Submission& s, std::optional<std::string_view> code) {
    s.prepared = audit_submission(s, code, references);
  };
  step.bytes = [](const std::any& v) {
    const auto* findings = std::any_cast<std::vector<Finding>>(&v);
    if (findings == nullptr) return size_t{0};
    size_t n = sizeof(*findings) + findings->capacity() * sizeof(Finding);
    for (const Finding& f : *findings) n += f.text.capacity() > 15 ? f.text.capacity() + 1 : 0;
    return n;
  };
  return step;
}

void audit_folder(const dataset::DataDir& dir, dataset::LoadOptions load,
                  const References& references, const AuditSink& sink, dataset::LoadStats& stats) {
  // Pass 1: the record each scored row of the leaderboards faced.
  RecordsFaced records(dir, load);

  // Pass 2: the code, on the workers.
  load.with_code = true;
  load.with_code_bytes = false;
  load.with_details = true;
  load.prepare_with(audit_step(references));
  dataset::load_dir(
      dir, load,
      [&](dataset::Submission&& s) {
        auto findings = std::any_cast<std::vector<Finding>>(std::move(s.prepared));
        s.prepared.reset();
        const std::optional<double> record = dataset::qualifies(s) ? records.of(s) : std::nullopt;
        if (record && *s.score * kJumpFactor < *record) {
          // After the score rules, before the code rules.
          size_t pos = 0;
          while (pos < findings.size() && findings[pos].line == 0 &&
                 rule(findings[pos].rule).family == rule(RuleId::RECORD_JUMP).family) {
            ++pos;
          }
          findings.insert(findings.begin() + static_cast<std::ptrdiff_t>(pos),
                          Finding{RuleId::RECORD_JUMP, 0, jump_text(*s.score, *record)});
        }
        sink(s, findings, verdict_of(findings));
      },
      stats);
}

FlaggedRows flag_rows(const dataset::DataDir& dir, const dataset::LoadOptions& load,
                      Verdict min_verdict, const ProgressFn& progress) {
  FlaggedRows flagged;
  auto rows = std::make_shared<dataset::RowSet>();
  auto cheats = std::make_shared<dataset::RowSet>();
  dataset::LoadOptions audited;
  audited.filter = load.filter;
  audited.filter.excluded = nullptr;
  audited.threads = load.threads;
  dataset::LoadStats ignored;
  // Each user's best qualifying row per leaderboard and runner (lowest score, then earliest, then
  // lowest id: the ranking's rule), and its verdict.
  struct Best {
    FlaggedBest row;
    int64_t time = 0;
    int64_t id = 0;
  };
  std::map<std::tuple<int64_t, std::string, std::string>, Best> best;
  audit_folder(
      dir, audited, folder_references(dir),
      [&](const dataset::Submission& s, const std::vector<Finding>&, Verdict verdict) {
        ++flagged.audited;
        if (verdict == Verdict::SUSPICIOUS) ++flagged.suspicious;
        if (verdict == Verdict::CHEAT) {
          ++flagged.cheat;
          cheats->insert(s.submission_id, s.runner);
        }
        if (verdict >= min_verdict) rows->insert(s.submission_id, s.runner);
        if (dataset::qualifies(s) && s.runner) {
          auto [it, added] =
              best.try_emplace(std::make_tuple(s.leaderboard_id, *s.runner, s.user_id));
          Best& b = it->second;
          const bool better = added || *s.score < b.row.score ||
                              (*s.score == b.row.score &&
                               (s.submission_time < b.time ||
                                (s.submission_time == b.time && s.submission_id < b.id)));
          if (better) {
            b.row = {
                s.problem_name, s.leaderboard_id,
                *s.runner,      s.user_name && !s.user_name->empty() ? *s.user_name : s.user_id,
                *s.score,       verdict};
            b.time = s.submission_time;
            b.id = s.submission_id;
          }
        }
        if (progress) progress({.stage = {}, .done = flagged.audited, .total = 0, .unit = "rows"});
      },
      ignored);
  for (auto& [key, b] : best) {
    if (b.row.verdict >= min_verdict) flagged.best_left_out.push_back(std::move(b.row));
  }
  std::stable_sort(flagged.best_left_out.begin(), flagged.best_left_out.end(),
                   [](const FlaggedBest& a, const FlaggedBest& b) {
                     if (a.problem_name != b.problem_name) return a.problem_name < b.problem_name;
                     if (a.runner != b.runner) return a.runner < b.runner;
                     return a.score < b.score;
                   });
  flagged.rows = std::move(rows);
  flagged.cheats = std::move(cheats);
  return flagged;
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
  if (s.runner && problem_cost(s.problem_name) != nullptr && gpu_for_runner(*s.runner) == nullptr) {
    ++a.floor_not_applied[*s.runner];
  }
}

}  // namespace kbdata::audit
