#include "cli/top_command.h"

#include <iterator>
#include <memory>
#include <variant>

#include "analysis/noise.h"
#include "cli/embedded.h"
#include "cli/filter_checks.h"
#include "cli/flag_exclusion.h"
#include "cli/threads.h"
#include "common/error.h"
#include "dataset/loader.h"
#include "query/noise.h"
#include "query/top.h"
#include "report/writer.h"

namespace kbdata::cli {
namespace {

std::string problem_text(const TopOptions& o) {
  return o.problem ? *o.problem : "leaderboard " + std::to_string(*o.leaderboard);
}

// The answer as a table for people names the user once (the name, else the id) and leaves out
// what the section titles say (leaderboard, problem); the machine formats carry them all.
std::vector<report::Column> people_columns(const std::vector<report::Column>& answer) {
  std::vector<report::Column> columns = {answer[2], {"user", report::ColumnType::STRING}};
  columns.insert(columns.end(), answer.begin() + 5, answer.end());
  return columns;
}

std::vector<report::Cell> people_row(std::vector<report::Cell>&& cells) {
  const auto* name = std::get_if<std::string>(&cells[4]);
  report::Cell user = name != nullptr && !name->empty() ? cells[4] : cells[3];
  std::vector<report::Cell> row = {std::move(cells[2]), std::move(user)};
  row.insert(row.end(), std::make_move_iterator(cells.begin() + 5),
             std::make_move_iterator(cells.end()));
  return row;
}

}  // namespace

void run_top(const TopOptions& options, std::FILE* out, std::FILE* err) {
  if (!options.problem && !options.leaderboard) {
    throw UsageError("top needs --problem NAME or --leaderboard ID");
  }
  if (options.limit < 0) {
    throw UsageError("--limit " + std::to_string(options.limit) + ": must be 0 (everyone) or more");
  }
  const report::Format format = report::output_format(options.format, options.out);
  const std::vector<report::Column> columns = query::top_columns(options.uncertainty);
  // The data folder first: its files are inputs, which no output may replace (checked below).
  const dataset::DataDir dir = open_data_dir(options.data, err);
  report::Writer writer(format, format == report::Format::TABLE ? people_columns(columns) : columns,
                        out, err, options.out, query::kTopRule,
                        command_threads(options.data.threads));

  query::TopQuery top({.limit = options.limit, .uncertainty = options.uncertainty});
  dataset::Filter filter;
  filter.problem = options.problem;
  filter.leaderboard_id = options.leaderboard;
  filter.runner = options.runner;
  filter.epoch = options.epoch;
  dataset::LoadOptions load = top.load_options(filter, command_threads(options.data.threads));
  resolve_filter(dir, load.filter);
  exclude_flagged(options.exclude_flagged, dir, load, err);
  load_submissions(
      dir, options.data, load, "ranking " + problem_text(options),
      [&](dataset::Submission&& s) { top.add(s); }, err);
  std::vector<analysis::SeriesNoise> noise;
  if (options.uncertainty) {
    dataset::Filter noise_filter = load.filter;
    noise_filter.scored_only = false;  // consecutive versions are consecutive whatever the outcome
    noise_filter.passed_only = false;
    noise = query::measure_noise(noise_filter, command_threads(options.data.threads), 0.98,
                                 query_loader(dir, options.data, err));
  }
  result::ResultTable answer = top.finish(noise);
  if (answer.sections().empty()) {
    std::string what = problem_text(options);
    if (load.filter.runner) what += " on runner " + *load.filter.runner;
    report::write_all(err, "kbdata: no qualifying (scored, passed, not hacked) submissions for " +
                               what + why_empty(dir, load.filter) + "\n");
  }
  if (format == report::Format::TABLE) {
    result::ResultTable people = result::map_rows(answer, people_columns(columns), people_row);
    writer.write(people);
  } else {
    if (!hand_over(answer)) writer.write(answer);
  }
  writer.finish();
}

void add_top_command(CLI::App& app, Commands& commands) {
  auto options = std::make_shared<TopOptions>();
  CLI::App* cmd = app.add_subcommand(
      "top",
      "A problem's leaderboard: each user's best qualifying score, ranked (SQL RANK(): ties share "
      "a rank), one ranking per runner");
  add_data_options(*cmd, options->data);
  cmd->add_option("--problem,-p", options->problem, "Problem (leaderboard) name");
  cmd->add_option("--leaderboard", options->leaderboard, "Leaderboard id");
  cmd->add_option("--runner", options->runner, "Only this runner (GPU), e.g. B200");
  cmd->add_option("-n,--limit", options->limit,
                  "Show ranks 1..N (users tied at rank N all stay); 0 shows everyone")
      ->capture_default_str();
  cmd->add_option("--epoch", options->epoch,
                  "Only submissions of this harness epoch (0 before the first change)");
  cmd->add_flag("--uncertainty", options->uncertainty,
                "Add each score's 95% interval from the measured noise (reads the code), the "
                "measurements behind it, the ranks it could hold and tied marks");
  add_exclude_flagged_option(*cmd, options->exclude_flagged);
  add_format_options(*cmd, options->format, options->out);
  cmd->footer(
      "\nA row qualifies when it has a score, passed, and is not marked hacked; each user's best\n"
      "row counts (ties: earliest submission, then lowest id). Legacy per-run files have no\n"
      "runner: their rows form one ranking per leaderboard (docs/analyses.md).\n"
      "\nExamples:\n"
      "  kbdata top -p nvfp4_gemm\n"
      "  kbdata top -p trimul --runner H100 -n 20\n"
      "  kbdata top --leaderboard 697 -n 0 -f csv > ranking.csv\n"
      "  kbdata top -p nvfp4_dual_gemm --uncertainty\n"
      "  kbdata top -p nvfp4_dual_gemm --exclude-flagged\n"
      "\nExit status: 0 success, 1 the input could not be read, 2 wrong usage.");
  commands.push_back({cmd, [options] { run_top(*options, command_out(), command_err()); }});
}

}  // namespace kbdata::cli
