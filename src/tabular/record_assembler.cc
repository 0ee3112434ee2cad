#include "tabular/record_assembler.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "common/error.h"
#include "common/text.h"

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
  enum class Kind : uint8_t { LEAF, STRUCT, LIST };
  Kind kind = Kind::LEAF;
  int null_def = -1;    // null when the first leaf's definition level is below this; -1: never
  int element_def = 0;  // LIST: at least one element when the definition level reaches this
  int rep = 0;          // LIST: repetition level of a next element
  int leaf_begin = 0;
  int leaf_end = 0;
  std::vector<std::string> keys;  // STRUCT: `"name":`, with a leading ',' for all but the first
  std::vector<Node> children;     // STRUCT: fields; LIST: the element
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
    list.leaf_begin = element->leaf_begin;
    list.leaf_end = element->leaf_end;
    list.children.push_back(std::move(*element));
    return list;
  }

  // The node `s` as a value (its own repetition already accounted for by the caller).
  std::optional<Node> value(const SchemaNode& s, bool nullable, bool rename_as_map_entry) {
    std::optional<Node> out;
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
    if (def_at(b) >= cursor.max_def) ++cursor.next_value;  // keeps values aligned on bad input
    ++cursor.pos;
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
