#include "cli/submissions_command.h"

#include <algorithm>

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

void run_submissions(const SubmissionsOptions& options, std::FILE* out, std::FILE* err) {
  const SubmissionFormat format = parse_output_format(options.format);
  dataset::LoadOptions load;
  load.filter = build_filter(options);

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
  SubmissionWriter writer(format, fields, out, err, options.out);
  dataset::LoadStats stats;
  dataset::load_dir(
      dir, load, [&](dataset::Submission&& s) { writer.write(s); }, stats);
  writer.finish();
  report_load(options.data, stats, err);
}

}  // namespace kbdata::cli
