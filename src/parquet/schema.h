// The schema tree of a Parquet file and its leaf columns.
//
// The footer stores the schema as a depth-first list of SchemaElements; Schema rebuilds the tree
// and derives, for each leaf (a column chunk in every row group), its path and its maximum
// definition and repetition levels:
//   - each OPTIONAL or REPEATED node on the path from the root adds one definition level;
//   - each REPEATED node adds one repetition level.
//
//   message m {                       leaf        max_def  max_rep
//     required int64 id;              id          0        0
//     optional binary name (STRING);  name        1        0
//     optional group tags (LIST) {
//       repeated group list {
//         optional binary element;    tags.list.element  3  1
//   }}}
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "parquet/types.h"

namespace kbdata::parquet {

struct SchemaElement;  // metadata.h

struct SchemaNode {
  std::string name;
  Repetition repetition = Repetition::REQUIRED;
  bool is_leaf = false;
  PhysicalType physical = PhysicalType::INT32;  // leaves only
  int32_t type_length = 0;                      // FIXED_LEN_BYTE_ARRAY only
  std::optional<ConvertedType> converted;
  LogicalType logical;  // resolved: the LogicalType, else derived from the ConvertedType
  std::optional<int32_t> field_id;
  int max_def = 0;  // definition levels of this node
  int max_rep = 0;
  int leaf_index = -1;  // index into Schema::leaves(), for leaves
  std::vector<SchemaNode> children;
};

struct ColumnDescriptor {
  std::vector<std::string> path;  // names from below the root to the leaf
  std::string dotted_path;        // path joined with '.'
  PhysicalType physical = PhysicalType::INT32;
  int32_t type_length = 0;
  std::optional<ConvertedType> converted;
  LogicalType logical;
  Repetition repetition = Repetition::REQUIRED;
  int max_def = 0;
  int max_rep = 0;
};

class Schema {
 public:
  // Builds the tree from the footer's element list. Throws FormatError if the list is not a
  // well-formed tree (children counts overrun the list, a leaf has no type, nesting deeper than
  // kMaxDepth, ...).
  static Schema from_elements(const std::vector<SchemaElement>& elements);

  static constexpr int kMaxDepth = 64;

  [[nodiscard]] const SchemaNode& root() const { return root_; }
  [[nodiscard]] const std::vector<ColumnDescriptor>& leaves() const { return leaves_; }

  // Index of the leaf whose dotted path is `dotted`, or nullopt.
  [[nodiscard]] std::optional<int> find_leaf(const std::string& dotted) const;

  // True when every leaf is a top-level, non-repeated column (no groups, no repetition).
  [[nodiscard]] bool is_flat() const;

 private:
  SchemaNode root_;
  std::vector<ColumnDescriptor> leaves_;
};

}  // namespace kbdata::parquet
