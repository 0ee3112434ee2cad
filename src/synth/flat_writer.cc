#include "synth/flat_writer.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <tuple>

#include "dataset/flat_schema.h"
#include "synth/code_generator.h"
#include "synth/output_file.h"

namespace kbdata::synth {
namespace {

using parquet::PhysicalType;

using enum dataset::FlatColumn;

}  // namespace

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
                                        const Population& population,
                                        const parquet::WriterOptions& options,
                                        const Progress& progress) {
  std::vector<FlatRow> rows = flat_rows(models, population);
  OutputFile out(path, dataset::flat_schema(), options);
  Columns& c = out.columns();
  std::string code;
  int64_t done = 0;
  for (const FlatRow& row : rows) {
    const Submission& s = population.submissions[row.submission];
    const LeaderboardModel& m = models[s.leaderboard];
    const User& user = population.users[s.user];
    c.i64(SUBMISSION_ID, s.id);
    c.i64(LEADERBOARD_ID, m.id);
    c.bytes(PROBLEM_NAME, m.name);
    c.bytes(USER_ID, user.id);
    c.bytes(USER_NAME, user.name);
    c.i64(CODE_ID, s.code_id);
    c.bytes(FILE_NAME, m.cuda_file ? "submission.cu" : "submission.py");
    c.i64(SUBMISSION_TIME, s.time_us);
    c.bytes(STATUS, row.status);
    std::isnan(row.score) ? c.null(SCORE) : c.f64(SCORE, row.score);
    row.has_passed ? c.boolean(PASSED, row.passed) : c.null(PASSED);
    row.leaderboard_mode ? c.bytes(MODE, "leaderboard") : c.null(MODE);
    row.runner >= 0 ? c.bytes(RUNNER, m.runners[static_cast<size_t>(row.runner)]) : c.null(RUNNER);
    code.clear();
    generate_code(s.code, m.name, code);
    c.bytes(CODE, code);
    out.row_done();
    if (progress && ++done % 4096 == 0) progress(done, static_cast<int64_t>(rows.size()));
  }
  uint64_t bytes = out.finish();
  if (progress) progress(static_cast<int64_t>(rows.size()), static_cast<int64_t>(rows.size()));
  return {out.rows(), bytes};
}

}  // namespace kbdata::synth
