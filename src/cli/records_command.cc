#include "cli/records_command.h"

#include <memory>

#include "analysis/records.h"
#include "cli/filter_checks.h"
#include "cli/flag_exclusion.h"
#include "cli/plots.h"
#include "common/error.h"
#include "dataset/loader.h"
#include "report/writer.h"

namespace kbdata::cli {
namespace {

constexpr const char* kRecordsRule =
    "kbdata records: per (leaderboard, runner), the qualifying rows (scored, passed, not hacked) "
    "in time order; a record is the first or one strictly below the record before it "
    "(docs/analyses.md)";

std::string problem_text(const RecordsOptions& o) {
  return o.problem ? *o.problem : "leaderboard " + std::to_string(*o.leaderboard);
}

std::string series_title(const analysis::RecordSeries& s) {
  std::string title = (s.problem_name.empty() ? "leaderboard" : s.problem_name) + " (" +
                      std::to_string(s.leaderboard_id) + ")";
  title += s.runner ? " on " + *s.runner : ", runner not recorded (legacy per-run file)";
  title += ": " + std::to_string(s.records.size()) +
           (s.records.size() == 1 ? " record" : " records") + " among " +
           std::to_string(s.qualifying_rows) + " qualifying rows";
  if (s.records.size() > 1) {
    char factor[64];
    std::snprintf(factor, sizeof factor, ", ×%.2f from the first to the last",
                  s.records.front().score / s.records.back().score);
    title += factor;
  }
  return title;
}

}  // namespace

void run_records(const RecordsOptions& options, std::FILE* out, std::FILE* err) {
  if (!options.problem && !options.leaderboard) {
    throw UsageError("records needs --problem NAME or --leaderboard ID");
  }
  const report::Format format = report::output_format(options.format, options.out);
  std::vector<report::Column> columns;
  if (format == report::Format::TABLE) {
    columns = {{"submission_time", report::ColumnType::TIMESTAMP},
               {"user", report::ColumnType::STRING},
               {"score", report::ColumnType::SCORE},
               {"previous", report::ColumnType::SCORE},
               {"factor", report::ColumnType::FACTOR},
               {"submission_id", report::ColumnType::INT64},
               {"runner", report::ColumnType::STRING}};
  } else {
    columns = {{"leaderboard_id", report::ColumnType::INT64},
               {"problem_name", report::ColumnType::STRING},
               {"runner", report::ColumnType::STRING},
               {"submission_time", report::ColumnType::TIMESTAMP},
               {"submission_id", report::ColumnType::INT64},
               {"user_id", report::ColumnType::STRING},
               {"user_name", report::ColumnType::STRING},
               {"score", report::ColumnType::SCORE},
               {"previous", report::ColumnType::SCORE},
               {"factor", report::ColumnType::FACTOR}};
  }
  // The data folder first: its files are inputs, which no output may replace (checked below).
  const dataset::DataDir dir = open_data_dir(options.data, err);
  report::Writer writer(format, columns, out, err, options.out, kRecordsRule);
  PlotTarget plot(options.plot);

  dataset::LoadOptions load;
  load.threads = options.data.threads.value_or(0);
  load.filter.problem = options.problem;
  load.filter.leaderboard_id = options.leaderboard;
  load.filter.runner = options.runner;
  load.filter.epoch = options.epoch;
  load.filter.scored_only = true;
  load.filter.passed_only = true;
  load.with_details = false;  // code_id, file_name and mode are not shown
  resolve_filter(dir, load.filter);
  exclude_flagged(options.exclude_flagged, dir, load, err);
  analysis::RecordsBuilder builder;
  load_submissions(
      dir, options.data, load, "records of " + problem_text(options),
      [&](dataset::Submission&& s) { builder.add(s); }, err);
  const std::vector<analysis::RecordSeries> all = builder.finish();
  if (all.empty()) {
    std::string what = problem_text(options);
    if (load.filter.runner) what += " on runner " + *load.filter.runner;
    report::write_all(err, "kbdata: no qualifying (scored, passed, not hacked) submissions for " +
                               what + why_empty(dir, load.filter) + "\n");
  }
  for (const analysis::RecordSeries& s : all) {
    writer.section(series_title(s));
    writer.leaderboard_shown(s.leaderboard_id, s.problem_name);
    for (const analysis::Record& r : s.records) {
      const report::Cell runner = result::optional_cell(s.runner);
      const report::Cell previous = result::optional_cell(r.previous);
      const report::Cell factor = result::optional_cell(r.factor);
      if (format == report::Format::TABLE) {
        const std::string& user = r.user_name && !r.user_name->empty() ? *r.user_name : r.user_id;
        writer.row({r.submission_time, user, r.score, previous, factor, r.submission_id, runner},
                   s.leaderboard_id, s.problem_name);
      } else {
        writer.row({s.leaderboard_id, s.problem_name, runner, r.submission_time, r.submission_id,
                    r.user_id, result::optional_cell(r.user_name), r.score, previous, factor},
                   s.leaderboard_id, s.problem_name);
      }
    }
  }
  if (plot.wanted()) {
    if (all.empty()) throw Error("nothing to plot: no qualifying submissions");
    plot.write(records_chart(all), err);
  }
  if (options.svg != nullptr && !all.empty()) *options.svg = plot::render_svg(records_chart(all));
  writer.finish();
}

void add_records_command(CLI::App& app, Commands& commands) {
  auto options = std::make_shared<RecordsOptions>();
  CLI::App* cmd = app.add_subcommand(
      "records",
      "A leaderboard's record over time, per runner: who set each new best score and by how "
      "much; --plot draws the record curve");
  add_data_options(*cmd, options->data);
  cmd->add_option("--problem,-p", options->problem, "Problem (leaderboard) name");
  cmd->add_option("--leaderboard", options->leaderboard, "Leaderboard id");
  cmd->add_option("--runner", options->runner, "Only this runner (GPU), e.g. B200");
  cmd->add_option("--epoch", options->epoch,
                  "Only submissions of this harness epoch (0 before the first change)");
  cmd->add_option("--plot", options->plot, "Also draw the record curve as an SVG file");
  add_exclude_flagged_option(*cmd, options->exclude_flagged);
  add_format_options(*cmd, options->format, options->out);
  cmd->footer(
      "\nA record is a qualifying row (scored, passed, not hacked) strictly faster than every\n"
      "earlier one on its runner (docs/analyses.md).\n"
      "\nExamples:\n"
      "  kbdata records -p nvfp4_gemm\n"
      "  kbdata records -p trimul --runner H100 --plot trimul-h100.svg\n"
      "  kbdata records --leaderboard 697 -f json\n"
      "  kbdata records -p trimul --exclude-flagged=cheat\n"
      "\nExit status: 0 success, 1 the input could not be read, 2 wrong usage.");
  commands.push_back({cmd, [options] { run_records(*options, stdout, stderr); }});
}

}  // namespace kbdata::cli
