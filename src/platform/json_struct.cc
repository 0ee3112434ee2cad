#include "platform/json_struct.h"

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

namespace kbdata::platform {
namespace {

using parquet::FieldType;

const char* type_name(FieldType type) {
  switch (type) {
    case FieldType::STRING:
      return "string";
    case FieldType::INT64:
      return "integer";
    case FieldType::DOUBLE:
      return "number";
    case FieldType::BOOLEAN:
      return "boolean";
    default:
      return "?";  // discover_struct makes no other type
  }
}

}  // namespace

StructShape discover_struct(Connection& db, const std::string& column, const std::string& source,
                            const std::string& runs_from_where) {
  StructShape shape{column, source, {}};
  const std::string value = "r." + source;
  // 1. A value that is not an object cannot be a struct.
  Result bad =
      db.exec("SELECT r.id, jsonb_typeof(" + value + ") " + runs_from_where + " AND " + value +
              " IS NOT NULL AND jsonb_typeof(" + value + ") <> 'object' ORDER BY r.id LIMIT 1");
  if (bad.rows() > 0) {
    throw DatabaseError(db.name() + ": run " + std::string(bad.bytes(0, 0)) + ": " + source +
                        " is a jsonb " + std::string(bad.bytes(0, 1)) +
                        ", which the legacy struct column " + column +
                        " cannot hold (it needs an object)");
  }
  const std::string each = runs_from_where;
  const std::string lateral = " CROSS JOIN LATERAL jsonb_each(" + value + ") e ";
  // Insert the lateral join before WHERE of `runs_from_where`.
  const size_t where = each.rfind(" WHERE ");
  const std::string from = each.substr(0, where) + lateral + each.substr(where);
  // 2. Nested values.
  Result nested =
      db.exec("SELECT r.id, e.key, jsonb_typeof(e.value) " + from +
              " AND jsonb_typeof(e.value) IN ('object', 'array') ORDER BY r.id LIMIT 1");
  if (nested.rows() > 0) {
    throw DatabaseError(db.name() + ": run " + std::string(nested.bytes(0, 0)) + ": " + source +
                        " key '" + std::string(nested.bytes(0, 1)) + "' holds a jsonb " +
                        std::string(nested.bytes(0, 2)) + ", which a field of the legacy struct " +
                        column + " cannot hold");
  }
  // 3. The keys and their types.
  Result keys = db.exec(
      "SELECT e.key, jsonb_typeof(e.value), "
      "bool_and(jsonb_typeof(e.value) <> 'number' OR (e.value::text::numeric = "
      "trunc(e.value::text::numeric) AND abs(e.value::text::numeric) <= 9223372036854775807)), "
      "min(r.id) " +
      from + " GROUP BY 1, 2 ORDER BY 1, 2");
  std::map<std::string, std::pair<std::string, std::string>> seen;  // key -> (type, run)
  for (int i = 0; i < keys.rows(); ++i) {
    const std::string key(keys.bytes(i, 0));
    const std::string type(keys.bytes(i, 1));
    if (type == "null") {
      if (shape.fields.empty() || shape.fields.back().first != key) {
        shape.fields.emplace_back(key, FieldType::STRING);
        seen[key] = {type, std::string(keys.bytes(i, 3))};
      }
      continue;
    }
    FieldType field = type == "string"          ? FieldType::STRING
                      : type == "boolean"       ? FieldType::BOOLEAN
                      : keys.bytes(i, 2) == "t" ? FieldType::INT64
                                                : FieldType::DOUBLE;
    if (!shape.fields.empty() && shape.fields.back().first == key) {
      auto& [first_type, first_run] = seen[key];
      if (first_type != "null") {
        throw DatabaseError(db.name() + ": run " + std::string(keys.bytes(i, 3)) + ": " + source +
                            " key '" + key + "' holds a jsonb " + type + " where run " + first_run +
                            " holds a " + first_type + "; a field of the legacy struct " + column +
                            " has one type");
      }
      shape.fields.back().second = field;
      first_type = type;
      first_run = std::string(keys.bytes(i, 3));
      continue;
    }
    shape.fields.emplace_back(key, field);
    seen[key] = {type, std::string(keys.bytes(i, 3))};
  }
  return shape;
}

std::optional<parquet::Field> struct_field(const StructShape& shape) {
  if (shape.fields.empty()) return std::nullopt;
  std::vector<parquet::Field> leaves;
  for (const auto& [key, type] : shape.fields) leaves.push_back(parquet::Field::leaf(key, type));
  return parquet::Field::group(shape.column, std::move(leaves));
}

void append_struct_value(const StructShape& shape, std::optional<std::string_view> json,
                         parquet::RowFileWriter& out, size_t first_leaf, int64_t run_id) {
  if (shape.fields.empty()) return;
  auto fail = [&](const std::string& what) {
    throw FormatError("run " + std::to_string(run_id) + ": " + shape.source + " " + what +
                      ", which the legacy struct column " + shape.column + " cannot hold");
  };
  nlohmann::json value;
  if (json) {
    try {
      value = nlohmann::json::parse(json->begin(), json->end());
    } catch (const nlohmann::json::exception& e) {
      fail(std::string("is not JSON kbdata can read (") + e.what() + ")");
    }
    if (!value.is_object()) fail("is not an object");
  }
  if (!json || value.empty()) {
    for (size_t i = 0; i < shape.fields.size(); ++i) out.column(first_leaf + i).null_at(0);
    return;
  }
  for (size_t i = 0; i < shape.fields.size(); ++i) {
    const auto& [key, type] = shape.fields[i];
    const size_t leaf = first_leaf + i;
    auto it = value.find(key);
    if (it == value.end() || it->is_null()) {
      out.column(leaf).null();  // a null field of a present struct
      continue;
    }
    const nlohmann::json& v = *it;
    switch (type) {
      case FieldType::STRING:
        if (!v.is_string()) fail("key '" + key + "' is not a " + type_name(type));
        out.column<std::string_view>(leaf).value(v.get_ref<const std::string&>());
        break;
      case FieldType::BOOLEAN:
        if (!v.is_boolean()) fail("key '" + key + "' is not a " + type_name(type));
        out.column<bool>(leaf).value(v.get<bool>());
        break;
      case FieldType::INT64:
        if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
          fail("key '" + key + "' is an integer beyond int64");
        }
        if (v.is_number_float()) {
          // jsonb keeps "3.0" as written; the key's values are all integral (discover_struct).
          const double d = v.get<double>();
          if (d != std::trunc(d) || d < -9.2e18 || d > 9.2e18) {
            fail("key '" + key + "' is not an " + std::string(type_name(type)));
          }
          out.column<int64_t>(leaf).value(static_cast<int64_t>(d));
          break;
        }
        if (!v.is_number_integer()) fail("key '" + key + "' is not an " + type_name(type));
        out.column<int64_t>(leaf).value(v.get<int64_t>());
        break;
      default:  // DOUBLE
        if (!v.is_number()) fail("key '" + key + "' is not a " + type_name(type));
        out.column<double>(leaf).value(v.get<double>());
        break;
    }
  }
}

}  // namespace kbdata::platform
