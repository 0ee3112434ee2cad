// `kbdata extract` as answers: the manifest (one row per file written: the submission, what its
// code uses, the file's size and SHA-256), written to the folder's manifest.jsonl by the one
// writer, and the summary of the run, one row. The command chooses the rows
// (analysis/extract_selection.h) and writes the files; these are what it tells of them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/extract_selection.h"
#include "result/table.h"
#include "techniques/techniques.h"

namespace kbdata::query {

// What the rows are (Parquet's kbdata.rule).
extern const char* const kExtractManifestRule;
extern const char* const kExtractSummaryRule;

// path, problem_name, leaderboard_id, user_id, user_name, score, passed, runner, submission_time,
// submission_id, code_id, file_name, language, languages_all (list), features (list),
// autotune_configs, lines, kernel_lines, kernels, shape_branches, bytes, sha256, rank, and with
// `dedup` duplicates_dropped. A row names its leaderboard (its note).
[[nodiscard]] std::vector<result::Column> extract_manifest_columns(bool dedup);

// One file written for `entry`: at `path` (relative to the folder), its code's techniques, size
// and SHA-256 (hex).
struct ExtractedFile {
  std::string path;
  techniques::Techniques techniques;
  uint64_t bytes = 0;
  std::string sha256;
};

// Adds the manifest's row of `entry` to `manifest` (made with extract_manifest_columns(dedup)).
void add_manifest_row(result::ResultTable& manifest, const analysis::ExtractEntry& entry,
                      const ExtractedFile& file, bool dedup);

struct ExtractSummary {
  uint64_t files = 0;
  uint64_t bytes = 0;    // of code
  uint64_t skipped = 0;  // chosen rows without code
  bool dedup = false;    // --dedup exact: duplicates_dropped counted
  uint64_t duplicates_dropped = 0;
  std::string folder;  // where the extract is
};

// One row: files, bytes, skipped, duplicates_dropped (null without dedup), folder; the
// leaderboards of `entries` shown (their notes).
[[nodiscard]] result::ResultTable extract_summary(
    const ExtractSummary& summary, const std::vector<analysis::ExtractEntry>& entries);

}  // namespace kbdata::query
