// `kbdata techniques` as queries (docs/techniques.md): per submission row with code, what its code
// uses (TechniquesQuery); over one problem's rows, the weekly trend (techniques_trend) and the
// winners' techniques against the rest (techniques_winners). The caller loads the rows and
// classifies their code (the "techniques" prepare step).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/technique_trend.h"
#include "dataset/loader.h"
#include "dataset/submission.h"
#include "result/table.h"
#include "techniques/techniques.h"

namespace kbdata::query {

// What the rows are (Parquet's kbdata.rule), per report.
extern const char* const kTechniquesRule;
extern const char* const kTrendRule;
extern const char* const kWinnersRule;

// report::row_identity_columns(), then language, languages_all, features, autotune_configs,
// lines, kernel_lines, kernels, shape_branches.
[[nodiscard]] std::vector<result::Column> techniques_columns();
// leaderboard_id, problem_name, runner, week, week_start, kind, tag, submissions,
// submissions_share, users, users_share, top, top_size, top_share.
[[nodiscard]] std::vector<result::Column> trend_columns();
// leaderboard_id, problem_name, runner, kind, tag, top_kernels, top_with, top_share,
// rest_kernels, rest_with, rest_share, median_with, median_without, ratio.
[[nodiscard]] std::vector<result::Column> winners_columns();

// techniques::classify of one row's code; running out of memory on it is an error that names the
// row and its code's size (the model of a code takes a few bytes per byte of it).
[[nodiscard]] techniques::Techniques classify_row(const dataset::Submission& s,
                                                  std::string_view code);

// classify_row of each row's code (nothing for a row without code) as a named step
// (dataset/resident.h), key "techniques": the load the techniques queries read.
[[nodiscard]] dataset::PrepareStep techniques_step();

// What the techniques queries read for the selection `filter`: the rows with code and details,
// each classified on the scan's workers (techniques_step); a row without code has no prepared
// value.
[[nodiscard]] dataset::LoadOptions techniques_load_options(dataset::Filter filter, int threads);

class TechniquesQuery {
 public:
  TechniquesQuery();

  // One row with code and what its code uses.
  void add(const dataset::Submission& s, const techniques::Techniques& t);

  // The rows, each naming its leaderboard, then per leaderboard (by id) a summary line: its rows,
  // their languages by share, and the features present by share. Called once, after the last
  // add().
  [[nodiscard]] result::ResultTable finish();

 private:
  // Per leaderboard: rows, and rows per language and per feature.
  struct Counts {
    std::string problem_name;
    uint64_t rows = 0;
    std::array<uint64_t, techniques::kLanguages> languages{};
    std::array<uint64_t, techniques::kFeatures> features{};
  };
  result::ResultTable table_;
  std::map<int64_t, Counts> counts_;
};

// The trend of `rows` (analysis::technique_trend) as a table, and the trend itself (for its chart
// and the rows it left out for lying apart in time).
struct TrendAnswer {
  result::ResultTable table;
  analysis::TechniqueTrend trend;
};
[[nodiscard]] TrendAnswer techniques_trend(const std::vector<analysis::TechniqueRow>& rows,
                                           size_t top);

// The winners of `rows` (analysis::technique_winners) as a table; ratio = median_with /
// median_without (null unless both are known and the second is above 0).
[[nodiscard]] result::ResultTable techniques_winners(
    const std::vector<analysis::TechniqueRow>& rows, size_t top);

}  // namespace kbdata::query
