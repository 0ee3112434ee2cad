#include "cli/top_command.h"

#include <cmath>
#include <map>
#include <memory>
#include <tuple>

#include "analysis/noise.h"
#include "analysis/ranking.h"
#include "cli/filter_checks.h"
#include "cli/flag_exclusion.h"
#include "cli/noise_command.h"
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
  const report::Format format = report::output_format(options.format, options.out);

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
  if (options.uncertainty) {
    const size_t at = format == report::Format::TABLE ? 3 : 6;  // after score
    const std::vector<report::Column> extra = {
        {"score_lo", report::ColumnType::SCORE},  {"score_hi", report::ColumnType::SCORE},
        {"sigma", report::ColumnType::DOUBLE},    {"measurements", report::ColumnType::INT64},
        {"rank_best", report::ColumnType::INT64}, {"rank_worst", report::ColumnType::INT64},
        {"tied", report::ColumnType::BOOL}};
    columns.insert(columns.begin() + static_cast<std::ptrdiff_t>(at), extra.begin(), extra.end());
  }
  // The data folder first: its files are inputs, which no output may replace (checked below).
  const dataset::DataDir dir = open_data_dir(options.data, err);
  report::Writer writer(format, columns, out, err, options.out, kRule);

  dataset::LoadOptions load;
  load.threads = options.data.threads.value_or(0);
  load.filter.problem = options.problem;
  load.filter.leaderboard_id = options.leaderboard;
  load.filter.runner = options.runner;
  load.filter.epoch = options.epoch;
  load.filter.scored_only = true;  // pushed down: only qualifying candidates are decoded
  load.filter.passed_only = true;
  load.with_details = options.uncertainty;  // code_id only to count measurements of one code
  resolve_filter(dir, load.filter);
  exclude_flagged(options.exclude_flagged, dir, load, err);

  analysis::RankingBuilder builder;
  // --uncertainty: per (leaderboard, runner, user, code) the qualifying rows, and each row's code.
  using CodeKey = std::tuple<int64_t, std::optional<std::string>, std::string, int64_t>;
  std::map<CodeKey, int64_t> code_rows;
  // A row without a code_id (a null in the file) counts as the one measurement of its code.
  std::map<std::tuple<int64_t, std::optional<std::string>, int64_t>, int64_t> code_of;
  load_submissions(
      dir, options.data, load, "ranking " + problem_text(options),
      [&](dataset::Submission&& s) {
        if (options.uncertainty && analysis::qualifies(s) && s.code_id) {
          ++code_rows[{s.leaderboard_id, s.runner, s.user_id, *s.code_id}];
          code_of[{s.leaderboard_id, s.runner, s.submission_id}] = *s.code_id;
        }
        builder.add(s);
      },
      err);
  std::vector<analysis::SeriesNoise> noise;
  if (options.uncertainty) {
    dataset::Filter noise_filter = load.filter;
    noise_filter.scored_only = false;  // consecutive versions are consecutive whatever the outcome
    noise_filter.passed_only = false;
    noise = measure_noise(dir, options.data, noise_filter, 0.98, err);
  }

  const std::vector<analysis::Ranking> rankings = builder.finish(options.limit);
  if (rankings.empty()) {
    std::string what = problem_text(options);
    if (load.filter.runner) what += " on runner " + *load.filter.runner;
    report::write_all(err, "kbdata: no qualifying (scored, passed, not hacked) submissions for " +
                               what + why_empty(dir, load.filter) + "\n");
  }
  // Intervals need every user of the ranking, not only the ranks shown.
  const std::vector<analysis::Ranking> full = options.uncertainty && options.limit > 0
                                                  ? builder.finish(0)
                                                  : std::vector<analysis::Ranking>{};
  for (size_t ri = 0; ri < rankings.size(); ++ri) {
    const analysis::Ranking& r = rankings[ri];
    writer.section(ranking_title(r, r.entries.size(), options.limit));
    writer.leaderboard_shown(r.leaderboard_id, r.problem_name);
    std::vector<analysis::RankUncertainty> extra;
    if (options.uncertainty) {
      const analysis::Ranking& everyone = full.empty() ? r : full[ri];
      const analysis::SeriesNoise* series = nullptr;
      for (const analysis::SeriesNoise& n : noise) {
        if (n.leaderboard_id == r.leaderboard_id && n.runner == r.runner) series = &n;
      }
      std::vector<int64_t> measurements;
      for (const analysis::RankedEntry& e : everyone.entries) {
        const auto code = code_of.find({r.leaderboard_id, r.runner, e.submission_id});
        measurements.push_back(
            code == code_of.end()
                ? 1
                : std::max<int64_t>(
                      1, code_rows[{r.leaderboard_id, r.runner, e.user_id, code->second}]));
      }
      extra = analysis::rank_uncertainty(everyone, series, measurements);
      extra.resize(r.entries.size());  // the shown ranks come first
      if (series == nullptr || !series->combined) {
        writer.table_footer(ranking_title(r, r.entries.size(), options.limit) +
                            ": no noise estimate (too few pairs): intervals are the score alone");
      } else if (series->change) {
        writer.table_footer(measured_change(*series));
      }
    }
    for (size_t i = 0; i < r.entries.size(); ++i) {
      const analysis::RankedEntry& e = r.entries[i];
      report::Cell runner = r.runner ? report::Cell{*r.runner} : report::Cell{};
      std::vector<report::Cell> cells;
      if (format == report::Format::TABLE) {
        const std::string& user = e.user_name && !e.user_name->empty() ? *e.user_name : e.user_id;
        cells = {e.rank, user, e.score, e.submission_id, e.submission_time, runner};
      } else {
        report::Cell name = e.user_name ? report::Cell{*e.user_name} : report::Cell{};
        cells = {r.leaderboard_id, r.problem_name,    e.rank, e.user_id, name, e.score,
                 e.submission_id,  e.submission_time, runner};
      }
      if (options.uncertainty) {
        const analysis::RankUncertainty& u = extra[i];
        const std::vector<report::Cell> more = {
            u.lo,           u.hi,        u.sigma ? report::Cell{*u.sigma} : report::Cell{},
            u.measurements, u.rank_best, u.rank_worst,
            u.tied};
        const size_t at = format == report::Format::TABLE ? 3 : 6;
        cells.insert(cells.begin() + static_cast<std::ptrdiff_t>(at), more.begin(), more.end());
      }
      writer.row(std::move(cells), r.leaderboard_id, r.problem_name);
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
  cmd->add_option("--epoch", options->epoch,
                  "Only submissions of this harness epoch (0 before the first change)");
  cmd->add_flag("--uncertainty", options->uncertainty,
                "Add each score's 95% interval from the measured noise (reads the code), the "
                "measurements behind it, the ranks it could hold and tied marks");
  add_exclude_flagged_option(*cmd, options->exclude_flagged);
  add_format_options(*cmd, options->format, options->out);
  cmd->footer(
      "\nA row qualifies when it has a score, passed, and is not marked hacked; each user's best\n"
      "row counts (ties: earliest submission, then lowest id). Legacy per-run files have no\n"
      "runner: their rows form one ranking per leaderboard (docs/analyses.md).\n"
      "\nExamples:\n"
      "  kbdata top -p nvfp4_gemm\n"
      "  kbdata top -p trimul --runner H100 -n 20\n"
      "  kbdata top --leaderboard 697 -n 0 -f csv > ranking.csv\n"
      "  kbdata top -p nvfp4_dual_gemm --uncertainty\n"
      "  kbdata top -p nvfp4_dual_gemm --exclude-flagged\n"
      "\nExit status: 0 success, 1 the input could not be read, 2 wrong usage.");
  commands.push_back({cmd, [options] { run_top(*options, stdout, stderr); }});
}

}  // namespace kbdata::cli
