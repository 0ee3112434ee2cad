#include "cli/submissions_command.h"

#include <algorithm>
#include <memory>

#include "cli/data_options.h"
#include "cli/embedded.h"
#include "cli/filter_checks.h"
#include "cli/progress.h"
#include "cli/row_filter_options.h"
#include "cli/threads.h"
#include "common/closest_name.h"
#include "common/error.h"
#include "dataset/loader.h"
#include "query/submissions.h"
#include "report/submissions.h"
#include "report/text.h"

namespace kbdata::cli {

dataset::Filter build_filter(const SubmissionsOptions& o) {
  dataset::Filter f;
  f.problem = o.problem;
  f.leaderboard_id = o.leaderboard;
  f.user_id = o.user_id;
  f.user_name = o.user_name;
  f.runner = o.runner;
  f.passed_only = o.passed;
  f.scored_only = o.scored;
  set_time_range(f, o.since, o.until);
  return f;
}

namespace {

// The filters as typed, for a message: "--problem x, --runner y".
std::string filter_text(const SubmissionsOptions& o) {
  std::vector<std::string> parts;
  if (o.problem) parts.push_back("--problem " + *o.problem);
  if (o.leaderboard) parts.push_back("--leaderboard " + std::to_string(*o.leaderboard));
  if (o.user_id) parts.push_back("--user-id " + *o.user_id);
  if (o.user_name) parts.push_back("--user-name " + *o.user_name);
  if (o.runner) parts.push_back("--runner " + *o.runner);
  if (o.passed) parts.push_back("--passed");
  if (o.scored) parts.push_back("--scored");
  if (o.since) parts.push_back("--since " + *o.since);
  if (o.until) parts.push_back("--until " + *o.until);
  std::string text;
  for (const std::string& p : parts) text += (text.empty() ? "" : " ") + p;
  return text;
}

}  // namespace

void run_submissions(const SubmissionsOptions& options, std::FILE* out, std::FILE* err) {
  const report::Format format = report::output_format(options.format, options.out);
  dataset::Filter filter = build_filter(options);
  refuse_repeated_columns(options.columns);
  const std::vector<std::string>& known = report::selectable_submission_fields();
  for (const std::string& name : options.columns) {
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    std::string list;
    for (const std::string& f : known) list += (list.empty() ? "" : ", ") + f;
    throw UsageError("no field '" + name + "'" + did_you_mean(name, known) +
                     " (the fields: " + list + ")");
  }
  const query::SubmissionsRequest request{.filter = std::move(filter),
                                          .columns = options.columns,
                                          .with_code = options.with_code,
                                          .for_people = format == report::Format::TABLE,
                                          .threads = command_threads(options.data.threads)};
  const std::vector<std::string> fields = query::submissions_fields(request);
  dataset::LoadOptions load = query::submissions_load(request, fields);

  // The writer checks the fields (and --out) before anything is read.
  // The data folder first: its files are inputs, which no output may replace (checked below).
  const dataset::DataDir dir = open_data_dir(options.data, err);
  resolve_filter(dir, load.filter);
  dataset::LoadStats stats;
  uint64_t rows = 0;
  if (embedded_run() != nullptr) {
    // Embedded (the Python module): the rows as a result table, handed over, or streamed batch
    // by batch as the scan delivers them when the caller takes them so.
    // The progress line when the caller shows one (a terminal, a notebook); it also checks for
    // Ctrl-C.
    query::SubmissionsQuery answer(fields);
    stream_rows(answer.table());
    Progress progress(err, "submissions");
    dataset::load_dir(
        dir, load,
        [&](dataset::Submission&& s) {
          progress.update(stats.rows_read, "rows read");
          answer.add(s);
          stream_rows(answer.table());
        },
        stats);
    progress.finish();
    rows = static_cast<uint64_t>(answer.rows());
    (void)hand_over(answer.finish());
  } else {
    report::SubmissionWriter writer(format, fields, out, err, options.out, load.threads);
    dataset::load_dir(
        dir, load, [&](dataset::Submission&& s) { writer.write(s); }, stats);
    writer.finish();
    rows = writer.rows();
  }
  report_load(options.data, stats, err);
  if (rows == 0) {
    report::write_all(
        err, "kbdata: no submissions" +
                 (load.filter.empty() ? "" : " match the filters (" + filter_text(options) + ")") +
                 " in " + dir.path + why_empty(dir, load.filter) + "\n");
  }
}

void add_submissions_command(CLI::App& app, Commands& commands) {
  auto options = std::make_shared<SubmissionsOptions>();
  CLI::App* cmd = app.add_subcommand(
      "submissions",
      "List the submissions of a data folder (flat and legacy files in one model), filtered");
  add_data_options(*cmd, options->data);
  cmd->footer(
      "\nExamples:\n"
      "  kbdata submissions --data ~/kernelbot -p nvfp4_gemm --scored --since 2025-10-01\n"
      "  kbdata submissions -p amd-fp8-mm --user-id 17 --with-code -f jsonl\n"
      "  kbdata submissions --runner B200 --passed -f parquet -o passing.parquet --with-code\n"
      "  kbdata submissions -p nvfp4_gemm --columns "
      "submission_id,user_name,score,language,features\n"
      "\nExit status: 0 success, 1 the input could not be read, 2 wrong usage (an unknown\n"
      "problem lists the folder's problems).");
  cmd->add_option("--problem,-p", options->problem, "Problem (leaderboard) name");
  cmd->add_option("--leaderboard", options->leaderboard, "Leaderboard id");
  cmd->add_option("--user-id", options->user_id,
                  "Platform user id (legacy: the anonymised integer)");
  cmd->add_option("--user-name", options->user_name, "User name");
  cmd->add_option("--runner", options->runner, "Runner (GPU), e.g. B200");
  cmd->add_flag("--passed", options->passed, "Only submissions whose run passed");
  cmd->add_flag("--scored", options->scored, "Only submissions with a score");
  cmd->add_option("--since", options->since,
                  "Submitted at or after this UTC time (YYYY-MM-DD[THH:MM[:SS]])");
  cmd->add_option("--until", options->until, "Submitted before this UTC time");
  cmd->add_option("--columns,-c", options->columns,
                  "Fields to print, comma-separated, in this order")
      ->delimiter(',');
  cmd->add_flag("--with-code", options->with_code, "Also read and print the code");
  add_format_options(*cmd, options->format, options->out);
  commands.push_back({cmd, [options] { run_submissions(*options, command_out(), command_err()); }});
}

}  // namespace kbdata::cli
