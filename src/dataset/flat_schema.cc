#include "dataset/flat_schema.h"

namespace kbdata::dataset {

const std::vector<std::string>& flat_column_names() {
  static const std::vector<std::string> kNames = {
      "submission_id", "leaderboard_id", "problem_name",    "user_id", "user_name",
      "code_id",       "file_name",      "submission_time", "status",  "score",
      "passed",        "mode",           "runner",          "code"};
  return kNames;
}

parquet::FieldType flat_field_type(FlatColumn column) {
  switch (column) {
    case SUBMISSION_ID:
    case LEADERBOARD_ID:
    case CODE_ID:
      return parquet::FieldType::INT64;
    case SUBMISSION_TIME:
      return parquet::FieldType::TIMESTAMP;
    case SCORE:
      return parquet::FieldType::DOUBLE;
    case PASSED:
      return parquet::FieldType::BOOLEAN;
    default:
      return parquet::FieldType::STRING;
  }
}

parquet::Field flat_field(FlatColumn column) {
  return parquet::Field::leaf(flat_column_names()[static_cast<size_t>(column)],
                              flat_field_type(column));
}

}  // namespace kbdata::dataset
