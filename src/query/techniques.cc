#include "query/techniques.h"

#include <fmt/format.h>

#include <algorithm>
#include <any>
#include <new>
#include <utility>

#include "common/error.h"
#include "common/text.h"
#include "report/submissions.h"

namespace kbdata::query {
namespace {

using result::Cell;
using result::Column;
using result::ColumnType;

std::string percent(uint64_t n, uint64_t of) {
  const double p = of == 0 ? 0 : 100.0 * static_cast<double>(n) / static_cast<double>(of);
  return p < 1 && n > 0 ? fmt::format("{:.1f}%", p) : fmt::format("{:.0f}%", p);
}

Cell share(uint64_t n, uint64_t of) {
  if (of == 0) return {};
  return static_cast<double>(n) / static_cast<double>(of);
}

}  // namespace

const char* const kTechniquesRule =
    "kbdata techniques: per submission row with code, the technology that runs its hot loop "
    "(language), every technology present, feature tags and sizes, read from the tokens of its "
    "Python and of the C++ it embeds, never from comments, docstrings or parts of names "
    "(docs/techniques.md)";
const char* const kTrendRule =
    "kbdata techniques --trend: per week of the competition (week 1 starts at the problem's first "
    "submission), the share of the week's submissions and users using each language (the hot "
    "loop's) and feature, and the share among the best kernels of the top users of the ranking at "
    "the week's end (the platform's ranking rules, on the runner with the most scores)";
const char* const kWinnersRule =
    "kbdata techniques --winners: per language and feature, its share among the best kernels of "
    "the top users of the final ranking (ties at the cut stay) against the other ranked users' "
    "best kernels, and the median score of the best kernels with it against those without it "
    "(ratio below 1: faster with it)";

std::vector<Column> techniques_columns() {
  std::vector<Column> columns = report::row_identity_columns();
  columns.insert(columns.end(), {{"language", ColumnType::STRING},
                                 {"languages_all", ColumnType::STRING},
                                 {"features", ColumnType::STRING},
                                 {"autotune_configs", ColumnType::INT64},
                                 {"lines", ColumnType::INT64},
                                 {"kernel_lines", ColumnType::INT64},
                                 {"kernels", ColumnType::INT64},
                                 {"shape_branches", ColumnType::INT64}});
  return columns;
}

std::vector<Column> trend_columns() {
  return {{"leaderboard_id", ColumnType::INT64},
          {"problem_name", ColumnType::STRING},
          {"runner", ColumnType::STRING},
          {"week", ColumnType::INT64},
          {"week_start", ColumnType::TIMESTAMP},
          {"kind", ColumnType::STRING},
          {"tag", ColumnType::STRING},
          {"submissions", ColumnType::INT64},
          {"submissions_share", ColumnType::DOUBLE},
          {"users", ColumnType::INT64},
          {"users_share", ColumnType::DOUBLE},
          {"top", ColumnType::INT64},
          {"top_size", ColumnType::INT64},
          {"top_share", ColumnType::DOUBLE}};
}

std::vector<Column> winners_columns() {
  return {{"leaderboard_id", ColumnType::INT64}, {"problem_name", ColumnType::STRING},
          {"runner", ColumnType::STRING},        {"kind", ColumnType::STRING},
          {"tag", ColumnType::STRING},           {"top_kernels", ColumnType::INT64},
          {"top_with", ColumnType::INT64},       {"top_share", ColumnType::DOUBLE},
          {"rest_kernels", ColumnType::INT64},   {"rest_with", ColumnType::INT64},
          {"rest_share", ColumnType::DOUBLE},    {"median_with", ColumnType::SCORE},
          {"median_without", ColumnType::SCORE}, {"ratio", ColumnType::FACTOR}};
}

techniques::Techniques classify_row(const dataset::Submission& s, std::string_view code) {
  try {
    return techniques::classify(code, s.file_name.value_or(""));
  } catch (const std::bad_alloc&) {
    throw Error("out of memory reading the code of submission " + std::to_string(s.submission_id) +
                    " (" +
                    (s.problem_name.empty() ? "leaderboard " + std::to_string(s.leaderboard_id)
                                            : s.problem_name) +
                    (s.runner ? " on " + *s.runner : "") + ", " + grouped(code.size()) +
                    " bytes of code); ",
                OptionName("threads", "1"), " reads one code at a time");
  }
}

dataset::PrepareStep techniques_step() {
  dataset::PrepareStep step;
  step.key = "techniques";
  step.prepare = [](dataset::Submission& s, std::optional<std::string_view> code) {
    if (code) s.prepared = classify_row(s, *code);
  };
  step.bytes = [](const std::any&) { return sizeof(techniques::Techniques); };  // std::any's
  return step;
}

dataset::LoadOptions techniques_load_options(dataset::Filter filter, int threads) {
  dataset::LoadOptions load;
  load.threads = threads;
  load.filter = std::move(filter);
  load.with_code = true;
  load.with_details = true;
  load.prepare_with(techniques_step());
  return load;
}

TechniquesQuery::TechniquesQuery() : table_(techniques_columns(), kTechniquesRule) {}

void TechniquesQuery::add(const dataset::Submission& s, const techniques::Techniques& t) {
  Counts& c = counts_[s.leaderboard_id];
  c.problem_name = s.problem_name;
  ++c.rows;
  ++c.languages[static_cast<size_t>(t.language)];
  for (size_t i = 0; i < techniques::kFeatures; ++i) {
    c.features[i] += t.has(static_cast<techniques::Feature>(i)) ? 1 : 0;
  }
  std::vector<Cell> cells = report::row_identity_cells(s);
  cells.insert(cells.end(),
               {std::string(techniques::to_string(t.language)), techniques::languages_text(t),
                techniques::features_text(t), static_cast<int64_t>(t.autotune_configs),
                static_cast<int64_t>(t.lines), static_cast<int64_t>(t.kernel_lines),
                static_cast<int64_t>(t.kernels), static_cast<int64_t>(t.shape_branches)});
  table_.add_row(std::move(cells), s.leaderboard_id, s.problem_name);
}

result::ResultTable TechniquesQuery::finish() {
  for (const auto& [id, c] : counts_) {
    std::string line = (c.problem_name.empty() ? "leaderboard" : c.problem_name) + " (" +
                       std::to_string(id) + "): " + std::to_string(c.rows) + " rows; language ";
    std::vector<std::pair<uint64_t, size_t>> order;
    for (size_t i = 0; i < c.languages.size(); ++i) {
      if (c.languages[i] > 0) order.emplace_back(c.languages[i], i);
    }
    std::stable_sort(order.begin(), order.end(),
                     [](const auto& x, const auto& y) { return x.first > y.first; });
    for (size_t i = 0; i < order.size(); ++i) {
      line +=
          (i > 0 ? ", " : "") +
          std::string(techniques::to_string(static_cast<techniques::Language>(order[i].second))) +
          " " + percent(order[i].first, c.rows);
    }
    std::string features;
    for (size_t i = 0; i < c.features.size(); ++i) {
      if (c.features[i] == 0) continue;
      features += (features.empty() ? "" : ", ") +
                  std::string(techniques::to_string(static_cast<techniques::Feature>(i))) + " " +
                  percent(c.features[i], c.rows);
    }
    if (!features.empty()) line += "; features " + features;
    table_.summary(std::move(line));
  }
  return std::move(table_);
}

TrendAnswer techniques_trend(const std::vector<analysis::TechniqueRow>& rows, size_t top) {
  TrendAnswer answer{result::ResultTable(trend_columns(), kTrendRule),
                     analysis::technique_trend(rows, top)};
  for (const analysis::TrendRow& r : answer.trend.rows) {
    answer.table.add_row(
        {r.leaderboard_id, r.problem_name, result::optional_cell(r.runner), r.week, r.week_start,
         std::string(r.tag.kind()), std::string(r.tag.name()), static_cast<int64_t>(r.submissions),
         share(r.submissions, r.week_submissions), static_cast<int64_t>(r.users),
         share(r.users, r.week_users), static_cast<int64_t>(r.top),
         static_cast<int64_t>(r.top_size), share(r.top, r.top_size)},
        r.leaderboard_id, r.problem_name);
  }
  return answer;
}

result::ResultTable techniques_winners(const std::vector<analysis::TechniqueRow>& rows,
                                       size_t top) {
  result::ResultTable table(winners_columns(), kWinnersRule);
  for (const analysis::WinnersRow& r : analysis::technique_winners(rows, top)) {
    Cell ratio;
    if (r.median_with && r.median_without && *r.median_without > 0) {
      ratio = *r.median_with / *r.median_without;
    }
    table.add_row(
        {r.leaderboard_id, r.problem_name, result::optional_cell(r.runner),
         std::string(r.tag.kind()), std::string(r.tag.name()), static_cast<int64_t>(r.top_kernels),
         static_cast<int64_t>(r.top_with), share(r.top_with, r.top_kernels),
         static_cast<int64_t>(r.rest_kernels), static_cast<int64_t>(r.rest_with),
         share(r.rest_with, r.rest_kernels), result::optional_cell(r.median_with),
         result::optional_cell(r.median_without), ratio},
        r.leaderboard_id, r.problem_name);
  }
  return table;
}

}  // namespace kbdata::query
