#include "cli/fastest_command.h"

#include <memory>
#include <vector>

#include "cli/embedded.h"
#include "cli/filter_checks.h"
#include "cli/flag_exclusion.h"
#include "cli/progress.h"
#include "cli/threads.h"
#include "common/error.h"
#include "dataset/loader.h"
#include "dataset/registry.h"
#include "query/fastest.h"
#include "report/writer.h"

namespace kbdata::cli {
namespace {

std::string selection_text(const FastestOptions& o) {
  std::string what = o.problem ? *o.problem : std::string("any problem");
  if (o.user_id) what += ", user id " + *o.user_id;
  if (o.user_name) what += ", user " + *o.user_name;
  if (o.runner) what += ", runner " + *o.runner;
  return what;
}

// The code of one chosen row under the table, as `show` prints it.
std::string code_block(const analysis::Fastest& f) {
  const dataset::Submission& s = f.submission;
  std::string text = "\ncode of submission " + std::to_string(s.submission_id) + " (" +
                     report::terminal_text(s.problem_name, false) + ", " +
                     (f.runner ? report::terminal_text(*f.runner, false) : "runner not recorded") +
                     "):\n";
  // A table is for people: the code's control characters and bidirectional overrides are shown
  // escaped, its lines and tabs kept.
  text += s.code ? report::terminal_text(*s.code, true) : std::string("null");
  if (text.back() != '\n') text += '\n';
  return text;
}

}  // namespace

void run_fastest(const FastestOptions& options, std::FILE* out, std::FILE* err) {
  if (options.user_id && options.user_name) {
    throw UsageError("fastest takes --user-id or --user-name, not both");
  }
  const report::Format format = report::output_format(options.format, options.out);
  const bool code_column = options.with_code && format != report::Format::TABLE;
  query::FastestQuery fastest({.with_code = options.with_code, .code_column = code_column});
  // The data folder first: its files are inputs, which no output may replace (checked below).
  const dataset::DataDir dir = open_data_dir(options.data, err);
  report::Writer writer(format, query::fastest_columns(code_column), out, err, options.out,
                        query::kFastestRule, command_threads(options.data.threads));

  dataset::Filter filter;
  filter.problem = options.problem;
  filter.user_id = options.user_id;
  filter.user_name = options.user_name;
  filter.runner = options.runner;
  filter.epoch = options.epoch;
  dataset::LoadOptions load = fastest.load_options(filter, command_threads(options.data.threads));
  resolve_filter(dir, load.filter);
  exclude_flagged(options.exclude_flagged, dir, load, err);

  dataset::LoadStats stats;
  {
    Progress progress(err, "fastest: " + selection_text(options));
    uint64_t seen = 0;
    dataset::load_dir(
        dir, load,
        [&](dataset::Submission&& s) {
          fastest.add(s);
          progress.update(++seen, "qualifying rows");
        },
        stats);
  }
  report_load(options.data, stats, err);

  result::ResultTable answer = fastest.finish();
  const std::vector<analysis::Fastest>& found = fastest.found();
  if (found.empty()) {
    report::write_all(err, "kbdata: no qualifying (scored, passed, not hacked) submissions for " +
                               selection_text(options) + why_empty(dir, load.filter) + "\n");
  }
  if (!hand_over(answer)) writer.write(answer);
  writer.finish();
  if (options.with_code && format == report::Format::TABLE) {
    std::string text;
    for (const analysis::Fastest& f : found) text += code_block(f);
    report::write_all(out, text);
    std::fflush(out);
  }
}

void add_fastest_command(CLI::App& app, Commands& commands) {
  auto options = std::make_shared<FastestOptions>();
  CLI::App* cmd = app.add_subcommand(
      "fastest",
      "The fastest qualifying submission (lowest score) per leaderboard and runner, optionally of "
      "one user, with its code");
  add_data_options(*cmd, options->data);
  cmd->add_option("--problem,-p", options->problem, "Problem (leaderboard) name");
  cmd->add_option("--user-id", options->user_id,
                  "Only this user's submissions (platform id; legacy: the anonymised integer)");
  cmd->add_option("--user-name", options->user_name, "Only this user's submissions, by name");
  cmd->add_option("--runner", options->runner, "Only this runner (GPU), e.g. B200");
  cmd->add_option("--epoch", options->epoch,
                  "Only submissions of this harness epoch (0 before the first change)");
  cmd->add_flag("--with-code", options->with_code,
                "Also print the code (tables: below the rows; other formats: a code column)");
  add_exclude_flagged_option(*cmd, options->exclude_flagged);
  add_format_options(*cmd, options->format, options->out);
  cmd->footer(
      "\nA row qualifies when it has a score, passed, and is not marked hacked. One row per\n"
      "(leaderboard, runner) among the selected rows: the lowest score, ties by earliest\n"
      "submission, then lowest id. Scores are never compared across runners; legacy per-run\n"
      "files have no runner (docs/analyses.md).\n"
      "\nExamples:\n"
      "  kbdata fastest -p nvfp4_gemm\n"
      "  kbdata fastest -p trimul --user-name saton --with-code\n"
      "  kbdata fastest --runner B200 -f json\n"
      "  kbdata fastest -p nvfp4_gemm --exclude-flagged --with-code\n"
      "\nExit status: 0 success, 1 the input could not be read, 2 wrong usage.");
  commands.push_back({cmd, [options] { run_fastest(*options, command_out(), command_err()); }});
}

}  // namespace kbdata::cli
