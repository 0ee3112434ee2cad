#include "dataset/flat_schema.h"

namespace kbdata::dataset {

const std::vector<std::string>& flat_column_names() {
  static const std::vector<std::string> kNames = {
      "submission_id", "leaderboard_id", "problem_name",    "user_id", "user_name",
      "code_id",       "file_name",      "submission_time", "status",  "score",
      "passed",        "mode",           "runner",          "code"};
  return kNames;
}

parquet::SchemaElement flat_column_element(FlatColumn column) {
  parquet::SchemaElement e;
  e.name = flat_column_names()[static_cast<size_t>(column)];
  e.repetition_type = parquet::Repetition::OPTIONAL;
  parquet::LogicalType t;
  switch (column) {
    case SUBMISSION_ID:
    case LEADERBOARD_ID:
    case CODE_ID:
      e.type = parquet::PhysicalType::INT64;
      break;
    case SUBMISSION_TIME:
      e.type = parquet::PhysicalType::INT64;
      t.kind = parquet::LogicalType::Kind::TIMESTAMP;
      t.unit = parquet::TimeUnit::MICROS;
      t.is_adjusted_to_utc = true;
      e.logical_type = t;
      e.converted_type =
          parquet::ConvertedType::TIMESTAMP_MICROS;  // for readers before LogicalType
      break;
    case SCORE:
      e.type = parquet::PhysicalType::DOUBLE;
      break;
    case PASSED:
      e.type = parquet::PhysicalType::BOOLEAN;
      break;
    default:
      e.type = parquet::PhysicalType::BYTE_ARRAY;
      t.kind = parquet::LogicalType::Kind::STRING;
      e.logical_type = t;
      e.converted_type = parquet::ConvertedType::UTF8;
      break;
  }
  return e;
}

std::vector<parquet::SchemaElement> flat_schema(const std::vector<FlatColumn>& columns) {
  std::vector<parquet::SchemaElement> schema(1);
  schema[0].name = "schema";
  schema[0].num_children = static_cast<int32_t>(columns.size());
  for (FlatColumn column : columns) schema.push_back(flat_column_element(column));
  return schema;
}

std::vector<parquet::SchemaElement> flat_schema() {
  std::vector<FlatColumn> all;
  for (int c = 0; c < kFlatColumnCount; ++c) all.push_back(static_cast<FlatColumn>(c));
  return flat_schema(all);
}

}  // namespace kbdata::dataset
