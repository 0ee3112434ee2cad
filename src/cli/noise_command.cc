#include "cli/noise_command.h"

#include <cmath>
#include <memory>

#include "cli/embedded.h"
#include "cli/filter_checks.h"
#include "cli/plots.h"
#include "cli/threads.h"
#include "common/error.h"
#include "dataset/epochs.h"
#include "dataset/loader.h"
#include "query/charts.h"
#include "query/noise.h"
#include "query/noise_text.h"
#include "report/writer.h"

namespace kbdata::cli {
void run_noise(const NoiseOptions& options, std::FILE* out, std::FILE* err) {
  if (!(options.similarity > 0 && options.similarity <= 1)) {
    throw UsageError("--similarity " + std::to_string(options.similarity) + ": must be in (0, 1]");
  }
  const report::Format format = report::output_format(options.format, options.out);
  const dataset::DataDir dir = open_data_dir(options.data, err);
  PlotTarget plot(options.plot);
  report::Writer writer(format, query::noise_columns(), out, err, options.out, query::kNoiseRule,
                        command_threads(options.data.threads));

  dataset::Filter filter;
  filter.problem = options.problem;
  filter.leaderboard_id = options.leaderboard;
  filter.runner = options.runner;
  filter.epoch = options.epoch;
  resolve_filter(dir, filter);
  const std::vector<analysis::SeriesNoise> result =
      query::measure_noise(filter, command_threads(options.data.threads), options.similarity,
                           query_loader(dir, options.data, err));
  if (result.empty()) {
    report::write_all(err, "kbdata: no pairs of measurements to estimate noise from" +
                               why_empty(dir, filter) + "\n");
  }
  result::ResultTable answer = query::noise_table(result);
  if (!hand_over(answer)) writer.write(answer);
  writer.finish();

  if (plot.wanted()) {
    plot::TimeChart chart;
    chart.title = "measurement noise over time";
    chart.y_label = "sigma of log(score)";
    chart.y_in_seconds = false;
    std::vector<int64_t> shown;
    for (const analysis::SeriesNoise& s : result) {
      plot::Series line{query::series_text(s), plot::SeriesStyle::LINE, {}, {}};
      for (const analysis::NoisePoint& p : s.over_time) {
        if (p.sigma > 0) line.points.push_back({p.time_us, p.sigma});
      }
      if (line.points.empty()) continue;
      chart.series.push_back(std::move(line));
      if (s.change) {
        chart.markers.push_back(
            {s.change->time_us,
             "noise x" + query::fixed_digits(s.change->after.sigma / s.change->before.sigma, 1)});
      }
      shown.push_back(s.leaderboard_id);
    }
    if (chart.series.empty()) throw Error("nothing to plot: too few pairs for a window of noise");
    query::add_epoch_markers(chart, shown);
    plot.write(chart, err);
  }
}

void add_noise_command(CLI::App& app, Commands& commands) {
  auto options = std::make_shared<NoiseOptions>();
  CLI::App* cmd = app.add_subcommand(
      "noise",
      "Measurement noise per leaderboard and runner (sd of log score, 95% interval, pairs), from "
      "every source the data offers, with its change of level over time");
  add_data_options(*cmd, options->data);
  cmd->add_option("--problem,-p", options->problem, "Problem (leaderboard) name");
  cmd->add_option("--leaderboard", options->leaderboard, "Leaderboard id");
  cmd->add_option("--runner", options->runner, "Only this runner (GPU), e.g. B200");
  cmd->add_option("--epoch", options->epoch,
                  "Only submissions of this harness epoch (0 before the first change)");
  cmd->add_option("--similarity", options->similarity,
                  "Estimated Jaccard of the dedup shingles at or above which consecutive "
                  "versions are near-identical")
      ->capture_default_str();
  cmd->add_option("--plot", options->plot,
                  "Also draw the noise over time (SVG), harness epochs and changes marked");
  add_format_options(*cmd, options->format, options->out);
  cmd->footer(
      "\nSources: harness_err (legacy per-benchmark err/std), public_secret (legacy), same_code\n"
      "(one code measured again), near_identical (a user's consecutive versions), combined.\n"
      "Reads the code (docs/noise.md).\n"
      "\nExamples:\n"
      "  kbdata noise\n"
      "  kbdata noise -p nvfp4_dual_gemm --plot dual-gemm-noise.svg\n"
      "  kbdata noise --leaderboard 597 --epoch 3 -f csv\n"
      "\nExit status: 0 success, 1 the input could not be read, 2 wrong usage.");
  commands.push_back({cmd, [options] { run_noise(*options, command_out(), command_err()); }});
}

}  // namespace kbdata::cli
