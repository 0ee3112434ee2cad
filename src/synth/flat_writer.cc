#include "synth/flat_writer.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <tuple>

#include "dataset/flat_file_writer.h"
#include "synth/code_generator.h"

namespace kbdata::synth {

std::vector<FlatRow> flat_rows(std::span<const LeaderboardModel> models,
                               const Population& population) {
  const double kNull = std::numeric_limits<double>::quiet_NaN();
  std::vector<FlatRow> rows;
  for (uint32_t i = 0; i < population.submissions.size(); ++i) {
    const Submission& s = population.submissions[i];
    FlatRow row;
    row.submission = i;
    row.score = kNull;
    switch (s.outcome) {
      case Outcome::SCORED:
        for (size_t k = 0; k < models[s.leaderboard].runners.size(); ++k) {
          if ((s.runner_mask & (1u << k)) == 0) continue;
          FlatRow r = row;
          r.runner = static_cast<int8_t>(k);
          r.score = s.scores[k];
          r.has_passed = r.passed = true;
          r.leaderboard_mode = true;
          r.status = "succeeded";
          rows.push_back(r);
        }
        continue;
      case Outcome::FAILED_CHECK:
        row.runner = static_cast<int8_t>(std::countr_zero(s.runner_mask));
        row.has_passed = true;
        row.passed = false;
        row.leaderboard_mode = true;
        row.status = "failed";
        break;
      case Outcome::HACKED:
        row.status = "hacked";
        break;
      case Outcome::PENDING:
        row.status = "active";
        break;
      case Outcome::ERROR:
      case Outcome::TEST_ONLY:
        // Done without a scored run: the job status, or "failed" where it says succeeded.
        row.status = "failed";
        break;
    }
    rows.push_back(row);
  }
  const auto& subs = population.submissions;
  auto score_key = [](double score) {
    return std::isnan(score) ? std::numeric_limits<double>::infinity() : score;
  };
  // Deduplicate.
  auto partition = [&](const FlatRow& r) {
    const Submission& s = subs[r.submission];
    return std::make_tuple(models[s.leaderboard].id, s.user, s.code_id, r.runner);
  };
  std::sort(rows.begin(), rows.end(), [&](const FlatRow& a, const FlatRow& b) {
    auto pa = partition(a);
    auto pb = partition(b);
    if (pa != pb) return pa < pb;
    double sa = score_key(a.score);
    double sb = score_key(b.score);
    if (sa != sb) return sa < sb;
    return subs[a.submission].time_us < subs[b.submission].time_us;
  });
  rows.erase(
      std::unique(rows.begin(), rows.end(),
                  [&](const FlatRow& a, const FlatRow& b) { return partition(a) == partition(b); }),
      rows.end());
  // The exporter's order; submission id breaks ties so the order is deterministic.
  std::sort(rows.begin(), rows.end(), [&](const FlatRow& a, const FlatRow& b) {
    const std::string& na = models[subs[a.submission].leaderboard].name;
    const std::string& nb = models[subs[b.submission].leaderboard].name;
    if (na != nb) return na < nb;
    double sa = score_key(a.score);
    double sb = score_key(b.score);
    if (sa != sb) return sa < sb;
    if (subs[a.submission].id != subs[b.submission].id) {
      return subs[a.submission].id < subs[b.submission].id;
    }
    return a.runner < b.runner;
  });
  return rows;
}

std::pair<int64_t, uint64_t> write_flat(const std::string& path,
                                        std::span<const LeaderboardModel> models,
                                        const Population& population, const OutputOptions& options,
                                        const ProgressFn& progress) {
  std::vector<FlatRow> rows = flat_rows(models, population);
  dataset::FlatFileWriter out(path, dataset::flat_file_columns(), options.writer,
                              options.provenance);
  using enum dataset::FlatColumn;
  auto text = [&](dataset::FlatColumn column, std::string_view v) {
    out.column<std::string_view>(column).value(v);
  };
  auto i64 = [&](dataset::FlatColumn column, int64_t v) { out.column<int64_t>(column).value(v); };
  std::string code;  // reused: its buffer grows to the largest code
  int64_t done = 0;
  for (const FlatRow& r : rows) {
    const Submission& s = population.submissions[r.submission];
    const LeaderboardModel& m = models[s.leaderboard];
    const User& user = population.users[s.user];
    i64(SUBMISSION_ID, s.id);
    i64(LEADERBOARD_ID, m.id);
    text(PROBLEM_NAME, m.name);
    text(USER_ID, user.id);
    text(USER_NAME, user.name);
    i64(CODE_ID, s.code_id);
    text(FILE_NAME, m.cuda_file ? "submission.cu" : "submission.py");
    i64(SUBMISSION_TIME, s.time_us);
    text(STATUS, r.status);
    std::isnan(r.score) ? out.column(SCORE).null() : out.column<double>(SCORE).value(r.score);
    r.has_passed ? out.column<bool>(PASSED).value(r.passed) : out.column(PASSED).null();
    r.leaderboard_mode ? text(MODE, "leaderboard") : out.column(MODE).null();
    r.runner >= 0 ? text(RUNNER, m.runners[static_cast<size_t>(r.runner)])
                  : out.column(RUNNER).null();
    code.clear();
    generate_code(s.code, m.name, code);
    text(CODE, code);
    out.end_row();
    if (progress && ++done % 4096 == 0) {
      progress(
          {.stage = {}, .done = static_cast<uint64_t>(done), .total = rows.size(), .unit = "rows"});
    }
  }
  out.commit();
  if (progress) progress({.stage = {}, .done = rows.size(), .total = rows.size(), .unit = "rows"});
  return {out.rows(), out.bytes_written()};
}

}  // namespace kbdata::synth
