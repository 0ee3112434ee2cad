#include "dataset/legacy_schema.h"

namespace kbdata::dataset {

std::vector<parquet::Field> legacy_run_fields(const LegacyColumnTypes& types) {
  using parquet::Field;
  using parquet::FieldType;
  return {Field::leaf("submission_id", FieldType::INT64),
          Field::leaf("leaderboard_id", FieldType::INT64),
          Field::leaf("user_id", FieldType::INT64),
          Field::leaf("submission_time", types.submission_time),
          Field::leaf("file_name", FieldType::STRING),
          Field::leaf("code", types.code),
          Field::leaf("code_id", FieldType::INT64),
          Field::leaf("run_id", FieldType::INT64),
          Field::leaf("run_start_time", FieldType::TIMESTAMP),
          Field::leaf("run_end_time", FieldType::TIMESTAMP),
          Field::leaf("run_mode", FieldType::STRING),
          Field::leaf("run_score", FieldType::DOUBLE),
          Field::leaf("run_passed", FieldType::BOOLEAN)};
}

}  // namespace kbdata::dataset
