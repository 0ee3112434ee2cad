#include "cli/submissions_command.h"

#include <algorithm>

#include "cli/filter_checks.h"
#include "cli/output.h"
#include "cli/row_filter_options.h"
#include "cli/submission_output.h"
#include "common/closest_name.h"
#include "common/error.h"
#include "dataset/loader.h"

namespace kbdata::cli {

dataset::Filter build_filter(const SubmissionsOptions& o) {
  dataset::Filter f;
  f.problem = o.problem;
  f.leaderboard_id = o.leaderboard;
  f.user_id = o.user_id;
  f.user_name = o.user_name;
  f.runner = o.runner;
  f.passed_only = o.passed;
  f.scored_only = o.scored;
  if (o.since) f.since = dataset::parse_utc_time(*o.since, "--since");
  if (o.until) f.until = dataset::parse_utc_time(*o.until, "--until");
  if (f.since && f.until && *f.since >= *f.until) {
    throw UsageError("empty time range: --since " + *o.since + " is not before --until " +
                     *o.until);
  }
  return f;
}

namespace {

// The filters as typed, for a message: "--problem x, --runner y".
std::string filter_text(const SubmissionsOptions& o) {
  std::vector<std::string> parts;
  if (o.problem) parts.push_back("--problem " + *o.problem);
  if (o.leaderboard) parts.push_back("--leaderboard " + std::to_string(*o.leaderboard));
  if (o.user_id) parts.push_back("--user-id " + *o.user_id);
  if (o.user_name) parts.push_back("--user-name " + *o.user_name);
  if (o.runner) parts.push_back("--runner " + *o.runner);
  if (o.passed) parts.push_back("--passed");
  if (o.scored) parts.push_back("--scored");
  if (o.since) parts.push_back("--since " + *o.since);
  if (o.until) parts.push_back("--until " + *o.until);
  std::string text;
  for (const std::string& p : parts) text += (text.empty() ? "" : " ") + p;
  return text;
}

}  // namespace

void run_submissions(const SubmissionsOptions& options, std::FILE* out, std::FILE* err) {
  const SubmissionFormat format = parse_output_format(options.format);
  dataset::LoadOptions load;
  load.threads = options.data.threads.value_or(0);
  load.filter = build_filter(options);

  refuse_repeated_columns(options.columns);
  const std::vector<std::string>& known = selectable_submission_fields();
  for (const std::string& name : options.columns) {
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    std::string list;
    for (const std::string& f : known) list += (list.empty() ? "" : ", ") + f;
    throw UsageError("no field '" + name + "'" + did_you_mean(name, known) +
                     " (the fields: " + list + ")");
  }
  std::vector<std::string> fields = options.columns;
  if (fields.empty()) {
    if (format == SubmissionFormat::TABLE) {
      fields = {"submission_id", "problem_name", "user_id", "user_name", "submission_time",
                "status",        "score",        "passed",  "runner"};
    } else {
      fields = submission_fields();
      fields.pop_back();  // code
    }
  }
  if (options.with_code && std::find(fields.begin(), fields.end(), "code") == fields.end()) {
    fields.push_back("code");
  }
  load.with_code = std::find(fields.begin(), fields.end(), "code") != fields.end();
  load.with_results = std::find(fields.begin(), fields.end(), "benchmarks") != fields.end();

  // The writer checks the fields (and --out) before anything is read.
  // The data folder first: its files are inputs, which no output may replace (checked below).
  const dataset::DataDir dir = open_data_dir(options.data, err);
  resolve_filter(dir, load.filter);
  SubmissionWriter writer(format, fields, out, err, options.out);
  dataset::LoadStats stats;
  dataset::load_dir(
      dir, load, [&](dataset::Submission&& s) { writer.write(s); }, stats);
  writer.finish();
  report_load(options.data, stats, err);
  if (writer.rows() == 0) {
    write_all(err,
              "kbdata: no submissions" +
                  (load.filter.empty() ? "" : " match the filters (" + filter_text(options) + ")") +
                  " in " + dir.path + why_empty(dir, load.filter) + "\n");
  }
}

}  // namespace kbdata::cli
