#include "cli/show_command.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

#include "analysis/near_duplicates.h"
#include "common/error.h"
#include "dataset/loader.h"
#include "dataset/registry.h"
#include "report/submissions.h"
#include "report/text.h"
#include "report/writer.h"
#include "tabular/value_format.h"

namespace kbdata::cli {
namespace {

std::string optional_time_text(const std::optional<int64_t>& micros) {
  if (!micros) return "null";
  std::string out;
  tabular::append_timestamp(out, *micros, parquet::TimeUnit::MICROS, true);
  return out;
}

// `terminal`: stdout is a terminal, where the code's control characters and bidirectional
// overrides are escaped too (elsewhere the code is printed as stored, to be saved or piped).
std::string show_table(const dataset::Submission& s, bool terminal) {
  std::string text = "submission " + std::to_string(s.submission_id) + "\n";
  std::string_view note = dataset::note_for(s.leaderboard_id);
  if (!note.empty())
    text += "note: " + report::terminal_text(s.problem_name, false) + " (" +
            std::to_string(s.leaderboard_id) + "): " + std::string(note) + "\n";
  // Text from the data stays on its line and reads as stored: escaped whatever the output.
  auto safe = [](const std::string& v) { return report::terminal_text(v, false); };
  auto opt = [&](const std::optional<std::string>& v) {
    return v ? safe(*v) : std::string("null");
  };
  std::vector<std::vector<std::string>> rows = {
      {"problem_name", safe(s.problem_name)},
      {"leaderboard_id", std::to_string(s.leaderboard_id)},
      {"user_id", safe(s.user_id)},
      {"user_name", opt(s.user_name)},
      {"submission_time", report::time_text(s.submission_time)},
      {"file_name", opt(s.file_name)},
      {"code_id", s.code_id ? std::to_string(*s.code_id) : std::string("null")},
      {"status", safe(s.status)},
      {"score", s.score ? report::format_score(*s.score) : "null"},
      {"passed", s.passed ? (*s.passed ? "true" : "false") : "null"},
      {"mode", opt(s.mode)},
      {"runner", opt(s.runner)},
  };
  for (const auto& row : rows) {
    text += "  " + row[0] + std::string(17 - row[0].size(), ' ') + row[1] + "\n";
  }
  if (!s.runs.empty()) {
    std::vector<std::vector<std::string>> runs = {
        {"run_id", "mode", "score", "passed", "start_time", "end_time"}};
    for (const dataset::Run& r : s.runs) {
      runs.push_back({std::to_string(r.run_id), safe(r.mode),
                      r.score ? report::format_score(*r.score) : "null",
                      r.passed ? (*r.passed ? "true" : "false") : "null",
                      optional_time_text(r.start_time), optional_time_text(r.end_time)});
    }
    text += "runs (" + std::to_string(s.runs.size()) + "):\n";
    text += report::format_table(runs, {true, false, true, false, false, false});
    // Each run's benchmark results (legacy run_result), in nanoseconds as stored.
    // Whole nanoseconds without an exponent (250000000, not 2.5e+08), others as the shortest.
    auto ns = [](const std::optional<double>& v) -> std::string {
      if (!v) return "null";
      if (std::trunc(*v) == *v && std::fabs(*v) < 1e15) {
        char buffer[32];
        std::snprintf(buffer, sizeof buffer, "%.0f", *v);
        return buffer;
      }
      return report::double_text(*v);
    };
    for (const dataset::Run& r : s.runs) {
      if (r.benchmarks.empty()) continue;
      std::vector<std::vector<std::string>> table = {
          {"benchmark", "mean_ns", "std_ns", "err_ns", "runs", "best_ns", "worst_ns"}};
      for (size_t i = 0; i < r.benchmarks.size(); ++i) {
        const dataset::BenchmarkResult& b = r.benchmarks[i];
        table.push_back({std::to_string(i), ns(b.mean), ns(b.std_dev), ns(b.err),
                         b.runs ? std::to_string(*b.runs) : "null", ns(b.best), ns(b.worst)});
      }
      text += "benchmarks of run " + std::to_string(r.run_id) + ":\n";
      text += report::format_table(table, {true, true, true, true, true, true, true});
    }
  }
  text += "code:\n";
  if (!s.code) {
    text += "null";
  } else if (terminal) {
    text += report::terminal_text(*s.code, true);
  } else {
    text += *s.code;
  }
  if (!text.empty() && text.back() != '\n') text += '\n';
  return text;
}

constexpr const char* kNearRule =
    "kbdata show --near-duplicates: the leaderboard's submissions, of any user, whose code's "
    "Jaccard similarity with the submission's (5-byte lower-cased shingles) is estimated at or "
    "above "
    "the threshold by a 256-bin one-permutation MinHash cut to a byte a bin "
    "(docs/analyses.md)";

// The rows of `target`'s leaderboard whose code is a near-duplicate of its code, with their
// similarity, most similar first (then earliest, then by id and runner).
void write_near_duplicates(const ShowOptions& options, const dataset::DataDir& dir,
                           const dataset::Submission& target, report::Format format, std::FILE* out,
                           std::FILE* err) {
  std::vector<report::Column> columns = report::row_identity_columns();
  columns.push_back({"similarity", report::ColumnType::DOUBLE});
  report::Writer writer(format, columns, out, err, std::nullopt, kNearRule);
  if (!target.code || target.code->empty()) {
    report::write_all(err, "kbdata: submission " + std::to_string(target.submission_id) +
                               " has no code to compare\n");
    writer.finish();
    return;
  }
  const double threshold = options.threshold.value_or(0.8);
  const analysis::ByteSketch mine = analysis::byte_sketch(*target.code);
  dataset::LoadOptions load;
  load.threads = options.data.threads.value_or(0);
  load.filter.leaderboard_id = target.leaderboard_id;
  load.with_code = true;
  load.prepare_with(analysis::near_duplicate_step());
  std::vector<std::pair<double, dataset::Submission>> near;
  dataset::LoadStats stats;
  dataset::load_dir(
      dir, load,
      [&](dataset::Submission&& s) {
        if (s.submission_id == target.submission_id) return;
        const auto* sketch = std::any_cast<analysis::ByteSketch>(&s.prepared);
        if (sketch == nullptr) return;
        const std::optional<double> j = analysis::byte_sketch_similarity(mine, *sketch);
        if (!j || *j < threshold) return;
        s.prepared.reset();
        near.emplace_back(*j, std::move(s));
      },
      stats);
  report_load(options.data, stats, err);
  std::stable_sort(near.begin(), near.end(), [](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first > b.first;
    if (a.second.submission_time != b.second.submission_time) {
      return a.second.submission_time < b.second.submission_time;
    }
    return a.second.submission_id < b.second.submission_id;
  });
  for (const auto& [similarity, s] : near) {
    std::vector<report::Cell> cells = report::row_identity_cells(s);
    cells.emplace_back(similarity);
    writer.row(std::move(cells), s.leaderboard_id, s.problem_name);
  }
  writer.finish();
}

}  // namespace

void run_show(const ShowOptions& options, std::FILE* out, std::FILE* err) {
  const report::Format format = report::parse_format(options.format);
  if (format != report::Format::TABLE && format != report::Format::JSON &&
      format != report::Format::JSONL) {
    throw UsageError("show prints table, json or jsonl");
  }
  if (options.threshold && !options.near_duplicates) {
    throw UsageError("--threshold sizes --near-duplicates: give both, or neither");
  }
  if (options.threshold && !(*options.threshold > 0 && *options.threshold <= 1)) {
    throw UsageError("--threshold " + report::double_text(*options.threshold) +
                     ": expected a similarity in (0, 1]");
  }
  dataset::DataDir dir = open_data_dir(options.data, err);
  dataset::LoadOptions load;
  load.threads = options.data.threads.value_or(0);
  load.filter.submission_id = options.submission_id;
  load.with_code = true;
  load.with_runs = true;
  load.with_results = true;
  std::vector<dataset::Submission> found;
  dataset::LoadStats stats;
  dataset::load_dir(
      dir, load, [&](dataset::Submission&& s) { found.push_back(std::move(s)); }, stats);
  report_load(options.data, stats, err);
  if (found.empty()) {
    throw NotFoundError("no submission " + std::to_string(options.submission_id) + " in " +
                        dir.path);
  }
  if (options.near_duplicates) {
    write_near_duplicates(options, dir, found.front(), format, out, err);
    return;
  }
  if (format == report::Format::TABLE) {
    std::string text;
    for (size_t i = 0; i < found.size(); ++i) {
      if (i > 0) text += "\n";
      text += show_table(found[i], ::isatty(::fileno(out)) == 1);
    }
    report::write_all(out, text);
    return;
  }
  report::SubmissionWriter writer(format, report::submission_fields(), out, err, std::nullopt);
  for (const auto& s : found) writer.write(s);
  writer.finish();
}

void add_show_command(CLI::App& app, Commands& commands) {
  auto options = std::make_shared<ShowOptions>();
  CLI::App* cmd =
      app.add_subcommand("show", "Print one submission: its metadata, its code, its runs");
  cmd->add_option("SUBMISSION_ID", options->submission_id, "Submission id")->required();
  add_data_options(*cmd, options->data);
  cmd->footer(
      "\nExamples:\n  kbdata show 30000569\n  kbdata show 30000569 --format json\n"
      "  kbdata show 30000569 --near-duplicates\n"
      "\nExit status: 0 success, 1 no such submission or unreadable input, 2 wrong usage.");
  cmd->add_option("--format,-f", options->format, "Output format")
      ->check(CLI::IsMember({"table", "json", "jsonl"}))
      ->capture_default_str();
  cmd->add_flag("--near-duplicates", options->near_duplicates,
                "Instead of the submission: the submissions of its leaderboard, of any user, whose "
                "code is a near-duplicate of its code (estimated Jaccard of the 5-byte shingles "
                "kbdata dedup compares), most similar first (reads the leaderboard's code)");
  cmd->add_option("--threshold", options->threshold,
                  "--near-duplicates: the least estimated similarity, in (0, 1] (default 0.8)");
  commands.push_back({cmd, [options] { run_show(*options, stdout, stderr); }});
}

}  // namespace kbdata::cli
