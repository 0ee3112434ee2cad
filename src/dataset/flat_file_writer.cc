#include "dataset/flat_file_writer.h"

#include <set>

#include "common/error.h"

namespace kbdata::dataset {
namespace {

std::string column_name(const FlatFileColumn& column) {
  if (const auto* flat = std::get_if<FlatColumn>(&column)) {
    return flat_column_names()[static_cast<size_t>(*flat)];
  }
  return added_column_name(std::get<AddedColumn>(column));
}

// The fields of `columns`, after checking that none is given twice.
std::vector<parquet::Field> fields_of(const std::vector<FlatFileColumn>& columns) {
  std::vector<parquet::Field> fields;
  std::set<std::string> seen;
  for (const FlatFileColumn& column : columns) {
    if (!seen.insert(column_name(column)).second) {
      throw UsageError("column " + column_name(column) + " is given twice");
    }
    if (const auto* flat = std::get_if<FlatColumn>(&column)) {
      fields.push_back(flat_field(*flat));
    } else {
      fields.push_back(added_field(std::get<AddedColumn>(column)));
    }
  }
  return fields;
}

}  // namespace

const char* added_column_name(AddedColumn column) {
  switch (column) {
    case AddedColumn::CLUSTER_ID:
      return "cluster_id";
    case AddedColumn::CLUSTER_SIZE:
      return "cluster_size";
    case AddedColumn::KEPT:
      return "kept";
    case AddedColumn::BENCHMARKS:
      return "benchmarks";
    case AddedColumn::LANGUAGE:
      return "language";
    case AddedColumn::LANGUAGES_ALL:
      return "languages_all";
    case AddedColumn::FEATURES:
      return "features";
  }
  return "?";
}

parquet::Field added_field(AddedColumn column) {
  using parquet::Field;
  using parquet::FieldType;
  switch (column) {
    case AddedColumn::CLUSTER_ID:
    case AddedColumn::CLUSTER_SIZE:
      return Field::leaf(added_column_name(column), FieldType::INT64).required();
    case AddedColumn::KEPT:
      return Field::leaf(added_column_name(column), FieldType::BOOLEAN).required();
    case AddedColumn::BENCHMARKS:
      return Field::leaf(added_column_name(column), FieldType::JSON);
    case AddedColumn::LANGUAGE:
    case AddedColumn::LANGUAGES_ALL:
    case AddedColumn::FEATURES:
      return Field::leaf(added_column_name(column), FieldType::STRING);
  }
  return Field::leaf("?", FieldType::BINARY);
}

std::vector<FlatFileColumn> flat_file_columns(std::vector<AddedColumn> added) {
  std::vector<FlatFileColumn> columns;
  for (int c = 0; c < kFlatColumnCount; ++c) columns.emplace_back(static_cast<FlatColumn>(c));
  for (AddedColumn a : added) columns.emplace_back(a);
  return columns;
}

FlatFileWriter::FlatFileWriter(OutputTarget target, const std::vector<FlatFileColumn>& columns,
                               parquet::WriterOptions options,
                               const parquet::Provenance& provenance,
                               parquet::RowBatchLimits limits)
    : RowFileWriter(std::move(target), fields_of(columns), std::move(options), provenance, limits),
      columns_(columns) {}

FlatFileWriter::FlatFileWriter(const std::string& path, const std::vector<FlatFileColumn>& columns,
                               parquet::WriterOptions options,
                               const parquet::Provenance& provenance,
                               parquet::RowBatchLimits limits)
    : RowFileWriter(path, fields_of(columns), std::move(options), provenance, limits),
      columns_(columns) {}

size_t FlatFileWriter::leaf_of(FlatFileColumn column) const {
  for (size_t i = 0; i < columns_.size(); ++i) {
    if (columns_[i] == column) return i;
  }
  throw UsageError("the file has no column " + column_name(column));
}

template <typename T>
parquet::TypedColumnBuilder<T>& FlatFileWriter::column(FlatFileColumn column) {
  return RowFileWriter::column<T>(leaf_of(column));
}

parquet::ColumnBuilder& FlatFileWriter::column(FlatFileColumn column) {
  return RowFileWriter::column(leaf_of(column));
}

template parquet::Int64Builder& FlatFileWriter::column<int64_t>(FlatFileColumn);
template parquet::DoubleBuilder& FlatFileWriter::column<double>(FlatFileColumn);
template parquet::BoolBuilder& FlatFileWriter::column<bool>(FlatFileColumn);
template parquet::BytesBuilder& FlatFileWriter::column<std::string_view>(FlatFileColumn);

void FlatFileWriter::write(const Submission& s, const AddedValues& added) {
  for (size_t i = 0; i < columns_.size(); ++i) {
    if (const auto* a = std::get_if<AddedColumn>(&columns_[i])) {
      switch (*a) {
        case AddedColumn::CLUSTER_ID:
          RowFileWriter::column<int64_t>(i).value(added.cluster_id);
          break;
        case AddedColumn::CLUSTER_SIZE:
          RowFileWriter::column<int64_t>(i).value(added.cluster_size);
          break;
        case AddedColumn::KEPT:
          RowFileWriter::column<bool>(i).value(added.kept);
          break;
        case AddedColumn::BENCHMARKS:
          RowFileWriter::column<std::string_view>(i).optional(added.benchmarks_json);
          break;
        case AddedColumn::LANGUAGE:
          RowFileWriter::column<std::string_view>(i).optional(added.language);
          break;
        case AddedColumn::LANGUAGES_ALL:
          RowFileWriter::column<std::string_view>(i).optional(added.languages_all);
          break;
        case AddedColumn::FEATURES:
          RowFileWriter::column<std::string_view>(i).optional(added.features);
          break;
      }
      continue;
    }
    switch (std::get<FlatColumn>(columns_[i])) {
      case SUBMISSION_ID:
        RowFileWriter::column<int64_t>(i).value(s.submission_id);
        break;
      case LEADERBOARD_ID:
        RowFileWriter::column<int64_t>(i).value(s.leaderboard_id);
        break;
      case PROBLEM_NAME:
        RowFileWriter::column<std::string_view>(i).value(s.problem_name);
        break;
      case USER_ID:
        RowFileWriter::column<std::string_view>(i).value(s.user_id);
        break;
      case USER_NAME:
        RowFileWriter::column<std::string_view>(i).optional(s.user_name);
        break;
      case CODE_ID:
        RowFileWriter::column<int64_t>(i).optional(s.code_id);
        break;
      case FILE_NAME:
        RowFileWriter::column<std::string_view>(i).optional(s.file_name);
        break;
      case SUBMISSION_TIME:
        RowFileWriter::column<int64_t>(i).value(s.submission_time);
        break;
      case STATUS:
        RowFileWriter::column<std::string_view>(i).value(s.status);
        break;
      case SCORE:
        RowFileWriter::column<double>(i).optional(s.score);
        break;
      case PASSED:
        RowFileWriter::column<bool>(i).optional(s.passed);
        break;
      case MODE:
        RowFileWriter::column<std::string_view>(i).optional(s.mode);
        break;
      case RUNNER:
        RowFileWriter::column<std::string_view>(i).optional(s.runner);
        break;
      case CODE:
        RowFileWriter::column<std::string_view>(i).optional(s.code);
        break;
    }
  }
  end_row();
}

}  // namespace kbdata::dataset
