#include "dataset/leaderboards_schema.h"

namespace kbdata::dataset {

std::vector<parquet::Field> leaderboards_fields() {
  using parquet::Field;
  using parquet::FieldType;
  return {
      Field::leaf("id", FieldType::INT64),           Field::leaf("name", FieldType::STRING),
      Field::leaf("deadline", FieldType::TIMESTAMP), Field::leaf("lang", FieldType::STRING),
      Field::leaf("description", FieldType::STRING), Field::leaf("reference", FieldType::STRING),
      Field::list("gpu_types", FieldType::STRING)};
}

}  // namespace kbdata::dataset
