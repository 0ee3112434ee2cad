#include "query/extract.h"

#include <string_view>

namespace kbdata::query {
namespace {

using result::Cell;
using result::ColumnType;
using result::List;

// The names of a comma-separated list ("" is none).
List names_of(std::string_view list) {
  List names;
  size_t from = 0;
  while (from < list.size()) {
    size_t comma = list.find(',', from);
    if (comma == std::string_view::npos) comma = list.size();
    names.emplace_back(std::string(list.substr(from, comma - from)));
    from = comma + 1;
  }
  return names;
}

Cell count(uint64_t n) { return Cell{static_cast<int64_t>(n)}; }

}  // namespace

const char* const kExtractManifestRule =
    "kbdata extract: one row per file written: the submission, what its code uses, the file's "
    "size and SHA-256";
const char* const kExtractSummaryRule =
    "kbdata extract: the files written, their bytes of code, the chosen rows without code and "
    "the duplicates dropped";

std::vector<result::Column> extract_manifest_columns(bool dedup) {
  std::vector<result::Column> columns = {
      {"path", ColumnType::STRING},
      {"problem_name", ColumnType::STRING},
      {"leaderboard_id", ColumnType::INT64},
      {"user_id", ColumnType::STRING},
      {"user_name", ColumnType::STRING},
      {"score", ColumnType::SCORE},
      {"passed", ColumnType::BOOL},
      {"runner", ColumnType::STRING},
      {"submission_time", ColumnType::TIMESTAMP},
      {"submission_id", ColumnType::INT64},
      {"code_id", ColumnType::INT64},
      {"file_name", ColumnType::STRING},
      {"language", ColumnType::STRING},
      {"languages_all", ColumnType::STRING, false, true},
      {"features", ColumnType::STRING, false, true},
      {"autotune_configs", ColumnType::INT64},
      {"lines", ColumnType::INT64},
      {"kernel_lines", ColumnType::INT64},
      {"kernels", ColumnType::INT64},
      {"shape_branches", ColumnType::INT64},
      {"bytes", ColumnType::INT64},
      {"sha256", ColumnType::STRING},
      {"rank", ColumnType::INT64},
  };
  if (dedup) columns.push_back({"duplicates_dropped", ColumnType::INT64});
  return columns;
}

void add_manifest_row(result::ResultTable& manifest, const analysis::ExtractEntry& e,
                      const ExtractedFile& file, bool dedup) {
  const dataset::Submission& s = e.row;
  const techniques::Techniques& t = file.techniques;
  std::vector<Cell> cells = {file.path,
                             s.problem_name,
                             s.leaderboard_id,
                             s.user_id,
                             result::optional_cell(s.user_name),
                             result::optional_cell(s.score),
                             result::optional_cell(s.passed),
                             result::optional_cell(s.runner),
                             s.submission_time,
                             s.submission_id,
                             result::optional_cell(s.code_id),
                             result::optional_cell(s.file_name),
                             std::string(techniques::to_string(t.language)),
                             names_of(techniques::languages_text(t)),
                             names_of(techniques::features_text(t)),
                             int64_t{t.autotune_configs},
                             int64_t{t.lines},
                             int64_t{t.kernel_lines},
                             int64_t{t.kernels},
                             int64_t{t.shape_branches},
                             count(file.bytes),
                             file.sha256,
                             result::optional_cell(e.rank)};
  if (dedup) cells.push_back(count(e.duplicates_dropped));
  manifest.add_row(std::move(cells), s.leaderboard_id, s.problem_name);
}

result::ResultTable extract_summary(const ExtractSummary& s,
                                    const std::vector<analysis::ExtractEntry>& entries) {
  result::ResultTable table({{"files", ColumnType::INT64},
                             {"bytes", ColumnType::INT64},
                             {"skipped", ColumnType::INT64},
                             {"duplicates_dropped", ColumnType::INT64},
                             {"folder", ColumnType::STRING}},
                            kExtractSummaryRule);
  for (const analysis::ExtractEntry& e : entries) {
    table.leaderboard_shown(e.row.leaderboard_id, e.row.problem_name);
  }
  table.add_row({count(s.files), count(s.bytes), count(s.skipped),
                 s.dedup ? count(s.duplicates_dropped) : Cell{}, s.folder});
  return table;
}

}  // namespace kbdata::query
