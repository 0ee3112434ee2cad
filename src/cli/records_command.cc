#include "cli/records_command.h"

#include <memory>
#include <variant>

#include "cli/embedded.h"
#include "cli/filter_checks.h"
#include "cli/flag_exclusion.h"
#include "cli/plots.h"
#include "cli/threads.h"
#include "common/error.h"
#include "dataset/loader.h"
#include "query/charts.h"
#include "query/records.h"
#include "report/writer.h"

namespace kbdata::cli {
namespace {

std::string records_problem_text(const RecordsOptions& o) {
  return o.problem ? *o.problem : "leaderboard " + std::to_string(*o.leaderboard);
}

// The answer as a table for people names the user once (the name, else the id) and leaves out
// what the section titles say (leaderboard, problem); the machine formats carry them all.
std::vector<report::Column> records_people_columns(const std::vector<report::Column>& answer) {
  return {
      answer[3], {"user", report::ColumnType::STRING}, answer[7], answer[8], answer[9], answer[4],
      answer[2]};
}

std::vector<report::Cell> records_people_row(std::vector<report::Cell>&& cells) {
  const auto* name = std::get_if<std::string>(&cells[6]);
  report::Cell user = name != nullptr && !name->empty() ? cells[6] : cells[5];
  return {std::move(cells[3]), std::move(user),     std::move(cells[7]), std::move(cells[8]),
          std::move(cells[9]), std::move(cells[4]), std::move(cells[2])};
}

}  // namespace

void run_records(const RecordsOptions& options, std::FILE* out, std::FILE* err) {
  if (!options.problem && !options.leaderboard) {
    throw UsageError("records needs --problem NAME or --leaderboard ID");
  }
  const report::Format format = report::output_format(options.format, options.out);
  const std::vector<report::Column> columns = query::records_columns();
  // The data folder first: its files are inputs, which no output may replace (checked below).
  const dataset::DataDir dir = open_data_dir(options.data, err);
  report::Writer writer(
      format, format == report::Format::TABLE ? records_people_columns(columns) : columns, out, err,
      options.out, query::kRecordsRule, command_threads(options.data.threads));
  PlotTarget plot(options.plot);

  dataset::Filter filter;
  filter.problem = options.problem;
  filter.leaderboard_id = options.leaderboard;
  filter.runner = options.runner;
  filter.epoch = options.epoch;
  dataset::LoadOptions load =
      query::RecordsQuery::load_options(filter, command_threads(options.data.threads));
  resolve_filter(dir, load.filter);
  exclude_flagged(options.exclude_flagged, dir, load, err);
  query::RecordsQuery records;
  load_submissions(
      dir, options.data, load, "records of " + records_problem_text(options),
      [&](dataset::Submission&& s) { records.add(s); }, err);
  result::ResultTable answer = records.finish();
  const std::vector<analysis::RecordSeries>& all = records.series();
  if (all.empty()) {
    std::string what = records_problem_text(options);
    if (load.filter.runner) what += " on runner " + *load.filter.runner;
    report::write_all(err, "kbdata: no qualifying (scored, passed, not hacked) submissions for " +
                               what + why_empty(dir, load.filter) + "\n");
  }
  if (format == report::Format::TABLE) {
    result::ResultTable people =
        result::map_rows(answer, records_people_columns(columns), records_people_row);
    writer.write(people);
  } else {
    if (!hand_over(answer)) writer.write(answer);
  }
  if (plot.wanted()) {
    if (all.empty()) throw Error("nothing to plot: no qualifying submissions");
    plot.write(query::records_chart(all), err);
  }
  if (options.svg != nullptr && !all.empty())
    *options.svg = plot::render_svg(query::records_chart(all));
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
  commands.push_back({cmd, [options] { run_records(*options, command_out(), command_err()); }});
}

}  // namespace kbdata::cli
