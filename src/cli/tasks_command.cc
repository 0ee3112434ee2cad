#include "cli/tasks_command.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <variant>

#include "cli/decontaminate_options.h"
#include "cli/embedded.h"
#include "cli/filter_checks.h"
#include "cli/flag_exclusion.h"
#include "cli/threads.h"
#include "common/closest_name.h"
#include "common/error.h"
#include "common/file.h"
#include "common/version.h"
#include "dataset/filter.h"
#include "dataset/leaderboards_file.h"
#include "dataset/loader.h"
#include "pairs/pairs.h"
#include "query/noise.h"
#include "query/tasks.h"
#include "report/writer.h"

namespace kbdata::cli {
namespace {

// The columns a table for people shows (the machine formats carry them all): what a reader picks
// a task by.
const std::vector<std::string>& tasks_people_names(bool decontaminate) {
  static const std::vector<std::string> plain = {
      "problem_name",     "runner", "gpu",        "users",
      "record",           "median", "top10_cut",  "record_user_name",
      "first_submission", "epochs", "noise_sigma"};
  static const std::vector<std::string> with = [] {
    std::vector<std::string> v = plain;
    v.push_back("contaminated");
    return v;
  }();
  return decontaminate ? with : plain;
}

// record_user_id and record_user_name in query::tasks_columns().
constexpr size_t kRecordUserId = 16;
constexpr size_t kRecordUserName = 17;

std::string tasks_card_text(const TasksOptions& options, const std::string& data,
                            const std::string& out_name, const query::TasksCounts& counts,
                            const pairs::BenchmarkSet* set, uint64_t flagged_left_out) {
  std::string t = "# KernelBot evaluation tasks (kbdata tasks)\n\n";
  t += "File `" + out_name + "`: " + std::to_string(counts.tasks) +
       (counts.tasks == 1 ? " task" : " tasks") +
       ", one per (leaderboard, runner) where some user has a qualifying score.\n";
  t += "\n## How the tasks were chosen\n\n";
  t += "- Data: `" + data + "`, read by kbdata " + std::string(kVersion) + ".\n";
  t += "- Command: `" + invoked_command_line() + "`.\n";
  std::string selection;
  for (const std::string& p : options.problems) selection += " `-p " + p + "`";
  if (options.runner) selection += " `--runner " + *options.runner + "`";
  t += "- Selection:" + (selection.empty() ? std::string(" every problem and runner") : selection) +
       ".\n";
  t += "- A row qualifies when it has a score (a positive number of seconds), passed and is not "
       "marked hacked; each user's best qualifying score counts (the platform's ranking rules). "
       "The human distribution (record, second, third, top10_cut, q1, median, q3) is of the "
       "users' bests over every harness epoch; first and last submission are of every row of "
       "the leaderboard and runner, whatever its outcome.\n";
  if (options.after) {
    t += "- `--after " + *options.after +
         "`: only the tasks whose first submission is after that time (a model trained on data "
         "up to it has not seen their solutions here); " +
         std::to_string(counts.before_after) + " left out.\n";
  }
  if (set != nullptr) {
    const pairs::DecontaminationOptions& d = set->options();
    t += "- `--decontaminate " + *options.decontaminate + "` (" + set->describe() +
         "): a task is marked `contaminated` when the code of any of its qualifying rows shares " +
         (d.ngram_share > 0 ? "more than " + report::double_text(d.ngram_share) +
                                  " of its distinct " + std::to_string(d.ngram) + "-grams"
                            : "a " + std::to_string(d.ngram) + "-gram of tokens") +
         " with the set, or has an estimated Jaccard similarity of at least " +
         report::double_text(d.threshold) + " with one of its items; " +
         std::to_string(counts.contaminated) +
         " of the tasks are. They are marked, not left "
         "out.\n";
  }
  if (options.exclude_flagged) {
    t += "- Left out before anything else: the " + std::to_string(flagged_left_out) +
         " rows `kbdata audit` flags (`--exclude-flagged=" + *options.exclude_flagged + "`).\n";
  }
  t += "- Noise: per harness epoch, the combined estimate of `kbdata noise` (the sd of the log of "
       "one score) from that epoch's rows alone; null where too few pairs.\n";
  t += "\n## Fields\n\n";
  for (const report::Column& c : query::tasks_columns()) {
    t += "- `" + c.name + "`" + (c.list ? " (list)" : "") + "\n";
  }
  t += "\nThe rules, field by field: kbdata's docs/evaluation.md.\n";
  return t;
}

// What the load reads: every row, whatever its outcome (first and last submission count them
// all); with a decontamination set, the code only of qualifying rows, checked against the set on
// the scan's workers.
dataset::LoadOptions tasks_load(const TasksOptions& options, const dataset::DataDir& dir,
                                const std::shared_ptr<const pairs::BenchmarkSet>& set,
                                std::FILE* err) {
  dataset::LoadOptions load;
  load.threads = command_threads(options.data.threads);
  load.filter.runner = options.runner;
  load.with_details = false;
  resolve_filter(dir, load.filter);
  exclude_flagged(options.exclude_flagged, dir, load, err);
  if (set) {
    load.with_code = true;
    load.code_wanted = [](const dataset::Submission& s) { return dataset::qualifies(s); };
    load.prepare = [set](dataset::Submission& s, std::optional<std::string_view> code) {
      if (code && dataset::qualifies(s)) {
        s.prepared = set->check(*code) != pairs::Contamination::NONE;
      }
    };
  }
  return load;
}

// The noise per epoch, only when some task is written (finish may be called again), of the one
// problem asked when there is one (pushed down to the load).
std::map<int, std::vector<analysis::SeriesNoise>> tasks_noise(query::TasksQuery& tasks,
                                                              const TasksOptions& options,
                                                              const dataset::DataDir& dir,
                                                              const dataset::Filter& filter,
                                                              std::FILE* err) {
  if (tasks.finish({}).rows() == 0) return {};
  // Every runner's rows, as `kbdata noise -p` reads them: consecutive versions are consecutive
  // whatever the runner (place measures the same way).
  dataset::Filter noise_filter = filter;
  noise_filter.runner.reset();
  if (options.problems.size() == 1) noise_filter.problem = options.problems.front();
  return query::measure_noise_by_epoch(noise_filter, command_threads(options.data.threads), 0.98,
                                       query_loader(dir, options.data, err));
}

// Why no task was written: a problem asked that nothing ranks on, every task begun before
// --after, or no qualifying submission.
std::string why_no_tasks(const TasksOptions& options, const dataset::DataDir& dir,
                         const query::TasksCounts& counts, const dataset::Filter& filter) {
  std::string why = "kbdata: no tasks";
  for (const std::string& p : options.problems) {
    if (!std::binary_search(counts.problems_seen.begin(), counts.problems_seen.end(), p)) {
      return why + ": nothing ranks on problem '" + p + "' in " + dir.path +
             did_you_mean(p, counts.problems_seen);
    }
  }
  if (counts.before_after > 0) {
    return why + ": all " + std::to_string(counts.before_after) + " began before --after " +
           *options.after;
  }
  return why + " (no qualifying submission)" + why_empty(dir, filter);
}

}  // namespace

void run_tasks(const TasksOptions& options, std::FILE* out, std::FILE* err) {
  query::TasksRequest request;
  if (options.after) request.after = dataset::parse_utc_time(*options.after, "--after");
  request.problems.insert(options.problems.begin(), options.problems.end());
  const report::Format format = report::output_format(options.format, options.out);
  const std::shared_ptr<const pairs::BenchmarkSet> set =
      load_decontamination_set(options.decontaminate, options.decontamination);
  request.decontaminate = set != nullptr;

  const dataset::DataDir dir = open_data_dir(options.data, err);
  const std::vector<report::Column> columns = query::tasks_columns();
  result::Projection people(columns, tasks_people_names(request.decontaminate));
  people.rename("record_user_name", "record_holder");  // the name, else the id
  report::Writer writer(format, format == report::Format::TABLE ? people.columns() : columns, out,
                        err, options.out, query::kTasksRule, command_threads(options.data.threads));
  std::unique_ptr<AtomicOutputFile> card;
  std::string card_path;
  if (options.out) {
    card_path = pairs::default_card_path(*options.out);
    card = std::make_unique<AtomicOutputFile>(card_path);
  }
  for (const dataset::DataFile* f : dataset::leaderboards_files(dir)) {
    for (dataset::LeaderboardEntry& e : dataset::read_leaderboards(dir, *f)) {
      request.leaderboards.push_back(std::move(e));
    }
  }

  const dataset::LoadOptions load = tasks_load(options, dir, set, err);
  query::TasksQuery tasks(std::move(request));
  load_submissions(
      dir, options.data, load, "reading the tasks",
      [&](dataset::Submission&& s) {
        const bool* contaminated = std::any_cast<bool>(&s.prepared);
        tasks.add(s, contaminated ? std::optional<bool>(*contaminated) : std::nullopt);
      },
      err);

  result::ResultTable answer = tasks.finish(tasks_noise(tasks, options, dir, load.filter, err));
  const query::TasksCounts& counts = tasks.counts();
  if (answer.rows() == 0)
    report::write_all(err, why_no_tasks(options, dir, counts, load.filter) + "\n");
  std::string line = std::to_string(counts.tasks) + (counts.tasks == 1 ? " task" : " tasks");
  if (options.after) {
    line += "; " + std::to_string(counts.before_after) + " began before --after " + *options.after;
  }
  if (set) line += "; " + std::to_string(counts.contaminated) + " contaminated";
  answer.summary(line);

  if (format == report::Format::TABLE) {
    result::ResultTable shown = people.table(answer, [](std::vector<report::Cell>& cells) {
      // A user without a name (legacy files publish none) is shown by id.
      if (std::holds_alternative<std::monostate>(cells[kRecordUserName])) {
        cells[kRecordUserName] = cells[kRecordUserId];
      }
    });
    writer.write(shown);
  } else {
    if (!hand_over(answer)) writer.write(answer);
  }
  writer.finish();
  if (card) {
    const std::string name = std::filesystem::path(*options.out).filename().string();
    card->write(tasks_card_text(options, dir.path, name, counts, set.get(),
                                load.filter.excluded ? load.filter.excluded->size() : 0));
    card->sync();
    card->commit();
    report::write_all(err, "kbdata: card " + card_path + "\n");
  }
}

void add_tasks_command(CLI::App& app, Commands& commands) {
  auto options = std::make_shared<TasksOptions>();
  CLI::App* cmd = app.add_subcommand(
      "tasks",
      "Evaluation tasks: one per (leaderboard, runner), with the human distribution of the "
      "users' best scores, the record, the harness epochs and their noise, chosen by date and "
      "decontaminated against a training set (docs/evaluation.md)");
  add_data_options(*cmd, options->data);
  cmd->add_option("--problem,-p", options->problems, "Only this problem (repeat for several)");
  cmd->add_option("--runner", options->runner, "Only this runner, e.g. B200");
  cmd->add_option("--after", options->after,
                  "Only tasks whose first submission is after this UTC time (YYYY-MM-DD[THH:MM]): "
                  "those a model trained on data up to it has not seen solved here");
  add_decontaminate_options(*cmd, options->decontaminate, options->decontamination,
                            "Mark the tasks whose human code overlaps this training set: a folder "
                            "of files, a file, or a Parquet file's code column");
  add_exclude_flagged_option(*cmd, options->exclude_flagged);
  add_format_options(*cmd, options->format, options->out);
  cmd->footer(
      "\nWith --out FILE a card, FILE.card.md, says how the tasks were chosen. The table shows\n"
      "a few columns; csv, json, jsonl and parquet carry every field (docs/evaluation.md).\n"
      "\nExamples:\n"
      "  kbdata tasks\n"
      "  kbdata tasks -p trimul --runner H100 -f json\n"
      "  kbdata tasks --after 2025-12-01 --out tasks.jsonl\n"
      "  kbdata tasks --out tasks.parquet --decontaminate data/sample/leaderboards.parquet \\\n"
      "      --decontaminate-column reference\n"
      "\nExit status: 0 success, 1 the input could not be read or the output written, 2 wrong "
      "usage.");
  commands.push_back({cmd, [options] { run_tasks(*options, command_out(), command_err()); }});
}

}  // namespace kbdata::cli
