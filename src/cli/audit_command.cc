#include "cli/audit_command.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "audit/folder_audit.h"
#include "cli/filter_checks.h"
#include "cli/progress.h"
#include "common/closest_name.h"
#include "common/error.h"
#include "report/submissions.h"
#include "report/writer.h"

namespace kbdata::cli {
namespace {

constexpr const char* kAuditRule =
    "kbdata audit: per submission row, the code rules over its Python and C++ tokens and the score "
    "rules (status hacked, the runner's physical floor for the problem's benchmark shapes, a jump "
    "of more than 10x over the record of the leaderboard and runner at that time); verdict cheat "
    "when a hard rule fired, suspicious when a support rule did, else clean (docs/audit.md)";

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

void run_audit(const AuditOptions& options, std::FILE* out, std::FILE* err) {
  const report::Format format = report::output_format(options.format, options.out);
  const std::optional<audit::Verdict> min_verdict = audit::parse_verdict(options.min_verdict);
  if (!min_verdict) {
    throw UsageError("--min-verdict " + options.min_verdict +
                     ": expected clean, suspicious or cheat" +
                     did_you_mean(options.min_verdict, audit::verdict_names()));
  }
  dataset::LoadOptions load;
  load.threads = options.data.threads.value_or(0);
  load.filter = row_selection_filter(options.rows);

  std::vector<report::Column> columns = report::row_identity_columns();
  columns.push_back({"verdict", report::ColumnType::STRING});
  // Every rule that fired, and its evidence, shown whole in a table: a cut list hides what fired.
  columns.push_back({"rules", report::ColumnType::STRING, true});
  if (options.with_evidence) columns.push_back({"evidence", report::ColumnType::STRING, true});
  const dataset::DataDir dir = open_data_dir(options.data, err);
  resolve_filter(dir, load.filter);
  report::Writer writer(format, columns, out, err, options.out, kAuditRule);
  const audit::References references = audit::folder_references(dir);

  audit::AuditSummary summary;
  dataset::LoadStats stats;
  Progress progress(err, "audit");
  uint64_t seen = 0;
  audit::audit_folder(
      dir, load, references,
      [&](const dataset::Submission& s, const std::vector<audit::Finding>& findings,
          audit::Verdict verdict) {
        summary.add(s, findings, verdict);
        progress.update(++seen, "rows");
        if (verdict < *min_verdict) return;
        std::vector<report::Cell> cells = report::row_identity_cells(s);
        cells.emplace_back(std::string(audit::to_string(verdict)));
        cells.emplace_back(audit::rules_text(findings));
        if (options.with_evidence) cells.emplace_back(audit::evidence_text(findings));
        writer.row(std::move(cells), s.leaderboard_id, s.problem_name);
      },
      stats);
  progress.finish();
  report_load(options.data, stats, err);
  if (seen == 0) {
    report::write_all(
        err, "kbdata: no submissions" + why_empty(dir, load.filter) + " in " + dir.path + "\n");
  }
  for (const auto& [id, a] : summary.leaderboards()) writer.table_footer(summary_line(a));
  writer.finish();
}

void add_audit_command(CLI::App& app, Commands& commands) {
  auto options = std::make_shared<AuditOptions>();
  CLI::App* cmd = app.add_subcommand(
      "audit",
      "Flag cheating kernels and impossible scores: a verdict per submission (clean, "
      "suspicious, cheat) and the rules that fired");
  add_data_options(*cmd, options->data);
  add_row_selection_options(*cmd, options->rows);
  cmd->add_option("--min-verdict", options->min_verdict,
                  "Only rows at least this bad: clean (every row, the default), suspicious or "
                  "cheat");
  cmd->add_flag("--with-evidence", options->with_evidence,
                "Add an evidence column: each rule with the line and the text it matched");
  add_format_options(*cmd, options->format, options->out);
  cmd->footer(
      "\nRules (docs/audit.md): hard rules make a row `cheat`, support rules `suspicious`,\n"
      "telemetry rules (a timer for logging, a CUDA graph fed new inputs, a copy of the\n"
      "reference) are listed and change nothing. Code rules read the Python tokens and the\n"
      "CUDA/HIP sources embedded in load_inline / compile_kernel strings; score rules compare\n"
      "the score with the runner's physical floor for the problem's benchmark shapes and with\n"
      "the record of the leaderboard and runner at that time. A table ends with a summary per\n"
      "leaderboard: rows, verdicts, flagged rows by rule and by user.\n"
      "\nExamples:\n"
      "  kbdata audit --data ~/kernelbot --min-verdict suspicious\n"
      "  kbdata audit -p nvfp4_group_gemm --with-evidence -f jsonl\n"
      "  kbdata audit -f parquet -o audit.parquet\n"
      "\nExit status: 0 success, 1 the input could not be read, 2 wrong usage.");
  commands.push_back({cmd, [options] { run_audit(*options, stdout, stderr); }});
}

}  // namespace kbdata::cli
