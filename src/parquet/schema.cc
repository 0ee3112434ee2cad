#include "parquet/schema.h"

#include <string>

#include "common/error.h"
#include "parquet/metadata.h"

namespace kbdata::parquet {
namespace {

// The LogicalType a legacy ConvertedType stands for (parquet-format's LogicalTypes.md,
// "backward compatibility"). INTERVAL and MAP_KEY_VALUE have no logical equivalent.
LogicalType from_converted(ConvertedType converted, const SchemaElement& element) {
  using K = LogicalType::Kind;
  LogicalType t;
  auto integer = [&t](int bits, bool is_signed) {
    t.kind = K::INTEGER;
    t.bit_width = static_cast<int8_t>(bits);
    t.is_signed = is_signed;
  };
  switch (converted) {
    case ConvertedType::UTF8:
      t.kind = K::STRING;
      break;
    case ConvertedType::MAP:
      t.kind = K::MAP;
      break;
    case ConvertedType::LIST:
      t.kind = K::LIST;
      break;
    case ConvertedType::ENUM:
      t.kind = K::ENUM;
      break;
    case ConvertedType::JSON:
      t.kind = K::JSON;
      break;
    case ConvertedType::BSON:
      t.kind = K::BSON;
      break;
    case ConvertedType::DATE:
      t.kind = K::DATE;
      break;
    case ConvertedType::DECIMAL:
      t.kind = K::DECIMAL;
      t.decimal_scale = element.scale.value_or(0);
      t.decimal_precision = element.precision.value_or(0);
      break;
    case ConvertedType::TIME_MILLIS:
    case ConvertedType::TIME_MICROS:
      t.kind = K::TIME;
      t.is_adjusted_to_utc = true;
      t.unit = converted == ConvertedType::TIME_MILLIS ? TimeUnit::MILLIS : TimeUnit::MICROS;
      break;
    case ConvertedType::TIMESTAMP_MILLIS:
    case ConvertedType::TIMESTAMP_MICROS:
      t.kind = K::TIMESTAMP;
      t.is_adjusted_to_utc = true;
      t.unit = converted == ConvertedType::TIMESTAMP_MILLIS ? TimeUnit::MILLIS : TimeUnit::MICROS;
      break;
    case ConvertedType::UINT_8:
      integer(8, false);
      break;
    case ConvertedType::UINT_16:
      integer(16, false);
      break;
    case ConvertedType::UINT_32:
      integer(32, false);
      break;
    case ConvertedType::UINT_64:
      integer(64, false);
      break;
    case ConvertedType::INT_8:
      integer(8, true);
      break;
    case ConvertedType::INT_16:
      integer(16, true);
      break;
    case ConvertedType::INT_32:
      integer(32, true);
      break;
    case ConvertedType::INT_64:
      integer(64, true);
      break;
    default:
      break;
  }
  return t;
}

LogicalType resolve_logical(const SchemaElement& element) {
  if (element.logical_type && element.logical_type->kind != LogicalType::Kind::UNRECOGNISED) {
    return *element.logical_type;
  }
  if (element.converted_type) return from_converted(*element.converted_type, element);
  return element.logical_type.value_or(LogicalType{});
}

[[noreturn]] void fail(const std::string& message) { throw FormatError("schema: " + message); }

// Whether a leaf's logical type may annotate its physical type (LogicalTypes.md). Writers that
// break this produce values no reader can interpret, so such a schema is refused.
bool annotation_fits(const LogicalType& t, PhysicalType physical, int32_t type_length) {
  using K = LogicalType::Kind;
  bool binary =
      physical == PhysicalType::BYTE_ARRAY || physical == PhysicalType::FIXED_LEN_BYTE_ARRAY;
  switch (t.kind) {
    case K::STRING:
    case K::ENUM:
    case K::JSON:
    case K::BSON:
      return binary;
    case K::DECIMAL:
      return binary || physical == PhysicalType::INT32 || physical == PhysicalType::INT64;
    case K::DATE:
      return physical == PhysicalType::INT32;
    case K::TIME:
      return physical == (t.unit == TimeUnit::MILLIS ? PhysicalType::INT32 : PhysicalType::INT64);
    case K::TIMESTAMP:
      return physical == PhysicalType::INT64;
    case K::INTEGER:
      return physical == (t.bit_width == 64 ? PhysicalType::INT64 : PhysicalType::INT32);
    case K::UUID:
      return physical == PhysicalType::FIXED_LEN_BYTE_ARRAY && type_length == 16;
    case K::FLOAT16:
      return physical == PhysicalType::FIXED_LEN_BYTE_ARRAY && type_length == 2;
    default:
      return true;
  }
}

struct Builder {
  const std::vector<SchemaElement>& elements;
  size_t next = 0;
  std::vector<ColumnDescriptor>& leaves;
  std::vector<std::string> path;

  SchemaNode build(int depth, int parent_def, int parent_rep, bool is_root) {
    if (depth > Schema::kMaxDepth) {
      fail("nested deeper than " + std::to_string(Schema::kMaxDepth) + " levels");
    }
    if (next >= elements.size()) fail("children counts run past the end of the element list");
    const SchemaElement& e = elements[next++];
    SchemaNode node;
    node.name = e.name;
    node.repetition = e.repetition_type.value_or(Repetition::REQUIRED);
    if (!is_root) {
      int r = static_cast<int>(node.repetition);
      if (r < 0 || r > 2)
        fail("element '" + e.name + "' has invalid repetition " + std::to_string(r));
    }
    node.converted = e.converted_type;
    node.logical = resolve_logical(e);
    node.field_id = e.field_id;
    node.max_def = parent_def;
    node.max_rep = parent_rep;
    if (!is_root && node.repetition != Repetition::REQUIRED) ++node.max_def;
    if (!is_root && node.repetition == Repetition::REPEATED) ++node.max_rep;

    bool is_group = is_root || (e.num_children && *e.num_children > 0) || !e.type;
    if (!is_group) {
      node.is_leaf = true;
      node.physical = *e.type;
      int p = static_cast<int>(node.physical);
      if (p < 0 || p > 7) fail("element '" + e.name + "' has invalid type " + std::to_string(p));
      node.type_length = e.type_length.value_or(0);
      if (node.physical == PhysicalType::FIXED_LEN_BYTE_ARRAY && node.type_length <= 0) {
        fail("FIXED_LEN_BYTE_ARRAY column '" + e.name + "' has no positive type_length");
      }
      if (!annotation_fits(node.logical, node.physical, node.type_length)) {
        fail("column '" + e.name + "' is annotated " + to_string(node.logical) + " but stored as " +
             to_string(node.physical) +
             (node.physical == PhysicalType::FIXED_LEN_BYTE_ARRAY
                  ? "(" + std::to_string(node.type_length) + ")"
                  : std::string()));
      }
      node.leaf_index = static_cast<int>(leaves.size());
      ColumnDescriptor column;
      path.push_back(e.name);
      column.path = path;
      path.pop_back();
      for (size_t i = 0; i < column.path.size(); ++i) {
        if (i) column.dotted_path += '.';
        column.dotted_path += column.path[i];
      }
      column.physical = node.physical;
      column.type_length = node.type_length;
      column.converted = node.converted;
      column.logical = node.logical;
      column.repetition = node.repetition;
      column.max_def = node.max_def;
      column.max_rep = node.max_rep;
      leaves.push_back(std::move(column));
      return node;
    }
    int32_t children = e.num_children.value_or(0);
    if (children < 0) fail("element '" + e.name + "' has a negative number of children");
    if (static_cast<size_t>(children) > elements.size() - next) {
      fail("element '" + e.name + "' claims " + std::to_string(children) + " children but only " +
           std::to_string(elements.size() - next) + " elements follow");
    }
    if (!is_root) path.push_back(e.name);
    node.children.reserve(static_cast<size_t>(children));
    for (int32_t i = 0; i < children; ++i) {
      node.children.push_back(build(depth + 1, node.max_def, node.max_rep, false));
    }
    if (!is_root) path.pop_back();
    return node;
  }
};

}  // namespace

Schema Schema::from_elements(const std::vector<SchemaElement>& elements) {
  if (elements.empty()) fail("no elements");
  Schema schema;
  Builder builder{elements, 0, schema.leaves_, {}};
  schema.root_ = builder.build(0, 0, 0, true);
  if (builder.next != elements.size()) {
    fail("the root's tree uses " + std::to_string(builder.next) + " of " +
         std::to_string(elements.size()) + " elements");
  }
  return schema;
}

std::optional<int> Schema::find_leaf(const std::string& dotted) const {
  for (size_t i = 0; i < leaves_.size(); ++i) {
    if (leaves_[i].dotted_path == dotted) return static_cast<int>(i);
  }
  return std::nullopt;
}

bool Schema::is_flat() const {
  for (const auto& leaf : leaves_) {
    if (leaf.path.size() != 1 || leaf.max_rep != 0) return false;
  }
  return true;
}

}  // namespace kbdata::parquet
