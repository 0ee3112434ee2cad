#include "cli/progression_command.h"

#include <memory>
#include <variant>

#include "cli/embedded.h"
#include "cli/filter_checks.h"
#include "cli/plots.h"
#include "cli/threads.h"
#include "common/error.h"
#include "dataset/loader.h"
#include "query/charts.h"
#include "query/progression.h"
#include "report/writer.h"

namespace kbdata::cli {
namespace {

// The answer as a table for people leaves out what the section titles say (leaderboard, problem,
// user) and marks a new best with "*"; the machine formats carry every column.
std::vector<report::Column> progression_people_columns() {
  return {{"submission_time", report::ColumnType::TIMESTAMP},
          {"submission_id", report::ColumnType::INT64},
          {"runner", report::ColumnType::STRING},
          {"status", report::ColumnType::STRING},
          {"score", report::ColumnType::SCORE},
          {"best", report::ColumnType::SCORE},
          {"new_best", report::ColumnType::STRING},
          {"vs_previous", report::ColumnType::FACTOR},
          {"vs_first", report::ColumnType::FACTOR}};
}

// From progression_columns(): 4 submission_id, 5 submission_time, 6 runner, 7 status, 9 score,
// 11 best, 12 improved, 13 factor_previous, 14 factor_first.
std::vector<report::Cell> progression_people_row(std::vector<report::Cell>&& cells) {
  const bool improved = std::get<bool>(cells[12]);
  const bool has_previous = !std::holds_alternative<std::monostate>(cells[13]);
  return {std::move(cells[5]),
          std::move(cells[4]),
          std::move(cells[6]),
          std::move(cells[7]),
          std::move(cells[9]),
          std::move(cells[11]),
          improved ? report::Cell{std::string("*")} : report::Cell{},
          std::move(cells[13]),
          has_previous ? std::move(cells[14]) : report::Cell{}};
}

}  // namespace

void run_progression(const ProgressionOptions& options, std::FILE* out, std::FILE* err) {
  if (options.user.empty()) throw UsageError("progression needs --user ID_OR_NAME");
  const report::Format format = report::output_format(options.format, options.out);
  // The data folder first: its files are inputs, which no output may replace (checked below).
  const dataset::DataDir dir = open_data_dir(options.data, err);
  report::Writer writer(
      format,
      format == report::Format::TABLE ? progression_people_columns() : query::progression_columns(),
      out, err, options.out, query::kProgressionRule, command_threads(options.data.threads));
  PlotTarget plot(options.plot);  // checks the path before the data is read

  dataset::Filter filter;
  filter.problem = options.problem;
  filter.leaderboard_id = options.leaderboard;
  filter.runner = options.runner;
  filter.epoch = options.epoch;
  resolve_filter(dir, filter);
  query::ProgressionQuery progression({.user = options.user});
  const dataset::LoadOptions load = progression.load(filter, command_threads(options.data.threads),
                                                     query_loader(dir, options.data, err));
  if (progression.empty()) {
    std::string where = options.problem ? " on " + *options.problem
                        : options.leaderboard
                            ? " on leaderboard " + std::to_string(*options.leaderboard)
                            : "";
    if (load.filter.runner) where += " on runner " + *load.filter.runner;
    const std::string why = why_empty(dir, load.filter);
    throw NotFoundError("no submissions of user '" + options.user + "'" + where +
                        (why.empty() ? " (--user takes a user id or a user name)" : why));
  }

  result::ResultTable answer = progression.finish();
  const std::vector<analysis::Progression>& progressions = progression.progressions();
  if (format == report::Format::TABLE) {
    result::ResultTable people =
        result::map_rows(answer, progression_people_columns(), progression_people_row);
    people.summary(
        "\n* a new best on its runner; vs_previous: the previous best / this score; vs_first: the "
        "first qualifying score / this score");
    writer.write(people);
  } else {
    if (!hand_over(answer)) writer.write(answer);
  }
  if (plot.wanted()) {
    if (progressions.size() > 1) {
      throw UsageError("--plot draws one problem; this user has submissions on " +
                       std::to_string(progressions.size()) + " problems: add --problem");
    }
    plot.write(query::progression_chart(progressions.front()), err);
  }
  if (options.svg != nullptr && progressions.size() == 1) {
    *options.svg = plot::render_svg(query::progression_chart(progressions.front()));
  }
  writer.finish();
}

void add_progression_command(CLI::App& app, Commands& commands) {
  auto options = std::make_shared<ProgressionOptions>();
  CLI::App* cmd = app.add_subcommand(
      "progression",
      "One user's submissions in time order: score, running best, improvements and their "
      "factors; --plot draws it");
  add_data_options(*cmd, options->data);
  cmd->add_option("--user,-u", options->user, "User id or user name")->required();
  cmd->add_option("--problem,-p", options->problem, "Problem (leaderboard) name");
  cmd->add_option("--leaderboard", options->leaderboard, "Leaderboard id");
  cmd->add_option("--runner", options->runner, "Only this runner (GPU), e.g. B200");
  cmd->add_option("--epoch", options->epoch,
                  "Only submissions of this harness epoch (0 before the first change)");
  cmd->add_option("--plot", options->plot,
                  "Also draw score over time (log axis), the running best and the improvements "
                  "as an SVG file");
  add_format_options(*cmd, options->format, options->out);
  cmd->footer(
      "\nThe running best is kept per runner over the qualifying rows (scored, passed, not\n"
      "hacked); a row marked * set a new best (docs/analyses.md).\n"
      "\nExamples:\n"
      "  kbdata progression --user warpne -p nvfp4_gemm\n"
      "  kbdata progression --user 1073720375606738072 -p nvfp4_gemm --plot warpne.svg\n"
      "  kbdata progression --user warpne -f csv > warpne.csv\n"
      "\nExit status: 0 success, 1 no such user or unreadable input, 2 wrong usage.");
  commands.push_back({cmd, [options] { run_progression(*options, command_out(), command_err()); }});
}

}  // namespace kbdata::cli
