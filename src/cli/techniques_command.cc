#include "cli/techniques_command.h"

#include <algorithm>
#include <map>
#include <memory>
#include <vector>

#include "cli/filter_checks.h"
#include "cli/progress.h"
#include "common/error.h"
#include "report/writer.h"
#include "techniques/techniques.h"

namespace kbdata::cli {
namespace {

constexpr const char* kRule =
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

}  // namespace

void run_techniques(const TechniquesOptions& options, std::FILE* out, std::FILE* err) {
  const report::Format format = report::parse_format(options.format);
  dataset::LoadOptions load;
  load.threads = options.data.threads.value_or(0);
  load.filter.problem = options.problem;
  load.filter.user = options.user;
  load.filter.runner = options.runner;
  if (options.since) load.filter.since = dataset::parse_utc_time(*options.since, "--since");
  if (options.until) load.filter.until = dataset::parse_utc_time(*options.until, "--until");
  if (load.filter.since && load.filter.until && *load.filter.since >= *load.filter.until) {
    throw UsageError("empty time range: --since " + *options.since + " is not before --until " +
                     *options.until);
  }
  load.with_code = true;
  load.with_details = true;
  load.prepare = [](dataset::Submission& s, std::optional<std::string_view> code) {
    if (code) s.prepared = techniques::classify(*code, s.file_name.value_or(""));
  };

  const std::vector<report::Column> columns = {{"submission_id", report::ColumnType::INT64},
                                               {"leaderboard_id", report::ColumnType::INT64},
                                               {"problem_name", report::ColumnType::STRING},
                                               {"user_id", report::ColumnType::STRING},
                                               {"user_name", report::ColumnType::STRING},
                                               {"runner", report::ColumnType::STRING},
                                               {"submission_time", report::ColumnType::TIMESTAMP},
                                               {"status", report::ColumnType::STRING},
                                               {"score", report::ColumnType::SCORE},
                                               {"language", report::ColumnType::STRING},
                                               {"languages_all", report::ColumnType::STRING},
                                               {"features", report::ColumnType::STRING},
                                               {"autotune_configs", report::ColumnType::INT64},
                                               {"lines", report::ColumnType::INT64},
                                               {"kernel_lines", report::ColumnType::INT64},
                                               {"kernels", report::ColumnType::INT64},
                                               {"shape_branches", report::ColumnType::INT64}};
  const dataset::DataDir dir = open_data_dir(options.data, err);
  resolve_filter(dir, load.filter);
  report::Writer writer(format, columns, out, err, options.out, kRule);

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
        const auto text = [](const std::optional<std::string>& v) {
          return v ? report::Cell{*v} : report::Cell{};
        };
        writer.row({s.submission_id, s.leaderboard_id, s.problem_name, s.user_id, text(s.user_name),
                    text(s.runner), s.submission_time, s.status,
                    s.score ? report::Cell{*s.score} : report::Cell{},
                    std::string(techniques::to_string(t.language)), techniques::languages_text(t),
                    techniques::features_text(t), static_cast<int64_t>(t.autotune_configs),
                    static_cast<int64_t>(t.lines), static_cast<int64_t>(t.kernel_lines),
                    static_cast<int64_t>(t.kernels), static_cast<int64_t>(t.shape_branches)},
                   s.leaderboard_id, s.problem_name);
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
  cmd->add_option("--problem,-p", options->problem, "Only this problem (leaderboard)");
  cmd->add_option("--user,-u", options->user, "Only this user (id or name)");
  cmd->add_option("--runner", options->runner, "Only this runner (GPU)");
  cmd->add_option("--since", options->since, "Submitted at or after (UTC)");
  cmd->add_option("--until", options->until, "Submitted before (UTC)");
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
      "  kbdata techniques --data ~/kernelbot -f csv -o techniques.csv\n"
      "  kbdata techniques -p amd-fp8-mm --user saton -f jsonl\n"
      "\nExit status: 0 success, 1 the input could not be read, 2 wrong usage.");
  commands.push_back({cmd, [options] { run_techniques(*options, stdout, stderr); }});
}

}  // namespace kbdata::cli
