#include "cli/show_command.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

#include "cli/embedded.h"
#include "cli/threads.h"
#include "common/error.h"
#include "dataset/loader.h"
#include "dataset/registry.h"
#include "query/show.h"
#include "query/submissions.h"
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
  const int threads = command_threads(options.data.threads);
  query::ShowQuery show(options.submission_id);
  dataset::LoadStats stats;
  dataset::load_dir(
      dir, show.load_options(threads), [&](dataset::Submission&& s) { show.add(std::move(s)); },
      stats);
  report_load(options.data, stats, err);
  const std::vector<dataset::Submission>& found = show.rows();
  if (found.empty()) {
    throw NotFoundError("no submission " + std::to_string(options.submission_id) + " in " +
                        dir.path);
  }
  if (options.near_duplicates) {
    // The rows of the submission's leaderboard whose code is a near-duplicate of its code.
    report::Writer writer(format, query::near_duplicates_columns(), out, err, std::nullopt,
                          query::kNearDuplicatesRule, 1);
    query::NearDuplicatesQuery near(found.front(), options.threshold.value_or(0.8));
    if (!near.has_code()) {
      report::write_all(err, "kbdata: submission " + std::to_string(options.submission_id) +
                                 " has no code to compare\n");
    } else {
      dataset::LoadStats near_stats;
      dataset::load_dir(
          dir, near.load_options(threads), [&](dataset::Submission&& s) { near.add(std::move(s)); },
          near_stats);
      report_load(options.data, near_stats, err);
    }
    result::ResultTable answer = near.finish();
    if (!hand_over(answer)) writer.write(answer);
    writer.finish();
    return;
  }
  if (embedded_run() != nullptr) {
    // Embedded (the Python module): the model's rows, every field, as a result table.
    query::SubmissionsQuery rows(report::submission_fields());
    for (const auto& s : found) rows.add(s);
    (void)hand_over(rows.finish());
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
  report::SubmissionWriter writer(format, report::submission_fields(), out, err, std::nullopt, 1);
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
  commands.push_back({cmd, [options] { run_show(*options, command_out(), command_err()); }});
}

}  // namespace kbdata::cli
