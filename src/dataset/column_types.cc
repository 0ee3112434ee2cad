#include "dataset/column_types.h"

#include "common/error.h"

namespace kbdata::dataset {

using parquet::ColumnDescriptor;
using parquet::LogicalType;
using parquet::PhysicalType;

const std::vector<ModelColumn>& model_columns(SchemaFamily family) {
  using R = ColumnRole;
  // Required and never null: what identifies a row. Optional (a writer may leave them out):
  // user_name, status, mode, runner; legacy run times.
  static const std::vector<ModelColumn> kFlat = {
      {"submission_id", R::ID, true, false},  {"leaderboard_id", R::ID, true, false},
      {"problem_name", R::TEXT, true, false}, {"user_id", R::ID_TEXT, true, false},
      {"user_name", R::TEXT, false, true},    {"code_id", R::ID, true, true},
      {"file_name", R::TEXT, true, true},     {"submission_time", R::TIME, true, false},
      {"status", R::TEXT, false, false},      {"score", R::SCORE, true, true},
      {"passed", R::BOOL, true, true},        {"mode", R::TEXT, false, true},
      {"runner", R::TEXT, false, true},       {"code", R::TEXT, false, true}};
  static const std::vector<ModelColumn> kLegacy = {{"submission_id", R::ID, true, false},
                                                   {"leaderboard_id", R::ID, true, false},
                                                   {"user_id", R::ID_TEXT, true, false},
                                                   {"submission_time", R::TIME, true, false},
                                                   {"file_name", R::TEXT, true, true},
                                                   {"code_id", R::ID, true, true},
                                                   {"run_id", R::ID, true, false},
                                                   {"run_mode", R::TEXT, true, false},
                                                   {"run_score", R::SCORE, true, true},
                                                   {"run_passed", R::BOOL, true, true},
                                                   {"run_start_time", R::TIME, false, true},
                                                   {"run_end_time", R::TIME, false, true},
                                                   {"code", R::TEXT, false, true}};
  static const std::vector<ModelColumn> kNone;
  switch (family) {
    case SchemaFamily::FLAT:
      return kFlat;
    case SchemaFamily::LEGACY_RUNS:
      return kLegacy;
    default:
      return kNone;
  }
}

bool is_integer_type(const ColumnDescriptor& d) {
  return (d.physical == PhysicalType::INT32 || d.physical == PhysicalType::INT64) &&
         (d.logical.kind == LogicalType::Kind::NONE ||
          d.logical.kind == LogicalType::Kind::INTEGER);
}
bool is_decimal_type(const ColumnDescriptor& d) {
  return d.logical.kind == LogicalType::Kind::DECIMAL;
}
bool is_floating_type(const ColumnDescriptor& d) {
  return (d.physical == PhysicalType::DOUBLE || d.physical == PhysicalType::FLOAT) &&
         d.logical.kind == LogicalType::Kind::NONE;
}
bool is_text_type(const ColumnDescriptor& d) {
  const auto kind = d.logical.kind;
  return d.physical == PhysicalType::BYTE_ARRAY &&
         (kind == LogicalType::Kind::NONE || kind == LogicalType::Kind::STRING ||
          kind == LogicalType::Kind::ENUM || kind == LogicalType::Kind::JSON);
}
bool is_time_type(const ColumnDescriptor& d) {
  return (d.physical == PhysicalType::INT64 && d.logical.kind == LogicalType::Kind::TIMESTAMP) ||
         (d.physical == PhysicalType::INT96 && d.logical.kind == LogicalType::Kind::NONE);
}

bool accepts(ColumnRole role, const ColumnDescriptor& d) {
  const bool number = is_integer_type(d) || is_decimal_type(d) || is_floating_type(d);
  switch (role) {
    case ColumnRole::ID:
    case ColumnRole::ID_TEXT:
    case ColumnRole::NUMBER:
      return number || is_text_type(d);
    case ColumnRole::TEXT:
      return is_text_type(d);
    case ColumnRole::TIME:
      return is_time_type(d);
    case ColumnRole::SCORE:
      return number;
    case ColumnRole::BOOL:
      return d.physical == PhysicalType::BOOLEAN || is_integer_type(d);
  }
  return false;
}

const char* expected_types(ColumnRole role) {
  switch (role) {
    case ColumnRole::ID:
      return "an integer id (an integer of any width, DOUBLE or DECIMAL holding integers, or its "
             "decimal text)";
    case ColumnRole::ID_TEXT:
      return "a string or an integer id (an integer of any width, DOUBLE or DECIMAL holding "
             "integers)";
    case ColumnRole::TEXT:
      return "a string (BYTE_ARRAY: STRING, ENUM, JSON or binary)";
    case ColumnRole::TIME:
      return "a timestamp (INT64 TIMESTAMP in ms, us or ns, or INT96)";
    case ColumnRole::SCORE:
      return "a number (DOUBLE, FLOAT, DECIMAL or an integer)";
    case ColumnRole::BOOL:
      return "a boolean (BOOLEAN, or an integer holding 0 or 1)";
    case ColumnRole::NUMBER:
      return "a number, or text holding one";
  }
  return "";
}

std::string type_text(const ColumnDescriptor& d) {
  std::string out = parquet::to_string(d.physical);
  if (d.physical == PhysicalType::FIXED_LEN_BYTE_ARRAY)
    out += "(" + std::to_string(d.type_length) + ")";
  const std::string logical = parquet::to_string(d.logical);
  if (!logical.empty()) out += " (" + logical + ")";
  if (d.max_rep > 0) out += ", repeated";
  return out;
}

const parquet::SchemaNode* top_level_node(const parquet::Schema& schema, const std::string& name) {
  for (const parquet::SchemaNode& child : schema.root().children) {
    if (child.name == name && !child.is_leaf) return &child;
  }
  return nullptr;
}

int open_model_column(const parquet::Schema& schema, const ModelColumn& column) {
  if (column.name.empty() && column.leaf < 0) return -1;
  std::optional<int> leaf;
  if (column.leaf >= 0) {
    leaf = column.leaf;
  } else {
    leaf = schema.find_leaf(column.name);
    // A nested field spelled like the column is not the column.
    if (leaf && schema.leaves()[static_cast<size_t>(*leaf)].path.size() != 1) leaf.reset();
  }
  if (!leaf) {
    if (top_level_node(schema, column.name) != nullptr) {
      UnsupportedError error(std::string("a nested column where ") + expected_types(column.role) +
                             " is expected");
      error.locate_column(column.name);
      throw error;
    }
    if (column.required) {
      throw FormatError("no column '" + column.name + "': the model needs " +
                        expected_types(column.role) + " there");
    }
    return -1;
  }
  const ColumnDescriptor& d = schema.leaves()[static_cast<size_t>(*leaf)];
  if (d.max_rep != 0 || !accepts(column.role, d)) {
    UnsupportedError error("type " + type_text(d) + " where " + expected_types(column.role) +
                           " is expected");
    error.locate_column(d.dotted_path);
    throw error;
  }
  return *leaf;
}

void check_model_columns(const parquet::Schema& schema, SchemaFamily family) {
  for (const ModelColumn& column : model_columns(family)) (void)open_model_column(schema, column);
}

}  // namespace kbdata::dataset
