#include "cli/dedup_command.h"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cli/embedded.h"
#include "cli/flag_exclusion.h"
#include "cli/progress.h"
#include "cli/summary_text.h"
#include "cli/threads.h"
#include "common/error.h"
#include "common/file.h"
#include "dataset/data_dir.h"
#include "query/dedup.h"
#include "report/text.h"
#include "result/table.h"

namespace kbdata::cli {
namespace {

// IN as a data folder of its own, with the leaderboards.parquet beside it when there is one (the
// problems' references, which two code rules read): what --exclude-flagged audits.
dataset::DataDir input_as_folder(const std::string& input) {
  const std::filesystem::path in(input);
  const std::string folder = in.has_parent_path() ? in.parent_path().string() : ".";
  std::vector<std::string> paths = {folder + "/" + in.filename().string()};
  std::error_code ec;
  if (in.filename() != "leaderboards.parquet" &&
      std::filesystem::exists(folder + "/leaderboards.parquet", ec)) {
    paths.push_back(folder + "/leaderboards.parquet");
  }
  dataset::DataDir dir =
      dataset::scan_data_files(folder, paths, std::make_shared<LocalFileSource>());
  for (const dataset::SkippedFile& f : dir.skipped) {
    if (f.unreadable) throw IoError(folder + "/" + f.name + ": " + f.reason);
  }
  return dir;
}

// The summary for people: a line per count the run made, the LSH's work, then the times.
std::string dedup_summary_text(result::ResultTable& summary) {
  const SummaryRow row(summary);
  constexpr size_t kWidth = 24;
  std::string text;
  for (const auto& [label, column] : {std::pair<const char*, const char*>{"rows in", "rows_in"},
                                      {"exact duplicates", "exact_duplicates"},
                                      {"near-duplicate clusters", "near_duplicate_clusters"},
                                      {"near-duplicates", "near_duplicates"},
                                      {"rows out", "rows_out"},
                                      {"rows written", "rows_written"}}) {
    if (const std::optional<int64_t> n = row.count(column)) {
      text += summary_line(label, kWidth, std::to_string(*n));
    }
  }
  const auto count = [&](const char* column) { return row.count(column).value_or(0); };
  const auto seconds = [&](const char* column) { return row.number(column).value_or(0); };
  if (row.count("signatures")) {
    text += summary_line(
        "signatures", kWidth,
        fmt::format("{} rows hashed; LSH {} bands x {} rows; {} candidate pairs, {} verified ({} "
                    "shingle sets), {} joined",
                    count("signatures"), count("lsh_bands"), count("lsh_rows"),
                    count("candidate_pairs"), count("verified_pairs"), count("shingle_sets"),
                    count("joined_pairs")));
    text += summary_line(
        "time", kWidth,
        fmt::format("{:.1f} s (metadata {:.1f}, hashing {:.1f}, clustering {:.1f}, writing {:.1f})",
                    seconds("seconds"), seconds("metadata_seconds"), seconds("hash_seconds"),
                    seconds("cluster_seconds"), seconds("write_seconds")));
  } else {
    text +=
        summary_line("time", kWidth,
                     fmt::format("{:.1f} s (metadata {:.1f}, writing {:.1f})", seconds("seconds"),
                                 seconds("metadata_seconds"), seconds("write_seconds")));
  }
  return text;
}

}  // namespace

void run_dedup_command(DedupCommandOptions& options, std::FILE* out, std::FILE* err) {
  if (options.dedup.output.empty()) {
    throw UsageError("dedup needs the file to write: kbdata dedup IN OUT (or -o OUT)");
  }
  if (options.exact == options.fuzzy) {
    throw UsageError("give one of --exact (the platform's rule) or --fuzzy (near-duplicates too)");
  }
  options.dedup.mode = options.fuzzy ? dedup::Mode::FUZZY : dedup::Mode::EXACT;
  options.dedup.threads = command_threads(options.threads);
  if (options.exclude_flagged) {
    options.dedup.exclude = [&options, err] {
      dataset::LoadOptions load;
      load.threads = options.dedup.threads;
      exclude_flagged(options.exclude_flagged, input_as_folder(options.dedup.input), load, err);
      return load.filter.excluded;
    };
  }
  const auto start = std::chrono::steady_clock::now();
  Progress progress(err, "dedup");
  dedup::DedupSummary s = dedup::run_dedup(options.dedup, progress.callback());
  progress.finish();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  result::ResultTable summary = query::dedup_summary(
      s, {.fuzzy = options.fuzzy, .emit_all = options.dedup.emit_all, .seconds = seconds});
  if (hand_over(summary)) return;
  report::write_all(out, dedup_summary_text(summary));
}

void add_dedup_command(CLI::App& app, Commands& commands) {
  auto options = std::make_shared<DedupCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "dedup",
      "Deduplicate a submissions file (flat or legacy per-run) into a flat file: the platform's\n"
      "exact rule (--exact), or that and near-duplicate clusters by MinHash LSH (--fuzzy).\n"
      "OUT appears only when complete (docs/dedup.md)");
  cmd->add_option("IN", options->dedup.input, "Submissions Parquet file (flat or legacy)")
      ->required();
  // OUT, or -o/--out as every other command writes its file: one of the two.
  CLI::Option* out = cmd->add_option("OUT", options->dedup.output,
                                     "Parquet file to write: the flat schema plus cluster_id and "
                                     "cluster_size (replaced if it exists; not IN)");
  cmd->add_option("-o,--out", options->dedup.output, "The same as OUT")->excludes(out);
  cmd->add_flag("--exact", options->exact,
                "One row per (leaderboard_id, user_id, code_id, runner): the lowest score "
                "(nulls last), then the earliest, then the lowest submission_id");
  cmd->add_flag("--fuzzy", options->fuzzy,
                "The exact rule, then one row per cluster of near-duplicate code (Jaccard "
                "of byte shingles >= --threshold), kept by the same order");
  cmd->add_option("--threshold", options->dedup.threshold,
                  "Jaccard similarity at or above which two codes are near-duplicates")
      // A number here; the range (0, 1] shown in the help is dedup's own check (one rule, the
      // one Python's threshold= meets too).
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            char* end = nullptr;
            (void)std::strtod(text.c_str(), &end);
            if (text.empty() || *end != '\0') return "'" + text + "' is not a number";
            return "";
          },
          "(0,1]", "threshold"))
      ->capture_default_str();
  cmd->add_option("--shingle-bytes", options->dedup.shingle_bytes,
                  "Shingle length in bytes (of the ASCII-lower-cased code), 1..64")
      ->capture_default_str();
  cmd->add_flag("--across-users", options->dedup.across_users,
                "Cluster near-duplicates across users of a leaderboard (default: within "
                "each (leaderboard, user))");
  cmd->add_flag("--emit-all", options->dedup.emit_all,
                "Write every input row with its cluster_id and a boolean kept, instead of "
                "the kept rows with cluster_size");
  cmd->add_option("--threads,--jobs,-j", options->threads,
                  "Threads reading, hashing and comparing (default: $KBDATA_THREADS, else every "
                  "core); the output is the same whatever the threads. --jobs and -j are older "
                  "spellings")
      ->check(CLI::Range(1, kMaxThreads));
  add_exclude_flagged_option(*cmd, options->exclude_flagged);
  cmd->footer(
      "\nExamples:\n"
      "  kbdata dedup nvidia_nvfp4_submissions.parquet nvfp4-exact.parquet --exact\n"
      "  kbdata dedup nvidia_nvfp4_submissions.parquet nvfp4-clean.parquet --exact "
      "--exclude-flagged\n"
      "  kbdata dedup nvidia_nvfp4_submissions.parquet nvfp4-fuzzy.parquet --fuzzy\n"
      "  kbdata dedup submissions.parquet clusters.parquet --fuzzy --across-users --emit-all\n"
      "\nExit status: 0 success, 1 the input could not be read or OUT written, 2 wrong usage.");
  commands.push_back({cmd, [options] {
                        options->dedup.command_line = invoked_command_line();
                        run_dedup_command(*options, command_out(), command_err());
                      }});
}

}  // namespace kbdata::cli
