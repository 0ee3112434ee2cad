// The submission model (dataset/submission.h) as rows of the report writer (report/writer.h), for
// `kbdata submissions` and `kbdata show`: table, CSV, JSON, JSON Lines, and Parquet in the flat
// schema (docs/dataset.md §4.1, dataset/flat_file_writer.h).
//
// Each field is a typed cell (scores are SCORE cells: µs/ms/s in tables, seconds elsewhere;
// times TIMESTAMP; the legacy benchmarks a JSON array), so a submission reads as every other
// result of kbdata does. JSON objects also carry a legacy submission's runs ("runs": [...]).
// Reliability notes as report::Notes places them.
#pragma once

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dataset/submission.h"
#include "report/writer.h"

namespace kbdata::report {

// The model's field names, in the flat schema's order (code last).
[[nodiscard]] const std::vector<std::string>& submission_fields();

// The fields --columns may name: submission_fields(), then "benchmarks" (a legacy submission's
// benchmark results, docs/data-model.md; a JSON array in every format, JSON text in Parquet), then
// "language", "languages_all" and "features" (what the code uses, docs/techniques.md: read from
// the submission's `prepared` techniques::Techniques, null without it).
[[nodiscard]] const std::vector<std::string>& selectable_submission_fields();

// The columns that name a submission row first in the reports of one row per submission (audit,
// techniques): submission_id, leaderboard_id, problem_name, user_id, user_name, runner,
// submission_time, status, score; and a row's cells for them.
[[nodiscard]] std::vector<Column> row_identity_columns();
[[nodiscard]] std::vector<Cell> row_identity_cells(const dataset::Submission& s);

// Whether `fields` name one of the techniques' fields (the code must be read and classified).
[[nodiscard]] bool wants_techniques(const std::vector<std::string>& fields);

// A legacy submission's benchmark results as a JSON array: one object per benchmark with mean,
// std, err, runs, best, worst (nanoseconds; null where the run result lacks the key).
[[nodiscard]] std::string benchmarks_json(const std::vector<dataset::BenchmarkResult>& benchmarks);

// The typed columns of `fields` (names of selectable_submission_fields()) and a submission's cells
// for them: what SubmissionWriter writes in every format but Parquet, and what the submissions
// query (query/submissions.h) tabulates.
class SubmissionCells {
 public:
  // Throws UsageError for an unknown field (listing the fields).
  explicit SubmissionCells(const std::vector<std::string>& fields);
  [[nodiscard]] const std::vector<Column>& columns() const { return columns_; }
  // Clears `cells` and appends `s`'s cell of each column.
  void fill(const dataset::Submission& s, std::vector<Cell>& cells) const;

 private:
  std::vector<int> fields_;  // indexes into selectable_submission_fields()
  std::vector<Column> columns_;
};

// What the rows of `kbdata submissions` are (Parquet's kbdata.rule).
[[nodiscard]] const char* submissions_rule();

// Streams submissions to `out`, or to `out_path` when given (any format, atomically; PARQUET needs
// it). `fields` are names of
// selectable_submission_fields(); `notes` receives the stderr lines of the CSV and Parquet
// formats.
class SubmissionWriter {
 public:
  // Throws UsageError for an unknown field (listing the fields), or PARQUET without a path.
  // `threads` compress the Parquet file's pages (parquet::WriterOptions::threads).
  SubmissionWriter(Format format, std::vector<std::string> fields, std::FILE* out, std::FILE* notes,
                   std::optional<std::string> out_path, int threads);
  ~SubmissionWriter();
  SubmissionWriter(const SubmissionWriter&) = delete;
  SubmissionWriter& operator=(const SubmissionWriter&) = delete;

  void write(const dataset::Submission& s);
  // Ends the output (the table, the JSON array's "]", the Parquet footer and commit).
  void finish();
  [[nodiscard]] uint64_t rows() const { return rows_; }

 private:
  struct Parquet;
  [[nodiscard]] Cell cell(const dataset::Submission& s, int field) const;

  Format format_;
  std::vector<int> fields_;           // indexes into selectable_submission_fields()
  std::unique_ptr<Writer> writer_;    // every format but PARQUET
  std::unique_ptr<Parquet> parquet_;  // PARQUET
  std::vector<Cell> cells_;
  std::string runs_json_;
  uint64_t rows_ = 0;
};

// What `kbdata show --format json` prints for `rows`: every field of submission_fields(), and a
// legacy submission's runs.
[[nodiscard]] std::string submissions_json_text(const std::vector<dataset::Submission>& rows);

}  // namespace kbdata::report
