#include "cli/stats_command.h"

#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "analysis/stats.h"
#include "audit/folder_audit.h"
#include "cli/progress.h"
#include "common/error.h"
#include "common/file.h"
#include "dataset/loader.h"
#include "parquet/file_reader.h"
#include "report/writer.h"

namespace kbdata::cli {
namespace {

constexpr const char* kStatsRule =
    "kbdata stats: per config and leaderboard, counts over the model's rows; score min, p10 and "
    "median (quantile_cont) of the qualifying rows (a score that is a positive normal number, "
    "passed, not hacked); invalid_scores: NaN, infinite, negative, 0 or subnormal scores, which "
    "measure nothing; code bytes of the "
    "decoded code; legacy files: scores reproduced by recomputing them from the scoring run's "
    "benchmark means by the leaderboard's ranking_by (relative error under 1e-9)";

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ",") + p;
  return out;
}

report::Cell optional_score(const std::optional<double>& v) {
  return v ? report::Cell{*v} : report::Cell{};
}
report::Cell optional_count(const std::optional<uint64_t>& v) {
  return v ? report::Cell{static_cast<int64_t>(*v)} : report::Cell{};
}
report::Cell optional_time(const std::optional<int64_t>& v) {
  return v ? report::Cell{*v} : report::Cell{};
}

}  // namespace

void run_stats(const StatsOptions& options, std::FILE* out, std::FILE* err) {
  const report::Format format = report::output_format(options.format, options.out);
  const bool table = format == report::Format::TABLE;
  // A table shows each config as a section; the machine formats name it in a column.
  std::vector<report::Column> columns;
  if (!table) columns.push_back({"config", report::ColumnType::STRING});
  const std::vector<report::Column> rest = {{"leaderboard_id", report::ColumnType::INT64},
                                            {"problem_name", report::ColumnType::STRING},
                                            {"runners", report::ColumnType::STRING},
                                            {"rows", report::ColumnType::INT64},
                                            {"submissions", report::ColumnType::INT64},
                                            {"users", report::ColumnType::INT64},
                                            {"passing", report::ColumnType::INT64},
                                            {"scored", report::ColumnType::INT64},
                                            {"qualifying", report::ColumnType::INT64},
                                            {"invalid_scores", report::ColumnType::INT64},
                                            {"score_min", report::ColumnType::SCORE},
                                            {"score_p10", report::ColumnType::SCORE},
                                            {"score_median", report::ColumnType::SCORE},
                                            {"first_submission", report::ColumnType::TIMESTAMP},
                                            {"last_submission", report::ColumnType::TIMESTAMP},
                                            {"code_bytes", report::ColumnType::INT64},
                                            {"legacy_scores", report::ColumnType::INT64},
                                            {"scores_reproduced", report::ColumnType::INT64}};
  columns.insert(columns.end(), rest.begin(), rest.end());
  if (options.flagged) {
    columns.push_back({"suspicious", report::ColumnType::INT64});
    columns.push_back({"cheat", report::ColumnType::INT64});
  }
  // The data folder first: its files are inputs, which no output may replace (checked below).
  const dataset::DataDir dir = open_data_dir(options.data, err);
  report::Writer writer(format, columns, out, err, options.out, kStatsRule);

  dataset::LoadOptions load;
  load.threads = options.data.threads.value_or(0);
  load.filter.problem = options.problem;
  load.with_code_bytes = true;  // each row's decoded code is measured, never kept
  load.with_details = false;    // code_id, file_name and mode are not counted
  load.with_results = true;     // legacy: each score is recomputed from its run's benchmarks

  load.leaderboards =
      std::make_shared<const dataset::LeaderboardDirectory>(dataset::LeaderboardDirectory::of(dir));
  const std::vector<const dataset::DataFile*> files = dataset::files_for(dir);
  // --flagged: the audit's verdicts first, then counted per (config, leaderboard) as rows load.
  audit::FlaggedRows flagged;
  std::map<std::pair<std::string, int64_t>, std::pair<uint64_t, uint64_t>> flagged_counts;
  if (options.flagged) {
    Progress progress(err, "stats: auditing");
    dataset::LoadOptions audited;
    audited.threads = load.threads;
    audited.filter = load.filter;
    flagged = audit::flag_rows(dir, audited, audit::Verdict::SUSPICIOUS,
                               [&](uint64_t n) { progress.update(n, "rows"); });
  }
  analysis::StatsBuilder builder;
  dataset::LoadStats stats;
  for (const dataset::DataFile* f : files) {
    const std::string source = f->config != nullptr ? f->config->name : f->name;
    Progress progress(err, "stats: " + f->name);
    uint64_t seen = 0;
    try {
      auto counting = std::make_unique<CountingFile>(dir.open(*f));
      CountingFile* counter = counting.get();
      auto reader = parquet::FileReader::open(std::move(counting));
      dataset::load_file(
          *reader, f->family, load,
          [&](dataset::Submission&& s) {
            builder.add(source, s, f->family == dataset::SchemaFamily::LEGACY_RUNS);
            if (options.flagged && flagged.rows->contains(s.submission_id, s.runner)) {
              auto& [suspicious, cheat] = flagged_counts[{source, s.leaderboard_id}];
              ++(flagged.cheats->contains(s.submission_id, s.runner) ? cheat : suspicious);
            }
            progress.update(++seen, "rows");
          },
          stats);
      stats.bytes_read += counter->bytes_read();
    } catch (Error& e) {
      e.locate_file(f->path);
      throw;
    }
  }
  report_load(options.data, stats, err);

  const std::vector<analysis::LeaderboardStats> result = builder.finish();
  if (result.empty() && options.problem) dataset::require_problem(dir, *options.problem);
  if (result.empty()) {
    report::write_all(err, "kbdata: no submissions" +
                               (options.problem ? " of " + *options.problem : std::string()) +
                               " in " + dir.path + "\n");
  }
  std::string section;
  for (const analysis::LeaderboardStats& s : result) {
    if (table && s.source != section) {
      section = s.source;
      writer.section(section);
    }
    std::vector<report::Cell> cells;
    if (!table) cells.emplace_back(s.source);
    const auto count = [](uint64_t v) { return report::Cell{static_cast<int64_t>(v)}; };
    const std::vector<report::Cell> values = {
        s.leaderboard_id,
        s.problem_name,
        s.runners.empty() ? report::Cell{} : report::Cell{join(s.runners)},
        count(s.rows),
        count(s.submissions),
        count(s.users),
        count(s.passing),
        count(s.scored),
        count(s.qualifying),
        count(s.invalid_scores),
        optional_score(s.score_min),
        optional_score(s.score_p10),
        optional_score(s.score_median),
        optional_time(s.first_time),
        optional_time(s.last_time),
        count(s.code_bytes),
        optional_count(s.legacy_scores),
        optional_count(s.scores_reproduced)};
    cells.insert(cells.end(), values.begin(), values.end());
    if (options.flagged) {
      const auto it = flagged_counts.find({s.source, s.leaderboard_id});
      const std::pair<uint64_t, uint64_t> n =
          it == flagged_counts.end() ? std::pair<uint64_t, uint64_t>{} : it->second;
      cells.push_back(count(n.first));
      cells.push_back(count(n.second));
    }
    writer.row(std::move(cells), s.leaderboard_id, s.problem_name);
  }
  writer.finish();
}

void add_stats_command(CLI::App& app, Commands& commands) {
  auto options = std::make_shared<StatsOptions>();
  CLI::App* cmd = app.add_subcommand("stats",
                                     "Per config and leaderboard: rows, submissions, users, "
                                     "passing, scored, score min/p10/median, "
                                     "first and last submission, runners, bytes of code");
  add_data_options(*cmd, options->data);
  cmd->add_option("--problem,-p", options->problem, "Only this problem (leaderboard)");
  cmd->add_flag("--flagged", options->flagged,
                "Add the rows kbdata audit flags: suspicious and cheat (reads and audits every "
                "row's code: as slow as kbdata audit)");
  add_format_options(*cmd, options->format, options->out);
  cmd->footer(
      "\nRows are the model's rows (a flat file's rows; one per submission in a legacy per-run\n"
      "file). Scores are those of the qualifying rows (scored, passed, not hacked), every runner\n"
      "together; p10 and median interpolate linearly (DuckDB's quantile_cont). A score that\n"
      "measures nothing (NaN, infinite, negative, 0 or subnormal) never qualifies:\n"
      "invalid_scores counts those rows. legacy_scores and\n"
      "scores_reproduced (legacy per-run files only): the scored submissions, and those whose\n"
      "score the benchmark means of its run reproduce by the leaderboard's ranking_by.\n"
      "code_bytes reads and decodes every row's code: the slow part on large files\n"
      "(docs/analyses.md).\n"
      "\nExamples:\n"
      "  kbdata stats --data ~/kernelbot\n"
      "  kbdata stats -p nvfp4_dual_gemm -f json\n"
      "  kbdata stats -f parquet -o stats.parquet\n"
      "  kbdata stats -p nvfp4_dual_gemm --flagged\n"
      "\nExit status: 0 success, 1 the input could not be read, 2 wrong usage.");
  commands.push_back({cmd, [options] { run_stats(*options, stdout, stderr); }});
}

}  // namespace kbdata::cli
