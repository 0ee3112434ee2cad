#include "cli/techniques_command.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "analysis/technique_trend.h"
#include "cli/filter_checks.h"
#include "cli/flag_exclusion.h"
#include "cli/plots.h"
#include "cli/progress.h"
#include "common/error.h"
#include "report/submissions.h"
#include "report/text.h"
#include "report/writer.h"
#include "techniques/techniques.h"

namespace kbdata::cli {
namespace {

constexpr const char* kTechniquesRule =
    "kbdata techniques: per submission row with code, the technology that runs its hot loop "
    "(language), every technology present, feature tags and sizes, read from the tokens of its "
    "Python and of the C++ it embeds, never from comments, docstrings or parts of names "
    "(docs/techniques.md)";

// Per leaderboard, for the table's footer: rows, and rows per language and per feature.
struct LeaderboardCounts {
  std::string problem_name;
  uint64_t rows = 0;
  std::array<uint64_t, techniques::kLanguages> languages{};
  std::array<uint64_t, techniques::kFeatures> features{};
};

std::string percent(uint64_t n, uint64_t of) {
  const double p = of == 0 ? 0 : 100.0 * static_cast<double>(n) / static_cast<double>(of);
  char buf[16];
  std::snprintf(buf, sizeof buf, p < 1 && n > 0 ? "%.1f%%" : "%.0f%%", p);
  return buf;
}

std::string summary_line(int64_t id, const LeaderboardCounts& c) {
  std::string line = (c.problem_name.empty() ? "leaderboard" : c.problem_name) + " (" +
                     std::to_string(id) + "): " + std::to_string(c.rows) + " rows; language ";
  std::vector<std::pair<uint64_t, size_t>> order;
  for (size_t i = 0; i < c.languages.size(); ++i) {
    if (c.languages[i] > 0) order.emplace_back(c.languages[i], i);
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& x, const auto& y) { return x.first > y.first; });
  for (size_t i = 0; i < order.size(); ++i) {
    line += (i > 0 ? ", " : "") +
            std::string(techniques::to_string(static_cast<techniques::Language>(order[i].second))) +
            " " + percent(order[i].first, c.rows);
  }
  std::string features;
  for (size_t i = 0; i < c.features.size(); ++i) {
    if (c.features[i] == 0) continue;
    features += (features.empty() ? "" : ", ") +
                std::string(techniques::to_string(static_cast<techniques::Feature>(i))) + " " +
                percent(c.features[i], c.rows);
  }
  if (!features.empty()) line += "; features " + features;
  return line;
}

constexpr const char* kTrendRule =
    "kbdata techniques --trend: per week of the competition (week 1 starts at the problem's first "
    "submission), the share of the week's submissions and users using each language (the hot "
    "loop's) and feature, and the share among the best kernels of the top users of the ranking at "
    "the week's end (the platform's ranking rules, on the runner with the most scores)";
constexpr const char* kWinnersRule =
    "kbdata techniques --winners: per language and feature, its share among the best kernels of "
    "the top users of the final ranking (ties at the cut stay) against the other ranked users' "
    "best kernels, and the median score of the best kernels with it against those without it "
    "(ratio below 1: faster with it)";

report::Cell share(uint64_t n, uint64_t of) {
  if (of == 0) return {};
  return static_cast<double>(n) / static_cast<double>(of);
}

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

void write_trend(const std::vector<analysis::TrendRow>& rows, report::Writer& writer) {
  for (const analysis::TrendRow& r : rows) {
    writer.row(
        {r.leaderboard_id, r.problem_name, report::optional_cell(r.runner), r.week, r.week_start,
         std::string(r.tag.kind()), std::string(r.tag.name()), static_cast<int64_t>(r.submissions),
         share(r.submissions, r.week_submissions), static_cast<int64_t>(r.users),
         share(r.users, r.week_users), static_cast<int64_t>(r.top),
         static_cast<int64_t>(r.top_size), share(r.top, r.top_size)},
        r.leaderboard_id, r.problem_name);
  }
}

void write_winners(const std::vector<analysis::WinnersRow>& rows, report::Writer& writer) {
  for (const analysis::WinnersRow& r : rows) {
    report::Cell ratio;
    if (r.median_with && r.median_without && *r.median_without > 0) {
      ratio = *r.median_with / *r.median_without;
    }
    writer.row(
        {r.leaderboard_id, r.problem_name, report::optional_cell(r.runner),
         std::string(r.tag.kind()), std::string(r.tag.name()), static_cast<int64_t>(r.top_kernels),
         static_cast<int64_t>(r.top_with), share(r.top_with, r.top_kernels),
         static_cast<int64_t>(r.rest_kernels), static_cast<int64_t>(r.rest_with),
         share(r.rest_with, r.rest_kernels), report::optional_cell(r.median_with),
         report::optional_cell(r.median_without), ratio},
        r.leaderboard_id, r.problem_name);
  }
}

// The trend as small multiples: a panel per tag, the shares of submissions, users and the top.
plot::SmallMultiples trend_chart(const std::vector<analysis::TrendRow>& rows, size_t top) {
  plot::SmallMultiples chart;
  const analysis::TrendRow& first = rows.front();
  chart.title = "Techniques on " + first.problem_name + " (" +
                std::to_string(first.leaderboard_id) + ")" +
                (first.runner ? ", top " + std::to_string(top) + " on " + *first.runner : "");
  chart.subtitle =
      "share of each week's submissions, of its users, and of the best kernels of "
      "the top " +
      std::to_string(top) + " users at the week's end";
  std::map<std::string, size_t> panel_of;
  for (const analysis::TrendRow& r : rows) {
    if (r.leaderboard_id != first.leaderboard_id) continue;
    chart.periods = std::max<size_t>(chart.periods, static_cast<size_t>(r.week));
    const std::string name = std::string(r.tag.name()) + (r.tag.feature ? "" : " (language)");
    auto [it, added] = panel_of.try_emplace(name, chart.panels.size());
    if (added) {
      plot::SharePanel panel;
      panel.name = name;
      for (const std::string& series :
           {std::string("submissions"), std::string("users"), "top " + std::to_string(top)}) {
        panel.series.push_back({series, {}});
      }
      chart.panels.push_back(std::move(panel));
    }
    plot::SharePanel& panel = chart.panels[it->second];
    const auto value = [](uint64_t n, uint64_t of) -> std::optional<double> {
      if (of == 0) return std::nullopt;
      return static_cast<double>(n) / static_cast<double>(of);
    };
    panel.series[0].values.push_back(value(r.submissions, r.week_submissions));
    panel.series[1].values.push_back(value(r.users, r.week_users));
    panel.series[2].values.push_back(value(r.top, r.top_size));
  }
  return chart;
}

}  // namespace

namespace {

// --trend and --winners: every row's technique, then the report over the rows of the problem.
void run_techniques_report(const TechniquesOptions& options, const dataset::LoadOptions& load,
                           size_t top, PlotTarget& plot, std::FILE* out, std::FILE* err) {
  std::vector<report::Column> columns = {{"leaderboard_id", report::ColumnType::INT64},
                                         {"problem_name", report::ColumnType::STRING},
                                         {"runner", report::ColumnType::STRING}};
  if (options.trend) {
    columns.insert(columns.end(), {{"week", report::ColumnType::INT64},
                                   {"week_start", report::ColumnType::TIMESTAMP},
                                   {"kind", report::ColumnType::STRING},
                                   {"tag", report::ColumnType::STRING},
                                   {"submissions", report::ColumnType::INT64},
                                   {"submissions_share", report::ColumnType::DOUBLE},
                                   {"users", report::ColumnType::INT64},
                                   {"users_share", report::ColumnType::DOUBLE},
                                   {"top", report::ColumnType::INT64},
                                   {"top_size", report::ColumnType::INT64},
                                   {"top_share", report::ColumnType::DOUBLE}});
  } else {
    columns.insert(columns.end(), {{"kind", report::ColumnType::STRING},
                                   {"tag", report::ColumnType::STRING},
                                   {"top_kernels", report::ColumnType::INT64},
                                   {"top_with", report::ColumnType::INT64},
                                   {"top_share", report::ColumnType::DOUBLE},
                                   {"rest_kernels", report::ColumnType::INT64},
                                   {"rest_with", report::ColumnType::INT64},
                                   {"rest_share", report::ColumnType::DOUBLE},
                                   {"median_with", report::ColumnType::SCORE},
                                   {"median_without", report::ColumnType::SCORE},
                                   {"ratio", report::ColumnType::FACTOR}});
  }
  dataset::LoadOptions rows_load = load;
  const dataset::DataDir dir = open_data_dir(options.data, err);
  resolve_filter(dir, rows_load.filter);
  report::Writer writer(report::output_format(options.format, options.out), columns, out, err,
                        options.out, options.trend ? kTrendRule : kWinnersRule);
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
    const analysis::TechniqueTrend result = analysis::technique_trend(rows, top);
    report::write_all(err, outliers_note(result.outliers));
    const std::vector<analysis::TrendRow>& trend = result.rows;
    write_trend(trend, writer);
    writer.finish();
    if (plot.wanted() && !trend.empty()) plot.write(trend_chart(trend, top), err);
    if (options.svg != nullptr && !trend.empty()) {
      *options.svg = plot::render_small_multiples(trend_chart(trend, top));
    }
  } else {
    write_winners(analysis::technique_winners(rows, top), writer);
    writer.finish();
  }
}

}  // namespace

techniques::Techniques classify_row(const dataset::Submission& s, std::string_view code) {
  try {
    return techniques::classify(code, s.file_name.value_or(""));
  } catch (const std::bad_alloc&) {
    throw Error("out of memory reading the code of submission " + std::to_string(s.submission_id) +
                " (" +
                (s.problem_name.empty() ? "leaderboard " + std::to_string(s.leaderboard_id)
                                        : s.problem_name) +
                (s.runner ? " on " + *s.runner : "") + ", " + grouped(code.size()) +
                " bytes of code); --threads 1 reads one code at a time");
  }
}

dataset::PrepareStep techniques_step() {
  dataset::PrepareStep step;
  step.key = "techniques";
  step.prepare = [](dataset::Submission& s, std::optional<std::string_view> code) {
    if (code) s.prepared = classify_row(s, *code);
  };
  step.bytes = [](const std::any&) { return sizeof(techniques::Techniques); };  // std::any's
  return step;
}

void run_techniques(const TechniquesOptions& options, std::FILE* out, std::FILE* err) {
  const report::Format format = report::output_format(options.format, options.out);
  dataset::LoadOptions load;
  load.threads = options.data.threads.value_or(0);
  load.filter = row_selection_filter(options.rows);
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
  load.with_code = true;
  load.with_details = true;
  load.prepare_with(techniques_step());

  if (report_over_rows) {
    run_techniques_report(options, load, top, plot, out, err);
    return;
  }
  std::vector<report::Column> columns = report::row_identity_columns();
  columns.insert(columns.end(), {{"language", report::ColumnType::STRING},
                                 {"languages_all", report::ColumnType::STRING},
                                 {"features", report::ColumnType::STRING},
                                 {"autotune_configs", report::ColumnType::INT64},
                                 {"lines", report::ColumnType::INT64},
                                 {"kernel_lines", report::ColumnType::INT64},
                                 {"kernels", report::ColumnType::INT64},
                                 {"shape_branches", report::ColumnType::INT64}});
  const dataset::DataDir dir = open_data_dir(options.data, err);
  resolve_filter(dir, load.filter);
  report::Writer writer(format, columns, out, err, options.out, kTechniquesRule);
  exclude_flagged(options.exclude_flagged, dir, load, err);

  std::map<int64_t, LeaderboardCounts> counts;
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
        const auto t = std::any_cast<techniques::Techniques>(s.prepared);
        LeaderboardCounts& c = counts[s.leaderboard_id];
        c.problem_name = s.problem_name;
        ++c.rows;
        ++c.languages[static_cast<size_t>(t.language)];
        for (size_t i = 0; i < techniques::kFeatures; ++i) {
          c.features[i] += t.has(static_cast<techniques::Feature>(i)) ? 1 : 0;
        }
        std::vector<report::Cell> cells = report::row_identity_cells(s);
        cells.insert(cells.end(),
                     {std::string(techniques::to_string(t.language)), techniques::languages_text(t),
                      techniques::features_text(t), static_cast<int64_t>(t.autotune_configs),
                      static_cast<int64_t>(t.lines), static_cast<int64_t>(t.kernel_lines),
                      static_cast<int64_t>(t.kernels), static_cast<int64_t>(t.shape_branches)});
        writer.row(std::move(cells), s.leaderboard_id, s.problem_name);
      },
      stats);
  progress.finish();
  report_load(options.data, stats, err);
  if (seen == 0) {
    report::write_all(
        err, "kbdata: no submissions" + why_empty(dir, load.filter) + " in " + dir.path + "\n");
  } else if (without_code > 0) {
    report::write_all(err, "kbdata: " + std::to_string(without_code) +
                               " submission rows have no code and are left out\n");
  }
  for (const auto& [id, c] : counts) writer.table_footer(summary_line(id, c));
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
  commands.push_back({cmd, [options] { run_techniques(*options, stdout, stderr); }});
}

}  // namespace kbdata::cli
