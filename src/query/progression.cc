#include "query/progression.h"

#include <fmt/format.h>

#include "common/error.h"
#include "report/text.h"

namespace kbdata::query {
namespace {

using result::Cell;
using result::Column;
using result::ColumnType;

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
    title += fmt::format(" (×{:.2f} over the first)", *first / *best);
  }
  return title;
}

}  // namespace

const char* const kProgressionRule =
    "kbdata progression: one user's submissions in time order; running best per runner of the "
    "qualifying scores (scored, passed, not hacked); improvements strictly below the previous best "
    "(docs/analyses.md)";

std::vector<Column> progression_columns() {
  return {{"leaderboard_id", ColumnType::INT64}, {"problem_name", ColumnType::STRING},
          {"user_id", ColumnType::STRING},       {"user_name", ColumnType::STRING},
          {"submission_id", ColumnType::INT64},  {"submission_time", ColumnType::TIMESTAMP},
          {"runner", ColumnType::STRING},        {"status", ColumnType::STRING},
          {"passed", ColumnType::BOOL},          {"score", ColumnType::SCORE},
          {"qualifies", ColumnType::BOOL},       {"best", ColumnType::SCORE},
          {"improved", ColumnType::BOOL},        {"factor_previous", ColumnType::FACTOR},
          {"factor_first", ColumnType::FACTOR}};
}

dataset::LoadOptions ProgressionQuery::load(dataset::Filter filter, int threads,
                                            const Loader& loader) {
  dataset::LoadOptions load;
  load.threads = threads;
  load.filter = std::move(filter);
  load.with_details = false;  // code_id, file_name and mode are not shown
  const dataset::SubmissionSink keep = [this](dataset::Submission&& s) { add(std::move(s)); };
  // An id match wins over users named like it (finish()), so the user's id is looked for first;
  // only when no row has it are the rows read again for a user of that name (code is never read).
  dataset::LoadOptions by_user_id = load;
  by_user_id.filter.user_id = request_.user;
  loader("finding " + request_.user + "'s submissions", by_user_id, keep);
  if (!empty()) return by_user_id;
  load.filter.user = request_.user;
  loader("finding " + request_.user + "'s submissions", load, keep);
  return load;
}

void ProgressionQuery::add(dataset::Submission&& s) {
  const bool id_match = s.user_id == request_.user;
  const bool name_match = s.user_name && *s.user_name == request_.user;
  if (!id_match && !name_match) return;
  (id_match ? by_id_ : by_name_).insert(s.user_id);
  rows_.push_back(std::move(s));
}

result::ResultTable ProgressionQuery::finish() {
  if (!by_id_.empty()) {
    // An id match wins over users who happen to be named like it.
    std::erase_if(rows_, [&](const dataset::Submission& s) { return s.user_id != request_.user; });
  } else if (by_name_.size() > 1) {
    std::string ids;
    for (const std::string& id : by_name_) ids += (ids.empty() ? "" : ", ") + id;
    throw UsageError("user name '" + request_.user + "' belongs to several users (ids " + ids +
                         "); give one id with ",
                     OptionName("user"));
  }
  std::vector<const dataset::Submission*> chosen;
  chosen.reserve(rows_.size());
  for (const dataset::Submission& s : rows_) chosen.push_back(&s);
  progressions_ = analysis::progression(std::move(chosen));

  result::ResultTable table(progression_columns(), kProgressionRule);
  for (const analysis::Progression& p : progressions_) {
    table.section(section_title(p));
    table.leaderboard_shown(p.leaderboard_id, p.problem_name);
    for (const analysis::ProgressionStep& s : p.steps) {
      table.add_row(
          {p.leaderboard_id, p.problem_name, p.user_id, result::optional_cell(p.user_name),
           s.submission_id, s.submission_time, result::optional_cell(s.runner), s.status,
           result::optional_cell(s.passed), result::optional_cell(s.score), s.qualifies,
           result::optional_cell(s.best), s.improved, result::optional_cell(s.factor_previous),
           result::optional_cell(s.factor_first)},
          p.leaderboard_id, p.problem_name);
    }
  }
  return table;
}

}  // namespace kbdata::query
