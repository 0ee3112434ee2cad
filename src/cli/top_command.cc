#include "cli/top_command.h"

#include <memory>

#include "analysis/ranking.h"
#include "cli/filter_checks.h"
#include "common/error.h"
#include "dataset/loader.h"
#include "report/writer.h"

namespace kbdata::cli {
namespace {

constexpr const char* kRule =
    "kbdata top: per (leaderboard, runner), each user's best qualifying score (scored, passed, not "
    "hacked), ranked ascending with SQL RANK(); ties by submission time, then id (docs/dataset.md "
    "§3)";

std::string ranking_title(const analysis::Ranking& r, size_t shown, int64_t limit) {
  std::string title = r.problem_name.empty() ? "leaderboard" : r.problem_name;
  title += " (" + std::to_string(r.leaderboard_id) + ")";
  title += r.runner ? " on " + *r.runner : ", runner not recorded (legacy per-run file)";
  title += ": " + std::to_string(shown) + (shown == 1 ? " user" : " users");
  if (limit > 0) title += " with rank <= " + std::to_string(limit);
  return title;
}

std::string problem_text(const TopOptions& o) {
  return o.problem ? *o.problem : "leaderboard " + std::to_string(*o.leaderboard);
}

}  // namespace

void run_top(const TopOptions& options, std::FILE* out, std::FILE* err) {
  if (!options.problem && !options.leaderboard) {
    throw UsageError("top needs --problem NAME or --leaderboard ID");
  }
  if (options.limit < 0) {
    throw UsageError("--limit " + std::to_string(options.limit) + ": must be 0 (everyone) or more");
  }
  const report::Format format = report::parse_format(options.format);

  // Tables name the user once (the name, else the id); machine formats carry both.
  std::vector<report::Column> columns;
  if (format == report::Format::TABLE) {
    columns = {{"rank", report::ColumnType::INT64},
               {"user", report::ColumnType::STRING},
               {"score", report::ColumnType::SCORE},
               {"submission_id", report::ColumnType::INT64},
               {"submission_time", report::ColumnType::TIMESTAMP},
               {"runner", report::ColumnType::STRING}};
  } else {
    // Rankings of several leaderboards (legacy files, a problem on two leaderboards) flatten into
    // one table: each row names its leaderboard, as progression's rows do.
    columns = {{"leaderboard_id", report::ColumnType::INT64},
               {"problem_name", report::ColumnType::STRING},
               {"rank", report::ColumnType::INT64},
               {"user_id", report::ColumnType::STRING},
               {"user_name", report::ColumnType::STRING},
               {"score", report::ColumnType::SCORE},
               {"submission_id", report::ColumnType::INT64},
               {"submission_time", report::ColumnType::TIMESTAMP},
               {"runner", report::ColumnType::STRING}};
  }
  // The data folder first: its files are inputs, which no output may replace (checked below).
  const dataset::DataDir dir = open_data_dir(options.data, err);
  report::Writer writer(format, columns, out, err, options.out, kRule);

  dataset::LoadOptions load;
  load.threads = options.data.threads.value_or(0);
  load.filter.problem = options.problem;
  load.filter.leaderboard_id = options.leaderboard;
  load.filter.runner = options.runner;
  load.filter.scored_only = true;  // pushed down: only qualifying candidates are decoded
  load.filter.passed_only = true;
  load.with_details = false;  // code_id, file_name and mode are not shown
  resolve_filter(dir, load.filter);

  analysis::RankingBuilder builder;
  load_submissions(
      dir, options.data, load, "ranking " + problem_text(options),
      [&](dataset::Submission&& s) { builder.add(s); }, err);

  const std::vector<analysis::Ranking> rankings = builder.finish(options.limit);
  if (rankings.empty()) {
    std::string what = problem_text(options);
    if (load.filter.runner) what += " on runner " + *load.filter.runner;
    report::write_all(err, "kbdata: no qualifying (scored, passed, not hacked) submissions for " +
                               what + why_empty(dir, load.filter) + "\n");
  }
  for (const analysis::Ranking& r : rankings) {
    writer.section(ranking_title(r, r.entries.size(), options.limit));
    writer.leaderboard_shown(r.leaderboard_id, r.problem_name);
    for (const analysis::RankedEntry& e : r.entries) {
      report::Cell runner = r.runner ? report::Cell{*r.runner} : report::Cell{};
      if (format == report::Format::TABLE) {
        const std::string& user = e.user_name && !e.user_name->empty() ? *e.user_name : e.user_id;
        writer.row({e.rank, user, e.score, e.submission_id, e.submission_time, runner},
                   r.leaderboard_id, r.problem_name);
      } else {
        report::Cell name = e.user_name ? report::Cell{*e.user_name} : report::Cell{};
        writer.row({r.leaderboard_id, r.problem_name, e.rank, e.user_id, name, e.score,
                    e.submission_id, e.submission_time, runner},
                   r.leaderboard_id, r.problem_name);
      }
    }
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
  add_format_options(*cmd, options->format, options->out);
  cmd->footer(
      "\nA row qualifies when it has a score, passed, and is not marked hacked; each user's best\n"
      "row counts (ties: earliest submission, then lowest id). Legacy per-run files have no\n"
      "runner: their rows form one ranking per leaderboard (docs/analyses.md).\n"
      "\nExamples:\n"
      "  kbdata top -p nvfp4_gemm\n"
      "  kbdata top -p trimul --runner H100 -n 20\n"
      "  kbdata top --leaderboard 697 -n 0 -f csv > ranking.csv\n"
      "\nExit status: 0 success, 1 the input could not be read, 2 wrong usage.");
  commands.push_back({cmd, [options] { run_top(*options, stdout, stderr); }});
}

}  // namespace kbdata::cli
