// Rows of the flat schema (docs/dataset.md §4.1) to a Parquet file, on parquet::RowFileWriter:
// the submission model's rows (write), or rows given column by column (column<T>, end_row) by a
// writer whose source has nulls the model has no room for (kbdata export's SQL rows).
//
// A file holds the flat schema's columns (all 14, or a chosen few in a chosen order) and the
// columns kbdata adds (AddedColumn): dedup's cluster columns after them, a legacy submission's
// benchmarks among them (`kbdata submissions --columns ...,benchmarks -f parquet`).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "common/output_target.h"
#include "dataset/flat_schema.h"
#include "dataset/submission.h"
#include "parquet/write/row_file_writer.h"

namespace kbdata::dataset {

// The columns kbdata adds to the flat schema's in the files it derives.
enum class AddedColumn {
  CLUSTER_ID,    // INT64, REQUIRED: dedup's cluster (docs/dedup.md)
  CLUSTER_SIZE,  // INT64, REQUIRED: the rows of the cluster
  KEPT,          // BOOLEAN, REQUIRED: whether this row is the one the cluster keeps
  BENCHMARKS,    // JSON: a legacy submission's benchmark results (docs/data-model.md); null when
                 // it has none
  // STRING: what the code uses (`kbdata submissions --columns language,...`, docs/techniques.md);
  // null for a row without code
  LANGUAGE,
  LANGUAGES_ALL,
  FEATURES,
};

// The name and field of an added column ("cluster_id", "cluster_size", "kept", "benchmarks",
// "language", "languages_all", "features").
[[nodiscard]] const char* added_column_name(AddedColumn column);
[[nodiscard]] parquet::Field added_field(AddedColumn column);

// One column of a flat file.
using FlatFileColumn = std::variant<FlatColumn, AddedColumn>;

// The flat schema's 14 columns in order, then `added`.
[[nodiscard]] std::vector<FlatFileColumn> flat_file_columns(std::vector<AddedColumn> added = {});

// The values of one row's added columns.
struct AddedValues {
  int64_t cluster_id = 0;
  int64_t cluster_size = 0;
  bool kept = false;
  std::optional<std::string> benchmarks_json;  // BENCHMARKS: the JSON text, or null
  std::optional<std::string> language;         // LANGUAGE, LANGUAGES_ALL, FEATURES
  std::optional<std::string> languages_all;
  std::optional<std::string> features;
};

// A RowFileWriter of flat-schema columns: closed, synced and committed as one.
class FlatFileWriter : public parquet::RowFileWriter {
 public:
  // A file of `columns` (each at most once) at `target` / `path` (RowFileWriter's rules).
  // Throws UsageError for a column given twice, and what RowFileWriter throws.
  FlatFileWriter(OutputTarget target, const std::vector<FlatFileColumn>& columns,
                 parquet::WriterOptions options, const parquet::Provenance& provenance,
                 parquet::RowBatchLimits limits = {});
  FlatFileWriter(const std::string& path, const std::vector<FlatFileColumn>& columns,
                 parquet::WriterOptions options, const parquet::Provenance& provenance,
                 parquet::RowBatchLimits limits = {});

  // Appends one row: the file's columns of `s`, and of `added`. A string that is not valid UTF-8
  // is written with U+FFFD in place of each invalid sequence (RowFileWriter).
  void write(const Submission& s, const AddedValues& added = {});

  // For rows given column by column: the builder of `column`, which the file must hold (UsageError
  // otherwise, or for a T that is not the column's: int64_t for ids and submission_time, double
  // for score, bool for passed and kept, std::string_view for the strings and benchmarks). Every
  // column then gets an entry, and end_row() ends the row.
  template <typename T>
  [[nodiscard]] parquet::TypedColumnBuilder<T>& column(FlatFileColumn column);
  [[nodiscard]] parquet::ColumnBuilder& column(FlatFileColumn column);

 private:
  [[nodiscard]] size_t leaf_of(FlatFileColumn column) const;

  std::vector<FlatFileColumn> columns_;
};

}  // namespace kbdata::dataset
