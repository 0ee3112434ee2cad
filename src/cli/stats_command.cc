#include "cli/stats_command.h"

#include <iterator>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "audit/folder_audit.h"
#include "cli/embedded.h"
#include "cli/progress.h"
#include "cli/threads.h"
#include "common/error.h"
#include "common/file.h"
#include "dataset/loader.h"
#include "parquet/file_reader.h"
#include "query/stats.h"
#include "report/writer.h"

namespace kbdata::cli {
namespace {

// The answer as a table for people shows each config as a section, not in a column.
std::vector<report::Column> stats_people_columns(const std::vector<report::Column>& answer) {
  return std::vector<report::Column>(answer.begin() + 1, answer.end());
}

std::vector<report::Cell> stats_people_row(std::vector<report::Cell>&& cells) {
  return std::vector<report::Cell>(std::make_move_iterator(cells.begin() + 1),
                                   std::make_move_iterator(cells.end()));
}

}  // namespace

void run_stats(const StatsOptions& options, std::FILE* out, std::FILE* err) {
  const report::Format format = report::output_format(options.format, options.out);
  const bool table = format == report::Format::TABLE;
  const std::vector<report::Column> columns = query::stats_columns(options.flagged);
  // The data folder first: its files are inputs, which no output may replace (checked below).
  const dataset::DataDir dir = open_data_dir(options.data, err);
  report::Writer writer(format, table ? stats_people_columns(columns) : columns, out, err,
                        options.out, query::kStatsRule, command_threads(options.data.threads));

  dataset::LoadOptions load;
  load.threads = command_threads(options.data.threads);
  load.filter.problem = options.problem;
  load.with_code_bytes = true;  // each row's decoded code is measured, never kept
  load.with_details = false;    // code_id, file_name and mode are not counted
  load.with_results = true;     // legacy: each score is recomputed from its run's benchmarks

  load.leaderboards =
      std::make_shared<const dataset::LeaderboardDirectory>(dataset::LeaderboardDirectory::of(dir));
  const std::vector<const dataset::DataFile*> files = dataset::files_for(dir);
  // --flagged: the audit's verdicts first, then counted per (config, leaderboard) as rows load.
  audit::FlaggedRows flagged;
  if (options.flagged) {
    Progress progress(err, "stats: auditing");
    dataset::LoadOptions audited;
    audited.threads = load.threads;
    audited.filter = load.filter;
    flagged = audit::flag_rows(dir, audited, audit::Verdict::SUSPICIOUS, progress.callback());
  }
  query::StatsQuery answer_rows({.flagged = options.flagged});
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
            std::optional<audit::Verdict> flag;
            if (options.flagged && flagged.rows->contains(s.submission_id, s.runner)) {
              flag = flagged.cheats->contains(s.submission_id, s.runner)
                         ? audit::Verdict::CHEAT
                         : audit::Verdict::SUSPICIOUS;
            }
            answer_rows.add(source, s, f->family == dataset::SchemaFamily::LEGACY_RUNS, flag);
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

  result::ResultTable answer = answer_rows.finish();
  if (answer.rows() == 0 && options.problem) dataset::require_problem(dir, *options.problem);
  if (answer.rows() == 0) {
    report::write_all(err, "kbdata: no submissions" +
                               (options.problem ? " of " + *options.problem : std::string()) +
                               " in " + dir.path + "\n");
  }
  if (table) {
    result::ResultTable people =
        result::map_rows(answer, stats_people_columns(columns), stats_people_row);
    writer.write(people);
  } else {
    if (!hand_over(answer)) writer.write(answer);
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
  commands.push_back({cmd, [options] { run_stats(*options, command_out(), command_err()); }});
}

}  // namespace kbdata::cli
