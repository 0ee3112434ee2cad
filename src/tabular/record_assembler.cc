#include "tabular/record_assembler.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "common/error.h"
#include "common/text.h"
#include "tabular/variant.h"

namespace kbdata::tabular {

using parquet::ColumnBatch;
using parquet::ColumnDescriptor;
using parquet::ConvertedType;
using parquet::LogicalType;
using parquet::PhysicalType;
using parquet::Repetition;
using parquet::SchemaNode;

// One node of the pruned output tree. Leaves under a node are the batch positions
// [leaf_begin, leaf_end), leaf_begin being the "first leaf" whose levels decide nullness and
// list lengths.
struct RecordAssembler::Node {
  // VARIANT: a VARIANT group decoded to its value; children[0] is the metadata leaf, the value
  // leaf and the typed_value node (when the group has them) are children[value] and
  // children[typed]. SHREDDED: a {value, typed_value} group of a shredded object field or array
  // element, children[value] and children[typed] likewise. Below a typed_value, a STRUCT is a
  // shredded object whose children are SHREDDED, a LIST a shredded array of SHREDDED elements, a
  // LEAF a shredded primitive.
  enum class Kind : uint8_t { LEAF, STRUCT, LIST, VARIANT, SHREDDED };
  Kind kind = Kind::LEAF;
  int value = -1;       // VARIANT, SHREDDED: index in children of the value leaf, or -1
  int typed = -1;       // VARIANT, SHREDDED: index in children of the typed_value node, or -1
  int null_def = -1;    // null when the first leaf's definition level is below this; -1: never
  int element_def = 0;  // LIST: at least one element when the definition level reaches this
  int rep = 0;          // LIST: repetition level of a next element
  // The repetition level of the repeated nodes above this node: an entry with a higher one
  // continues the same instance of this node (an element of a list inside it).
  int outer_rep = 0;
  int leaf_begin = 0;
  int leaf_end = 0;
  std::vector<std::string> keys;   // STRUCT: `"name":`, with a leading ',' for all but the first
                                   // (below a typed_value: `"name":` without the ',')
  std::vector<std::string> names;  // STRUCT below a typed_value: the field names
  std::vector<Node> children;      // STRUCT: fields; LIST: the element
};

struct RecordAssembler::Field {
  std::string name;
  Node root;
  int flat_batch = -1;
};

namespace {

bool is_list_group(const SchemaNode& node) {
  return node.logical.kind == LogicalType::Kind::LIST ||
         (node.converted && *node.converted == ConvertedType::LIST);
}

bool is_map_group(const SchemaNode& node) {
  return node.logical.kind == LogicalType::Kind::MAP ||
         (node.converted && (*node.converted == ConvertedType::MAP ||
                             *node.converted == ConvertedType::MAP_KEY_VALUE));
}

std::string json_key(const std::string& name, bool first) {
  std::string key = first ? "" : ",";
  std::string repaired;
  append_utf8_repaired(repaired, name);
  append_json_string(key, repaired);
  key.push_back(':');
  return key;
}

// `"key"` with ill-formed UTF-8 repaired.
void append_key(std::string& out, std::string_view key) { append_json_text(out, key); }

// Builds pruned output trees, appending the selected leaves in traversal order.
class TreeBuilder {
 public:
  TreeBuilder(const std::vector<bool>& selected, std::vector<int>& leaves)
      : selected_(selected), leaves_(leaves) {}

  using Node = RecordAssembler::Node;

  // A field as it appears in its parent: a bare REPEATED node is a list of itself.
  std::optional<Node> field(const SchemaNode& s) {
    if (s.repetition == Repetition::REPEATED) {
      return list_of(s, [&] { return value(s, /*nullable=*/false, map_entry(s)); });
    }
    return value(s, s.repetition == Repetition::OPTIONAL, false);
  }

 private:
  static bool map_entry(const SchemaNode& s) {
    return !s.is_leaf && s.converted && *s.converted == ConvertedType::MAP_KEY_VALUE;
  }

  template <typename ElementFn>
  std::optional<Node> list_of(const SchemaNode& repeated, ElementFn&& element_fn) {
    std::optional<Node> element = element_fn();
    if (!element) return std::nullopt;
    Node list;
    list.kind = Node::Kind::LIST;
    list.element_def = repeated.max_def;
    list.rep = repeated.max_rep;
    list.outer_rep = repeated.max_rep - 1;
    list.leaf_begin = element->leaf_begin;
    list.leaf_end = element->leaf_end;
    list.children.push_back(std::move(*element));
    return list;
  }

  // The node `s` as a value (its own repetition already accounted for by the caller).
  std::optional<Node> value(const SchemaNode& s, bool nullable, bool rename_as_map_entry) {
    std::optional<Node> out;
    if (!s.is_leaf && s.logical.kind == LogicalType::Kind::VARIANT && all_selected(s)) {
      const size_t mark = leaves_.size();
      out = variant(s);
      if (out) {
        if (nullable) out->null_def = s.max_def;
        out->outer_rep = s.max_rep;
        return out;
      }
      leaves_.resize(mark);  // not a variant's shape: read as a struct
    }
    if (s.is_leaf) {
      if (s.leaf_index < 0 || static_cast<size_t>(s.leaf_index) >= selected_.size() ||
          !selected_[static_cast<size_t>(s.leaf_index)]) {
        return std::nullopt;
      }
      Node leaf;
      leaf.kind = Node::Kind::LEAF;
      leaf.leaf_begin = static_cast<int>(leaves_.size());
      leaves_.push_back(s.leaf_index);
      leaf.leaf_end = leaf.leaf_begin + 1;
      out = std::move(leaf);
    } else if (s.children.size() == 1 && s.children[0].repetition == Repetition::REPEATED &&
               is_map_group(s) && !s.children[0].is_leaf) {
      const SchemaNode& entries = s.children[0];
      out = list_of(entries, [&] { return value(entries, false, true); });
    } else if (s.children.size() == 1 && s.children[0].repetition == Repetition::REPEATED &&
               is_list_group(s)) {
      const SchemaNode& repeated = s.children[0];
      const bool two_level = repeated.is_leaf || repeated.children.size() != 1 ||
                             repeated.name == "array" || repeated.name == s.name + "_tuple";
      if (two_level) {
        out = list_of(repeated, [&] { return value(repeated, false, map_entry(repeated)); });
      } else {
        out = list_of(repeated, [&] { return field(repeated.children[0]); });
      }
    } else {
      Node group;
      group.kind = Node::Kind::STRUCT;
      group.leaf_begin = static_cast<int>(leaves_.size());
      for (size_t i = 0; i < s.children.size(); ++i) {
        std::optional<Node> child = field(s.children[i]);
        if (!child) continue;
        std::string name = s.children[i].name;
        if (rename_as_map_entry && i < 2) name = i == 0 ? "key" : "value";
        group.keys.push_back(json_key(name, group.children.empty()));
        group.children.push_back(std::move(*child));
      }
      if (group.children.empty()) return std::nullopt;
      group.leaf_end = static_cast<int>(leaves_.size());
      out = std::move(group);
    }
    if (out && nullable) out->null_def = s.max_def;
    // A REPEATED s is an element here (list_of wraps it): its instance lies inside the repetition.
    if (out) out->outer_rep = s.max_rep;
    return out;
  }

  bool all_selected(const SchemaNode& s) const {
    if (s.is_leaf) {
      return s.leaf_index >= 0 && static_cast<size_t>(s.leaf_index) < selected_.size() &&
             selected_[static_cast<size_t>(s.leaf_index)];
    }
    return std::all_of(s.children.begin(), s.children.end(),
                       [&](const SchemaNode& child) { return all_selected(child); });
  }

  Node leaf_node(const SchemaNode& s) {
    Node leaf;
    leaf.kind = Node::Kind::LEAF;
    leaf.leaf_begin = static_cast<int>(leaves_.size());
    leaves_.push_back(s.leaf_index);
    leaf.leaf_end = leaf.leaf_begin + 1;
    leaf.outer_rep = s.max_rep;
    return leaf;
  }

  // The children `value` (a binary leaf) and `typed_value` of a VARIANT group or of a shredded
  // field or element, appended to `node`; `metadata` too for a VARIANT group. False if the group
  // has another child or a child of the wrong shape (it then reads as a plain struct).
  bool variant_children(const SchemaNode& s, Node& node, bool with_metadata) {
    node.leaf_begin = static_cast<int>(leaves_.size());
    bool has_metadata = false;
    for (const SchemaNode& child : s.children) {
      if (child.repetition == Repetition::REPEATED) return false;
      const bool binary = child.is_leaf && child.physical == PhysicalType::BYTE_ARRAY;
      if (child.name == "metadata" && with_metadata && binary && !has_metadata) {
        // The metadata leads: render() reads it before the value and typed_value.
        node.children.insert(node.children.begin(), leaf_node(child));
        if (node.value >= 0) ++node.value;
        if (node.typed >= 0) ++node.typed;
        has_metadata = true;
      } else if (child.name == "value" && binary && node.value < 0) {
        node.value = static_cast<int>(node.children.size());
        node.children.push_back(leaf_node(child));
      } else if (child.name == "typed_value" && node.typed < 0) {
        std::optional<Node> typed = typed_value(child);
        if (!typed) return false;
        node.typed = static_cast<int>(node.children.size());
        node.children.push_back(std::move(*typed));
      } else {
        return false;
      }
    }
    node.leaf_end = static_cast<int>(leaves_.size());
    if (with_metadata && !has_metadata) return false;
    return node.value >= 0 || node.typed >= 0;
  }

  std::optional<Node> variant(const SchemaNode& s) {
    Node node;
    node.kind = Node::Kind::VARIANT;
    if (!variant_children(s, node, true)) return std::nullopt;
    return node;
  }

  std::optional<Node> shredded(const SchemaNode& s) {
    if (s.is_leaf || s.repetition == Repetition::REPEATED) return std::nullopt;
    Node node;
    node.kind = Node::Kind::SHREDDED;
    if (!variant_children(s, node, false)) return std::nullopt;
    if (s.repetition == Repetition::OPTIONAL) node.null_def = s.max_def;
    node.outer_rep = s.max_rep;
    return node;
  }

  // A typed_value: a primitive, a shredded array (a 3-level LIST of {value, typed_value}
  // elements) or a shredded object (a group of {value, typed_value} fields).
  std::optional<Node> typed_value(const SchemaNode& s) {
    if (s.repetition == Repetition::REPEATED) return std::nullopt;
    std::optional<Node> out;
    if (s.is_leaf) {
      out = leaf_node(s);
    } else if (is_list_group(s)) {
      if (s.children.size() != 1 || s.children[0].repetition != Repetition::REPEATED ||
          s.children[0].is_leaf || s.children[0].children.size() != 1) {
        return std::nullopt;
      }
      const SchemaNode& repeated = s.children[0];
      out = list_of(repeated, [&] { return shredded(repeated.children[0]); });
    } else if (!is_map_group(s) && !s.children.empty()) {
      Node object;
      object.kind = Node::Kind::STRUCT;
      object.leaf_begin = static_cast<int>(leaves_.size());
      for (const SchemaNode& child : s.children) {
        std::optional<Node> field = shredded(child);
        if (!field) return std::nullopt;
        object.keys.push_back(json_key(child.name, true));
        object.names.push_back(child.name);
        object.children.push_back(std::move(*field));
      }
      object.leaf_end = static_cast<int>(leaves_.size());
      out = std::move(object);
    }
    if (out && s.repetition == Repetition::OPTIONAL) out->null_def = s.max_def;
    if (out) out->outer_rep = s.max_rep;
    return out;
  }

  const std::vector<bool>& selected_;
  std::vector<int>& leaves_;
};

}  // namespace

RecordAssembler::RecordAssembler(const parquet::Schema& schema, std::span<const int> selected)
    : schema_(&schema) {
  const auto& all = schema.leaves();
  if (selected.empty()) throw UsageError("no columns selected");
  std::vector<bool> wanted(all.size(), false);
  for (const int leaf : selected) {
    if (leaf < 0 || static_cast<size_t>(leaf) >= all.size()) {
      throw UsageError("leaf index " + std::to_string(leaf) + " out of range");
    }
    wanted[static_cast<size_t>(leaf)] = true;
  }
  // The top-level field of every leaf, from a walk of the tree.
  const auto& top = schema.root().children;
  std::vector<int> top_of(all.size(), -1);
  std::vector<const SchemaNode*> stack;
  for (size_t t = 0; t < top.size(); ++t) {
    stack.assign(1, &top[t]);
    while (!stack.empty()) {
      const SchemaNode* node = stack.back();
      stack.pop_back();
      if (node->is_leaf && node->leaf_index >= 0 &&
          static_cast<size_t>(node->leaf_index) < all.size()) {
        top_of[static_cast<size_t>(node->leaf_index)] = static_cast<int>(t);
      }
      for (const auto& child : node->children) stack.push_back(&child);
    }
  }
  std::vector<bool> field_done(top.size(), false);
  TreeBuilder builder(wanted, leaves_);
  for (const int leaf : selected) {
    const int t = top_of[static_cast<size_t>(leaf)];
    if (t < 0 || field_done[static_cast<size_t>(t)]) continue;
    field_done[static_cast<size_t>(t)] = true;
    const SchemaNode& node = top[static_cast<size_t>(t)];
    std::optional<Node> root = builder.field(node);
    if (!root) continue;
    Field field{node.name, std::move(*root), -1};
    if (node.is_leaf && node.repetition != Repetition::REPEATED) {
      field.flat_batch = field.root.leaf_begin;
    }
    fields_.push_back(std::move(field));
  }
  cursors_.resize(leaves_.size());
  formatters_.reserve(leaves_.size());
  for (size_t b = 0; b < leaves_.size(); ++b) {
    const ColumnDescriptor& column = all[static_cast<size_t>(leaves_[b])];
    formatters_.emplace_back(column);
    cursors_[b].max_def = column.max_def;
  }
}

RecordAssembler::~RecordAssembler() = default;
RecordAssembler::RecordAssembler(RecordAssembler&&) noexcept = default;
RecordAssembler& RecordAssembler::operator=(RecordAssembler&&) noexcept = default;

size_t RecordAssembler::num_fields() const { return fields_.size(); }
const std::string& RecordAssembler::field_name(size_t field) const { return fields_[field].name; }
int RecordAssembler::flat_batch(size_t field) const { return fields_[field].flat_batch; }
int RecordAssembler::first_batch(size_t field) const { return fields_[field].root.leaf_begin; }

void RecordAssembler::start(std::span<const ColumnBatch* const> batches) {
  if (batches.size() != leaves_.size()) {
    throw UsageError("record assembler: " + std::to_string(batches.size()) + " batches for " +
                     std::to_string(leaves_.size()) + " leaves");
  }
  for (size_t b = 0; b < leaves_.size(); ++b) {
    const ColumnBatch& batch = *batches[b];
    const ColumnDescriptor& column = schema_->leaves()[static_cast<size_t>(leaves_[b])];
    size_t needed = batch.num_levels;
    if (column.max_def > 0) {
      if (batch.def_levels.size() != batch.num_levels) fail_column(column, "definition levels");
      needed = static_cast<size_t>(
          std::count_if(batch.def_levels.begin(), batch.def_levels.end(),
                        [&](int16_t level) { return level >= column.max_def; }));
    }
    if (column.max_rep > 0 && batch.rep_levels.size() != batch.num_levels) {
      fail_column(column, "repetition levels");
    }
    parquet::check_batch_values(column, batch.values, needed);
    cursors_[b] = Cursor{&batch, 0, 0, column.max_def};
  }
}

void RecordAssembler::fail_column(const ColumnDescriptor& column, const char* what) {
  FormatError error(std::string("batch has another number of ") + what + " than entries");
  error.locate_column(column.dotted_path);
  throw error;
}

void RecordAssembler::fail(int leaf, const std::string& message) const {
  FormatError error(message);
  error.locate_column(
      schema_->leaves()[static_cast<size_t>(leaves_[static_cast<size_t>(leaf)])].dotted_path);
  throw error;
}

int RecordAssembler::def_at(int leaf) const {
  const Cursor& cursor = cursors_[static_cast<size_t>(leaf)];
  if (cursor.batch == nullptr || cursor.pos >= cursor.batch->num_levels) {
    fail(leaf,
         "the column's levels end inside a record (its levels disagree with the other "
         "columns of the record)");
  }
  return cursor.batch->def_levels.empty() ? cursor.max_def : cursor.batch->def_levels[cursor.pos];
}

int RecordAssembler::rep_at(int leaf) const {
  const Cursor& cursor = cursors_[static_cast<size_t>(leaf)];
  return cursor.batch->rep_levels.empty() ? 0 : cursor.batch->rep_levels[cursor.pos];
}

void RecordAssembler::skip_entry(const Node& node) {
  for (int b = node.leaf_begin; b < node.leaf_end; ++b) {
    Cursor& cursor = cursors_[static_cast<size_t>(b)];
    const int def = def_at(b);
    if (def >= cursor.max_def) ++cursor.next_value;  // keeps values aligned on bad input
    ++cursor.pos;
    // Entries that continue this null or empty node and define nothing more are redundant:
    // DuckDB writes a null fixed-size ARRAY (a LIST in Parquet) of n elements as n entries, the
    // first starting the list and n - 1 more with the list's repetition level, all at the null
    // list's definition level. They are read as the null list DuckDB reads; an entry that
    // defines more than the skipped one is left to fail as levels that disagree.
    while (cursor.pos < cursor.batch->num_levels && rep_at(b) > node.outer_rep &&
           def_at(b) <= def && def < cursor.max_def) {
      ++cursor.pos;
    }
  }
}

void RecordAssembler::render(const Node& node, std::string& out) {
  const int first = node.leaf_begin;
  if (node.null_def >= 0 && def_at(first) < node.null_def) {
    out.append("null");
    skip_entry(node);
    return;
  }
  switch (node.kind) {
    case Node::Kind::LEAF: {
      Cursor& cursor = cursors_[static_cast<size_t>(first)];
      if (def_at(first) >= cursor.max_def) {
        formatters_[static_cast<size_t>(first)].append_json(out, cursor.batch->values,
                                                            cursor.next_value++);
      } else {
        out.append("null");
      }
      ++cursor.pos;
      return;
    }
    case Node::Kind::STRUCT:
      out.push_back('{');
      for (size_t i = 0; i < node.children.size(); ++i) {
        out.append(node.keys[i]);
        render(node.children[i], out);
      }
      out.push_back('}');
      return;
    case Node::Kind::LIST: {
      if (def_at(first) < node.element_def) {
        out.append("[]");
        skip_entry(node);
        return;
      }
      out.push_back('[');
      const Cursor& cursor = cursors_[static_cast<size_t>(first)];
      for (;;) {
        render(node.children[0], out);
        if (cursor.pos >= cursor.batch->num_levels || rep_at(first) != node.rep) break;
        out.push_back(',');
      }
      out.push_back(']');
      return;
    }
    case Node::Kind::VARIANT:
      render_variant(node, out);
      return;
    case Node::Kind::SHREDDED:
      fail(first, "a shredded variant field outside a variant");
  }
}

std::span<const uint8_t> RecordAssembler::take_bytes(int leaf) {
  Cursor& cursor = cursors_[static_cast<size_t>(leaf)];
  ++cursor.pos;
  return cursor.batch->values.bytes(cursor.next_value++);
}

bool RecordAssembler::present(const Node& node) const {
  if (node.kind == Node::Kind::LEAF) {
    return def_at(node.leaf_begin) >= cursors_[static_cast<size_t>(node.leaf_begin)].max_def;
  }
  return node.null_def < 0 || def_at(node.leaf_begin) >= node.null_def;
}

void RecordAssembler::render_variant(const Node& node, std::string& out) {
  const Node& metadata_leaf = node.children[0];
  if (!present(metadata_leaf)) fail(metadata_leaf.leaf_begin, "a variant's metadata is null");
  const auto metadata_bytes = take_bytes(metadata_leaf.leaf_begin);
  try {
    const VariantMetadata metadata(metadata_bytes);
    const Node* value = node.value >= 0 ? &node.children[static_cast<size_t>(node.value)] : nullptr;
    const Node* typed = node.typed >= 0 ? &node.children[static_cast<size_t>(node.typed)] : nullptr;
    // A variant whose value and typed_value are both null is the variant null.
    if (!render_shredded(value, typed, metadata, out)) out.append("null");
  } catch (Error& error) {
    const auto& path =
        schema_->leaves()[static_cast<size_t>(leaves_[static_cast<size_t>(node.leaf_begin)])].path;
    std::string group;
    for (size_t i = 0; i + 1 < path.size(); ++i) group += (i == 0 ? "" : ".") + path[i];
    error.locate_column(group);
    throw;
  }
}

bool RecordAssembler::render_shredded(const Node* value, const Node* typed,
                                      const VariantMetadata& metadata, std::string& out) {
  const bool has_value = value != nullptr && present(*value);
  const bool has_typed = typed != nullptr && present(*typed);
  if (!has_value) {
    if (value != nullptr) skip_entry(*value);
    if (!has_typed) {
      if (typed != nullptr) skip_entry(*typed);
      return false;
    }
    render_typed(*typed, metadata, out);
    return true;
  }
  const auto bytes = take_bytes(value->leaf_begin);
  VariantDecoder decoder(metadata, bytes.size());
  if (!has_typed) {
    if (typed != nullptr) skip_entry(*typed);
    decoder.append_json(out, bytes);
    return true;
  }
  // Both: a partially shredded object, its other fields in `value`.
  std::vector<VariantDecoder::Field> fields;
  if (typed->kind != Node::Kind::STRUCT || !decoder.object_fields(bytes, fields)) {
    fail(value->leaf_begin,
         "a variant has both value and typed_value, and they are not both objects");
  }
  out.push_back('{');
  bool any = false;
  render_shredded_fields(*typed, metadata, out, any);
  for (const auto& field : fields) {
    if (std::find(typed->names.begin(), typed->names.end(), field.key) != typed->names.end()) {
      continue;  // a shredded field may not appear in value too; the shredded one wins
    }
    if (any) out.push_back(',');
    any = true;
    append_key(out, field.key);
    out.push_back(':');
    decoder.append_json(out, field.value);
  }
  out.push_back('}');
  return true;
}

void RecordAssembler::render_shredded_fields(const Node& object, const VariantMetadata& metadata,
                                             std::string& out, bool& any) {
  for (size_t i = 0; i < object.children.size(); ++i) {
    const size_t mark = out.size();
    if (any) out.push_back(',');
    out.append(object.keys[i]);
    if (render_field(object.children[i], metadata, out)) {
      any = true;
    } else {
      out.resize(mark);  // a missing field
    }
  }
}

bool RecordAssembler::render_field(const Node& shredded, const VariantMetadata& metadata,
                                   std::string& out) {
  if (!present(shredded)) {
    skip_entry(shredded);
    return false;
  }
  const Node* value =
      shredded.value >= 0 ? &shredded.children[static_cast<size_t>(shredded.value)] : nullptr;
  const Node* typed =
      shredded.typed >= 0 ? &shredded.children[static_cast<size_t>(shredded.typed)] : nullptr;
  return render_shredded(value, typed, metadata, out);
}

void RecordAssembler::render_typed(const Node& node, const VariantMetadata& metadata,
                                   std::string& out) {
  const int first = node.leaf_begin;
  switch (node.kind) {
    case Node::Kind::LEAF: {
      Cursor& cursor = cursors_[static_cast<size_t>(first)];
      formatters_[static_cast<size_t>(first)].append_json(out, cursor.batch->values,
                                                          cursor.next_value++);
      ++cursor.pos;
      return;
    }
    case Node::Kind::STRUCT: {
      out.push_back('{');
      bool any = false;
      render_shredded_fields(node, metadata, out, any);
      out.push_back('}');
      return;
    }
    case Node::Kind::LIST: {
      if (def_at(first) < node.element_def) {
        out.append("[]");
        skip_entry(node);
        return;
      }
      out.push_back('[');
      const Cursor& cursor = cursors_[static_cast<size_t>(first)];
      for (;;) {
        // An element with neither value nor typed_value is invalid; it reads as null.
        if (!render_field(node.children[0], metadata, out)) out.append("null");
        if (cursor.pos >= cursor.batch->num_levels || rep_at(first) != node.rep) break;
        out.push_back(',');
      }
      out.push_back(']');
      return;
    }
    default:
      fail(first, "a variant's typed_value of an unexpected shape");
  }
}

void RecordAssembler::append_json(size_t field, std::string& out) {
  const Node& root = fields_[field].root;
  render(root, out);
  for (int b = root.leaf_begin; b < root.leaf_end; ++b) {
    const Cursor& cursor = cursors_[static_cast<size_t>(b)];
    if (cursor.pos < cursor.batch->num_levels && rep_at(b) != 0) {
      fail(b, "a record ends at an entry with repetition level " + std::to_string(rep_at(b)) +
                  " (the column's levels disagree with the other columns of the record)");
    }
  }
}

}  // namespace kbdata::tabular
