#include "cli/audit_command.h"

#include <memory>
#include <vector>

#include "audit/folder_audit.h"
#include "cli/embedded.h"
#include "cli/filter_checks.h"
#include "cli/progress.h"
#include "cli/threads.h"
#include "common/closest_name.h"
#include "common/error.h"
#include "query/audit.h"
#include "report/writer.h"

namespace kbdata::cli {

void run_audit(const AuditOptions& options, std::FILE* out, std::FILE* err) {
  const report::Format format = report::output_format(options.format, options.out);
  const std::optional<audit::Verdict> min_verdict = audit::parse_verdict(options.min_verdict);
  if (!min_verdict) {
    throw UsageError("--min-verdict " + options.min_verdict +
                     ": expected clean, suspicious or cheat" +
                     did_you_mean(options.min_verdict, audit::verdict_names()));
  }
  dataset::LoadOptions load;
  load.threads = command_threads(options.data.threads);
  load.filter = row_selection_filter(options.rows);

  const dataset::DataDir dir = open_data_dir(options.data, err);
  resolve_filter(dir, load.filter);
  report::Writer writer(format, query::audit_columns(options.with_evidence), out, err, options.out,
                        query::kAuditRule, command_threads(options.data.threads));
  const audit::References references = audit::folder_references(dir);

  query::AuditQuery audit({.min_verdict = *min_verdict, .with_evidence = options.with_evidence});
  dataset::LoadStats stats;
  Progress progress(err, "audit");
  audit::audit_folder(
      dir, load, references,
      [&](const dataset::Submission& s, const std::vector<audit::Finding>& findings,
          audit::Verdict verdict) {
        audit.add(s, findings, verdict);
        progress.update(audit.audited(), "rows");
      },
      stats);
  progress.finish();
  // Written before the load's report, as rows streamed while loading were (the leaderboards'
  // reliability notes of CSV and Parquet go to stderr as their first row is written).
  result::ResultTable answer = audit.finish();
  if (!hand_over(answer)) writer.write(answer);
  report_load(options.data, stats, err);
  if (audit.audited() == 0) {
    report::write_all(
        err, "kbdata: no submissions" + why_empty(dir, load.filter) + " in " + dir.path + "\n");
  }
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
  commands.push_back({cmd, [options] { run_audit(*options, command_out(), command_err()); }});
}

}  // namespace kbdata::cli
