#include "cli/progression_command.h"

#include <deque>
#include <memory>
#include <set>

#include "analysis/progression.h"
#include "cli/filter_checks.h"
#include "cli/plots.h"
#include "common/error.h"
#include "dataset/loader.h"
#include "report/writer.h"

namespace kbdata::cli {
namespace {

constexpr const char* kProgressionRule =
    "kbdata progression: one user's submissions in time order; running best per runner of the "
    "qualifying scores (scored, passed, not hacked); improvements strictly below the previous best "
    "(docs/analyses.md)";

std::string user_text(const analysis::Progression& p) {
  if (p.user_name && !p.user_name->empty()) return *p.user_name + " (id " + p.user_id + ")";
  return "user " + p.user_id;
}

std::string section_title(const analysis::Progression& p) {
  size_t scored = 0;
  std::set<std::optional<std::string>> runners;
  std::optional<double> first;
  std::optional<double> best;
  for (const analysis::ProgressionStep& s : p.steps) {
    if (!s.qualifies) continue;
    ++scored;
    runners.insert(s.runner);
  }
  std::string title = user_text(p) + " on " +
                      (p.problem_name.empty() ? "leaderboard" : p.problem_name) + " (" +
                      std::to_string(p.leaderboard_id) + "): " + std::to_string(p.steps.size()) +
                      (p.steps.size() == 1 ? " submission row, " : " submission rows, ") +
                      std::to_string(scored) + " qualifying";
  // With one runner, the headline: best score and the factor over the first.
  if (runners.size() == 1) {
    for (const analysis::ProgressionStep& s : p.steps) {
      if (!s.qualifies) continue;
      if (!first) first = *s.score;
      best = s.best;
    }
    title += ", best " + report::format_score(*best);
    char factor[64];
    std::snprintf(factor, sizeof factor, " (×%.2f over the first)", *first / *best);
    title += factor;
  }
  return title;
}

}  // namespace

void run_progression(const ProgressionOptions& options, std::FILE* out, std::FILE* err) {
  if (options.user.empty()) throw UsageError("progression needs --user ID_OR_NAME");
  const report::Format format = report::output_format(options.format, options.out);
  std::vector<report::Column> columns;
  if (format == report::Format::TABLE) {
    columns = {{"submission_time", report::ColumnType::TIMESTAMP},
               {"submission_id", report::ColumnType::INT64},
               {"runner", report::ColumnType::STRING},
               {"status", report::ColumnType::STRING},
               {"score", report::ColumnType::SCORE},
               {"best", report::ColumnType::SCORE},
               {"new_best", report::ColumnType::STRING},
               {"vs_previous", report::ColumnType::FACTOR},
               {"vs_first", report::ColumnType::FACTOR}};
  } else {
    columns = {{"leaderboard_id", report::ColumnType::INT64},
               {"problem_name", report::ColumnType::STRING},
               {"user_id", report::ColumnType::STRING},
               {"user_name", report::ColumnType::STRING},
               {"submission_id", report::ColumnType::INT64},
               {"submission_time", report::ColumnType::TIMESTAMP},
               {"runner", report::ColumnType::STRING},
               {"status", report::ColumnType::STRING},
               {"passed", report::ColumnType::BOOL},
               {"score", report::ColumnType::SCORE},
               {"qualifies", report::ColumnType::BOOL},
               {"best", report::ColumnType::SCORE},
               {"improved", report::ColumnType::BOOL},
               {"factor_previous", report::ColumnType::FACTOR},
               {"factor_first", report::ColumnType::FACTOR}};
  }
  // The data folder first: its files are inputs, which no output may replace (checked below).
  const dataset::DataDir dir = open_data_dir(options.data, err);
  report::Writer writer(format, columns, out, err, options.out, kProgressionRule);
  PlotTarget plot(options.plot);  // checks the path before the data is read

  dataset::LoadOptions load;
  load.threads = options.data.threads.value_or(0);
  load.filter.problem = options.problem;
  load.filter.leaderboard_id = options.leaderboard;
  load.filter.runner = options.runner;
  load.filter.epoch = options.epoch;
  load.with_details = false;  // code_id, file_name and mode are not shown
  resolve_filter(dir, load.filter);
  // A deque: rows never move as it grows (a vector's growth would copy every row it holds).
  std::deque<dataset::Submission> rows;
  std::set<std::string> by_id, by_name;  // user ids matched each way
  auto keep = [&](dataset::Submission&& s) {
    const bool id_match = s.user_id == options.user;
    const bool name_match = s.user_name && *s.user_name == options.user;
    if (!id_match && !name_match) return;
    (id_match ? by_id : by_name).insert(s.user_id);
    rows.push_back(std::move(s));
  };
  // An id match wins over users named like it (below), so the user's id is looked for first, as
  // a predicate the scan tests before decoding other columns; only when no row has it are the
  // rows of the problem read again for a user of that name (code is never read).
  dataset::LoadOptions by_user_id = load;
  by_user_id.filter.user_id = options.user;
  load_submissions(dir, options.data, by_user_id, "finding " + options.user + "'s submissions",
                   keep, err);
  if (rows.empty()) {
    load.filter.user = options.user;
    load_submissions(dir, options.data, load, "finding " + options.user + "'s submissions", keep,
                     err);
  }
  if (rows.empty()) {
    std::string where = options.problem ? " on " + *options.problem
                        : options.leaderboard
                            ? " on leaderboard " + std::to_string(*options.leaderboard)
                            : "";
    if (load.filter.runner) where += " on runner " + *load.filter.runner;
    const std::string why = why_empty(dir, load.filter);
    throw NotFoundError("no submissions of user '" + options.user + "'" + where +
                        (why.empty() ? " (--user takes a user id or a user name)" : why));
  }
  if (!by_id.empty()) {
    // An id match wins over users who happen to be named like it.
    std::erase_if(rows, [&](const dataset::Submission& s) { return s.user_id != options.user; });
  } else if (by_name.size() > 1) {
    std::string ids;
    for (const std::string& id : by_name) ids += (ids.empty() ? "" : ", ") + id;
    throw UsageError("user name '" + options.user + "' belongs to several users (ids " + ids +
                     "); give one id with --user");
  }

  std::vector<const dataset::Submission*> chosen;
  chosen.reserve(rows.size());
  for (const dataset::Submission& s : rows) chosen.push_back(&s);
  const std::vector<analysis::Progression> progressions = analysis::progression(std::move(chosen));
  for (const analysis::Progression& p : progressions) {
    writer.section(section_title(p));
    writer.leaderboard_shown(p.leaderboard_id, p.problem_name);
    for (const analysis::ProgressionStep& s : p.steps) {
      auto opt_score = [](const std::optional<double>& v) {
        return v ? report::Cell{*v} : report::Cell{};
      };
      report::Cell runner = s.runner ? report::Cell{*s.runner} : report::Cell{};
      if (format == report::Format::TABLE) {
        writer.row({s.submission_time, s.submission_id, runner, s.status, opt_score(s.score),
                    opt_score(s.best), s.improved ? report::Cell{std::string("*")} : report::Cell{},
                    opt_score(s.factor_previous),
                    s.factor_previous ? opt_score(s.factor_first) : report::Cell{}},
                   p.leaderboard_id, p.problem_name);
      } else {
        writer.row({p.leaderboard_id, p.problem_name, p.user_id,
                    p.user_name ? report::Cell{*p.user_name} : report::Cell{}, s.submission_id,
                    s.submission_time, runner, s.status,
                    s.passed ? report::Cell{*s.passed} : report::Cell{}, opt_score(s.score),
                    s.qualifies, opt_score(s.best), s.improved, opt_score(s.factor_previous),
                    opt_score(s.factor_first)},
                   p.leaderboard_id, p.problem_name);
      }
    }
  }
  if (format == report::Format::TABLE) {
    writer.table_footer(
        "\n* a new best on its runner; vs_previous: the previous best / this score; vs_first: the "
        "first qualifying score / this score");
  }
  if (plot.wanted()) {
    if (progressions.size() > 1) {
      throw UsageError("--plot draws one problem; this user has submissions on " +
                       std::to_string(progressions.size()) + " problems: add --problem");
    }
    plot.write(progression_chart(progressions.front()), err);
  }
  if (options.svg != nullptr && progressions.size() == 1) {
    *options.svg = plot::render_svg(progression_chart(progressions.front()));
  }
  writer.finish();
}

void add_progression_command(CLI::App& app, Commands& commands) {
  auto options = std::make_shared<ProgressionOptions>();
  CLI::App* cmd = app.add_subcommand(
      "progression",
      "One user's submissions in time order: score, running best, improvements and their "
      "factors; --plot draws it");
  add_data_options(*cmd, options->data);
  cmd->add_option("--user,-u", options->user, "User id or user name")->required();
  cmd->add_option("--problem,-p", options->problem, "Problem (leaderboard) name");
  cmd->add_option("--leaderboard", options->leaderboard, "Leaderboard id");
  cmd->add_option("--runner", options->runner, "Only this runner (GPU), e.g. B200");
  cmd->add_option("--epoch", options->epoch,
                  "Only submissions of this harness epoch (0 before the first change)");
  cmd->add_option("--plot", options->plot,
                  "Also draw score over time (log axis), the running best and the improvements "
                  "as an SVG file");
  add_format_options(*cmd, options->format, options->out);
  cmd->footer(
      "\nThe running best is kept per runner over the qualifying rows (scored, passed, not\n"
      "hacked); a row marked * set a new best (docs/analyses.md).\n"
      "\nExamples:\n"
      "  kbdata progression --user warpne -p nvfp4_gemm\n"
      "  kbdata progression --user 1073720375606738072 -p nvfp4_gemm --plot warpne.svg\n"
      "  kbdata progression --user warpne -f csv > warpne.csv\n"
      "\nExit status: 0 success, 1 no such user or unreadable input, 2 wrong usage.");
  commands.push_back({cmd, [options] { run_progression(*options, stdout, stderr); }});
}

}  // namespace kbdata::cli
