#include "cli/techniques_command.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "analysis/technique_trend.h"
#include "cli/embedded.h"
#include "cli/filter_checks.h"
#include "cli/flag_exclusion.h"
#include "cli/plots.h"
#include "cli/progress.h"
#include "cli/threads.h"
#include "common/error.h"
#include "query/charts.h"
#include "query/techniques.h"
#include "report/text.h"
#include "report/writer.h"
#include "techniques/techniques.h"

namespace kbdata::cli {
namespace {

// The rows the trend left out for lying apart in time (analysis::technique_trend), named on
// stderr: each leaderboard's first few, then how many more. "" when there are none.
std::string outliers_note(const std::vector<analysis::TrendOutlier>& outliers) {
  constexpr size_t kNamed = 5;
  std::string text;
  for (size_t k = 0; k < outliers.size();) {
    const analysis::TrendOutlier& first = outliers[k];
    size_t end = k;
    while (end < outliers.size() && outliers[end].leaderboard_id == first.leaderboard_id) ++end;
    text += "kbdata: note: " + std::to_string(end - k) + " row(s) of " +
            report::terminal_text(first.problem_name, false) + " (" +
            std::to_string(first.leaderboard_id) + ") lie apart from its competition (more than " +
            std::to_string(analysis::kTrendGapWeeks) +
            " weeks from the other rows) and are left out of the trend's weeks:";
    for (size_t i = k; i < end && i < k + kNamed; ++i) {
      text += std::string(i > k ? "," : "") + " submission " +
              std::to_string(outliers[i].submission_id) + " at " +
              report::time_text(outliers[i].submission_time);
    }
    if (end - k > kNamed) text += " and " + std::to_string(end - k - kNamed) + " more";
    text += "\n";
    k = end;
  }
  return text;
}

}  // namespace

namespace {

// --trend and --winners: every row's technique, then the report over the rows of the problem.
void run_techniques_report(const TechniquesOptions& options, const dataset::LoadOptions& load,
                           size_t top, PlotTarget& plot, std::FILE* out, std::FILE* err) {
  dataset::LoadOptions rows_load = load;
  const dataset::DataDir dir = open_data_dir(options.data, err);
  resolve_filter(dir, rows_load.filter);
  report::Writer writer(report::output_format(options.format, options.out),
                        options.trend ? query::trend_columns() : query::winners_columns(), out, err,
                        options.out, options.trend ? query::kTrendRule : query::kWinnersRule,
                        command_threads(options.data.threads));
  exclude_flagged(options.exclude_flagged, dir, rows_load, err);
  std::vector<analysis::TechniqueRow> rows;
  dataset::LoadStats stats;
  Progress progress(err, "techniques");
  uint64_t without_code = 0;
  dataset::load_dir(
      dir, rows_load,
      [&](dataset::Submission&& s) {
        progress.update(rows.size() + without_code + 1, "rows");
        if (!s.prepared.has_value()) {
          ++without_code;
          return;
        }
        const auto t = std::any_cast<techniques::Techniques>(s.prepared);
        s.prepared.reset();
        rows.push_back({std::move(s), t});
      },
      stats);
  progress.finish();
  report_load(options.data, stats, err);
  if (rows.empty()) {
    report::write_all(err, "kbdata: no submissions with code" + why_empty(dir, rows_load.filter) +
                               " in " + dir.path + "\n");
    if (hand_over(
            result::ResultTable(options.trend ? query::trend_columns() : query::winners_columns(),
                                options.trend ? query::kTrendRule : query::kWinnersRule))) {
      return;
    }
    writer.finish();
    return;
  }
  if (without_code > 0) {
    report::write_all(err, "kbdata: " + std::to_string(without_code) +
                               " submission rows have no code and are left out\n");
  }
  std::set<std::string> runners;
  for (const analysis::TechniqueRow& r : rows) {
    if (dataset::qualifies(r.row) && r.row.runner) runners.insert(*r.row.runner);
  }
  const std::optional<std::string> runner = analysis::ranking_runner(rows);
  if (runners.size() > 1 && runner) {
    report::write_all(err, "kbdata: note: the ranking is on " + *runner +
                               ", the runner with the most scores; --runner picks another\n");
  }
  if (options.trend) {
    query::TrendAnswer answer = query::techniques_trend(rows, top);
    report::write_all(err, outliers_note(answer.trend.outliers));
    if (!hand_over(answer.table)) writer.write(answer.table);
    writer.finish();
    const std::vector<analysis::TrendRow>& trend = answer.trend.rows;
    if (plot.wanted() && !trend.empty()) plot.write(query::techniques_trend_chart(trend, top), err);
    if (options.svg != nullptr && !trend.empty()) {
      *options.svg = plot::render_small_multiples(query::techniques_trend_chart(trend, top));
    }
  } else {
    result::ResultTable answer = query::techniques_winners(rows, top);
    if (!hand_over(answer)) writer.write(answer);
    writer.finish();
  }
}

}  // namespace

void run_techniques(const TechniquesOptions& options, std::FILE* out, std::FILE* err) {
  const report::Format format = report::output_format(options.format, options.out);
  dataset::LoadOptions load = query::techniques_load_options(row_selection_filter(options.rows),
                                                             command_threads(options.data.threads));
  if (options.trend && options.winners) {
    throw UsageError("--trend and --winners are two reports: give one of them");
  }
  const bool report_over_rows = options.trend || options.winners;
  if (report_over_rows && !options.rows.problem) {
    throw UsageError(std::string(options.trend ? "--trend" : "--winners") +
                     " reads one problem: give it with --problem (-p)");
  }
  if (options.plot && !options.trend) throw UsageError("--plot draws the --trend report");
  if (options.top && !report_over_rows) {
    throw UsageError("--top sizes the top of --trend and --winners");
  }
  if (options.top && *options.top < 1) {
    throw UsageError("--top " + std::to_string(*options.top) + ": expected 1 or more");
  }
  const size_t top = static_cast<size_t>(options.top.value_or(10));
  PlotTarget plot(options.plot);

  if (report_over_rows) {
    run_techniques_report(options, load, top, plot, out, err);
    return;
  }
  const dataset::DataDir dir = open_data_dir(options.data, err);
  resolve_filter(dir, load.filter);
  report::Writer writer(format, query::techniques_columns(), out, err, options.out,
                        query::kTechniquesRule, command_threads(options.data.threads));
  exclude_flagged(options.exclude_flagged, dir, load, err);

  query::TechniquesQuery techniques;
  dataset::LoadStats stats;
  Progress progress(err, "techniques");
  uint64_t seen = 0;
  uint64_t without_code = 0;
  dataset::load_dir(
      dir, load,
      [&](dataset::Submission&& s) {
        progress.update(++seen, "rows");
        if (!s.prepared.has_value()) {
          ++without_code;
          return;
        }
        techniques.add(s, std::any_cast<const techniques::Techniques&>(s.prepared));
      },
      stats);
  progress.finish();
  // Written before the load's report, as rows streamed while loading were (the leaderboards'
  // reliability notes of CSV and Parquet go to stderr as their first row is written).
  result::ResultTable answer = techniques.finish();
  if (!hand_over(answer)) writer.write(answer);
  report_load(options.data, stats, err);
  if (seen == 0) {
    report::write_all(
        err, "kbdata: no submissions" + why_empty(dir, load.filter) + " in " + dir.path + "\n");
  } else if (without_code > 0) {
    report::write_all(err, "kbdata: " + std::to_string(without_code) +
                               " submission rows have no code and are left out\n");
  }
  writer.finish();
}

void add_techniques_command(CLI::App& app, Commands& commands) {
  auto options = std::make_shared<TechniquesOptions>();
  CLI::App* cmd = app.add_subcommand(
      "techniques",
      "What each kernel uses: the technology of its hot loop (triton, cuda, hip, cute_dsl, "
      "helion, thunderkittens, library, pytorch, cuda_file), feature tags (tensor_cores, tma, "
      "fp8, ...) and sizes");
  add_data_options(*cmd, options->data);
  add_row_selection_options(*cmd, options->rows);
  cmd->add_flag("--trend", options->trend,
                "Per week of the problem's competition: the share of submissions, of users and "
                "of the week's top users' best kernels using each language and feature "
                "(needs --problem)");
  cmd->add_flag("--winners", options->winners,
                "Per language and feature: its share among the top users' best kernels against "
                "the rest, with the median score with and without it (needs --problem)");
  cmd->add_option("--top", options->top,
                  "The top's size for --trend and --winners: users ranked at most K (default 10)");
  add_exclude_flagged_option(*cmd, options->exclude_flagged);
  cmd->add_option("--plot", options->plot,
                  "With --trend: draw it as small multiples, one panel per tag, into FILE.svg");
  add_format_options(*cmd, options->format, options->out);
  cmd->footer(
      "\nColumns (docs/techniques.md): language (the first present of thunderkittens,\n"
      "cute_dsl, helion, triton, hip, cuda, cuda_file, library, pytorch, python),\n"
      "languages_all, features (tensor_cores, tma, async_copy, shared_memory, mbarrier,\n"
      "warp_specialization, persistent, fp8, fp4, autotune, cuda_graphs, streams, split_k),\n"
      "autotune_configs, lines, kernel_lines, kernels, shape_branches. Read from the tokens of\n"
      "the Python and of the CUDA/HIP sources it embeds: never comments, docstrings or parts of\n"
      "names. A table ends with a summary per leaderboard: languages and features by share.\n"
      "\nExamples:\n"
      "  kbdata techniques -p nvfp4_gemm\n"
      "  kbdata techniques --data ~/kernelbot -f parquet -o techniques.parquet\n"
      "  kbdata techniques -p amd-fp8-mm --user saton -f jsonl\n"
      "  kbdata techniques --trend -p nvfp4_gemm --plot nvfp4-techniques.svg\n"
      "  kbdata techniques --winners -p nvfp4_gemm --top 20\n"
      "  kbdata techniques --winners -p nvfp4_gemm --exclude-flagged\n"
      "\nExit status: 0 success, 1 the input could not be read, 2 wrong usage.");
  commands.push_back({cmd, [options] { run_techniques(*options, command_out(), command_err()); }});
}

}  // namespace kbdata::cli
