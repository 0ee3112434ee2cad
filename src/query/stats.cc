#include "query/stats.h"

namespace kbdata::query {
namespace {

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ",") + p;
  return out;
}

result::Cell count(uint64_t v) { return result::Cell{static_cast<int64_t>(v)}; }

result::Cell optional_count(const std::optional<uint64_t>& v) {
  return v ? count(*v) : result::Cell{};
}

}  // namespace

const char* const kStatsRule =
    "kbdata stats: per config and leaderboard, counts over the model's rows; score min, p10 and "
    "median (quantile_cont) of the qualifying rows (a score that is a positive normal number, "
    "passed, not hacked); invalid_scores: NaN, infinite, negative, 0 or subnormal scores, which "
    "measure nothing; code bytes of the "
    "decoded code; legacy files: scores reproduced by recomputing them from the scoring run's "
    "benchmark means by the leaderboard's ranking_by (relative error under 1e-9)";

std::vector<result::Column> stats_columns(bool flagged) {
  using result::ColumnType;
  std::vector<result::Column> columns = {{"config", ColumnType::STRING},
                                         {"leaderboard_id", ColumnType::INT64},
                                         {"problem_name", ColumnType::STRING},
                                         {"runners", ColumnType::STRING},
                                         {"rows", ColumnType::INT64},
                                         {"submissions", ColumnType::INT64},
                                         {"users", ColumnType::INT64},
                                         {"passing", ColumnType::INT64},
                                         {"scored", ColumnType::INT64},
                                         {"qualifying", ColumnType::INT64},
                                         {"invalid_scores", ColumnType::INT64},
                                         {"score_min", ColumnType::SCORE},
                                         {"score_p10", ColumnType::SCORE},
                                         {"score_median", ColumnType::SCORE},
                                         {"first_submission", ColumnType::TIMESTAMP},
                                         {"last_submission", ColumnType::TIMESTAMP},
                                         {"code_bytes", ColumnType::INT64},
                                         {"legacy_scores", ColumnType::INT64},
                                         {"scores_reproduced", ColumnType::INT64}};
  if (flagged) {
    columns.push_back({"suspicious", ColumnType::INT64});
    columns.push_back({"cheat", ColumnType::INT64});
  }
  return columns;
}

void StatsQuery::add(const std::string& source, const dataset::Submission& s, bool legacy_runs,
                     std::optional<audit::Verdict> flag) {
  builder_.add(source, s, legacy_runs);
  if (request_.flagged && flag) {
    auto& [suspicious, cheat] = flagged_[{source, s.leaderboard_id}];
    ++(*flag == audit::Verdict::CHEAT ? cheat : suspicious);
  }
}

result::ResultTable StatsQuery::finish() const {
  result::ResultTable table(stats_columns(request_.flagged), kStatsRule);
  std::optional<std::string> section;
  for (const analysis::LeaderboardStats& s : builder_.finish()) {
    if (s.source != section) {
      section = s.source;
      table.section(s.source);
    }
    std::vector<result::Cell> cells = {s.source,
                                       s.leaderboard_id,
                                       s.problem_name,
                                       s.runners.empty() ? result::Cell{} : joined(s.runners),
                                       count(s.rows),
                                       count(s.submissions),
                                       count(s.users),
                                       count(s.passing),
                                       count(s.scored),
                                       count(s.qualifying),
                                       count(s.invalid_scores),
                                       result::optional_cell(s.score_min),
                                       result::optional_cell(s.score_p10),
                                       result::optional_cell(s.score_median),
                                       result::optional_cell(s.first_time),
                                       result::optional_cell(s.last_time),
                                       count(s.code_bytes),
                                       optional_count(s.legacy_scores),
                                       optional_count(s.scores_reproduced)};
    if (request_.flagged) {
      const auto it = flagged_.find({s.source, s.leaderboard_id});
      const std::pair<uint64_t, uint64_t> n =
          it == flagged_.end() ? std::pair<uint64_t, uint64_t>{} : it->second;
      cells.push_back(count(n.first));
      cells.push_back(count(n.second));
    }
    table.add_row(std::move(cells), s.leaderboard_id, s.problem_name);
  }
  return table;
}

}  // namespace kbdata::query
