// Record assembly: nested values (structs, lists, maps) rebuilt from the level streams of their
// leaf columns, rendered as JSON text (Dremel, as in "Dremel: Interactive Analysis of Web-Scale
// Datasets", section 4.3, specialised to JSON output).
//
// Each leaf column is a stream of (repetition level, definition level, value) entries. The
// definition level says how many of the OPTIONAL and REPEATED nodes on the leaf's path are
// present; the repetition level says at which repeated node a new element starts (0: a new row).
// Worked example, one leaf under a nullable list of nullable strings:
//
//   optional group tags (LIST) {      def 1: tags present
//     repeated group list {           def 2: a list element exists   rep 1
//       optional binary element; }}   def 3: the element is not null
//
//   row                      rep  def  value    how the entry is read
//   null                     0    0    -        def 0 < 1: the list is null
//   []                       0    1    -        def 1 < 2: present but empty
//   ["a", null, "b"]         0    3    "a"      rep 0 starts the row; def 3: a value
//                            1    2    -        rep 1: next element; def 2 < 3: a null element
//                            1    3    "b"      rep 1: next element
//   [null]                   0    2    -        one null element
//
// A struct's fields are rendered one after the other, each consuming its own leaves' entries; a
// node is null when its first leaf's definition level is below the node's own, and then every
// leaf below it holds one entry for it, followed by any redundant entries that continue it (a
// repetition level above the node's) without defining more (DuckDB writes a null fixed-size
// ARRAY of n elements as n entries); those are skipped. A list's elements continue while its
// first leaf's next entry has the list's repetition level. So every node instance consumes at least
// one entry of each leaf below it, which bounds the work by the entries of the batch even for
// hostile levels; running past a batch's entries or values throws FormatError.
//
// Why JSON text directly rather than a value tree: the only consumers print JSON (or a cell
// holding JSON), so building and freeing a tree per row would only add allocations; a leaf value
// is appended by its ValueFormatter straight into the output buffer.
//
// How the schema maps to output (Parquet's LogicalTypes.md, including its backward-compatibility
// rules for LIST and MAP):
//   - a group without LIST/MAP annotation is a struct: a JSON object keyed by field name;
//   - a LIST group with one repeated child R is a list. Its element is R itself when R is a
//     primitive, a group with several fields, or a one-field group named "array" or
//     "<list name>_tuple" (legacy 2-level lists); otherwise R's only child (3-level lists, the
//     child named "element", "item" or anything else);
//   - a MAP (or MAP_KEY_VALUE) group with one repeated group child, and a repeated group annotated
//     MAP_KEY_VALUE, is a map: an array of {"key": k, "value": v} objects (the first field of the
//     entry is "key", the second "value", any further field keeps its name);
//   - any other REPEATED node is a list of its (required) self;
//   - a VARIANT group whose children are a binary `metadata`, a binary `value` and/or a
//     `typed_value`, all selected, is the variant they encode (tabular/variant.h), typed_value
//     merged back by VariantShredding.md: a primitive as its column renders, a LIST of {value,
//     typed_value} elements as an array, a group of {value, typed_value} fields as an object that
//     leaves out the fields where both are null; a `value` object beside a shredded object adds
//     its other fields after the shredded ones;
//   - an annotated group of another shape reads as a struct.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "parquet/column_reader.h"
#include "parquet/schema.h"
#include "tabular/value_format.h"

namespace kbdata::tabular {

class VariantMetadata;

class RecordAssembler {
 public:
  // `schema` must outlive the assembler. `selected` holds leaf indexes (into schema.leaves());
  // duplicates are ignored. The output has one field per top-level schema field that holds a
  // selected leaf, in the order of their first selected leaf; each field is the schema subtree
  // pruned to the selected leaves (a group keeps only the children holding selected leaves).
  // Throws UsageError if `selected` is empty or holds an index out of range.
  RecordAssembler(const parquet::Schema& schema, std::span<const int> selected);
  ~RecordAssembler();
  RecordAssembler(RecordAssembler&&) noexcept;
  RecordAssembler& operator=(RecordAssembler&&) noexcept;

  // The leaves to read, in the order in which start() expects their batches: field by field,
  // schema order within a field.
  [[nodiscard]] const std::vector<int>& leaves() const { return leaves_; }

  [[nodiscard]] size_t num_fields() const;
  // The top-level field's name.
  [[nodiscard]] const std::string& field_name(size_t field) const;
  // For a field that is a single top-level non-repeated leaf: its position in leaves() (its batch
  // then holds one entry per row). -1 for a nested field.
  [[nodiscard]] int flat_batch(size_t field) const;

  // The position in leaves() of the field's first leaf.
  [[nodiscard]] int first_batch(size_t field) const;
  [[nodiscard]] const parquet::Schema& schema() const { return *schema_; }

  // Takes the batches of the next rows: batches[i] holds whole records of leaves()[i], all
  // batches the same number of records, and they must stay alive and unchanged until the next
  // start(). Throws FormatError (naming the column) if a batch's values do not match its
  // definition levels.
  void start(std::span<const parquet::ColumnBatch* const> batches);

  // Appends field `field` of the next row as JSON (null, or an object, array or leaf value), and
  // moves that field on to the following row. Call once per field per row, in any field order.
  // Throws FormatError (naming the column) when the levels are inconsistent: a leaf's entries run
  // out or its next entry does not start a row.
  void append_json(size_t field, std::string& out);

  struct Node;  // the pruned output tree; defined in the .cc

 private:
  struct Field;
  struct Cursor {
    const parquet::ColumnBatch* batch = nullptr;
    size_t pos = 0;         // next level entry
    size_t next_value = 0;  // index in batch->values of the next present value
    int max_def = 0;
  };

  void render(const Node& node, std::string& out);
  // VARIANT groups (tabular/variant.h, VariantShredding.md): the value binary decoded, the
  // typed_value columns merged back in.
  void render_variant(const Node& node, std::string& out);
  // Appends the variant held by `value` and/or `typed` (either may be null), consuming one entry
  // of each; returns false, appending nothing, when both are null (a missing object field).
  bool render_shredded(const Node* value, const Node* typed, const VariantMetadata& metadata,
                       std::string& out);
  bool render_field(const Node& shredded, const VariantMetadata& metadata, std::string& out);
  void render_shredded_fields(const Node& object, const VariantMetadata& metadata, std::string& out,
                              bool& any);
  void render_typed(const Node& node, const VariantMetadata& metadata, std::string& out);
  // The next value of batch position `leaf` (which must be present), consuming its entry.
  std::span<const uint8_t> take_bytes(int leaf);
  [[nodiscard]] bool present(const Node& node) const;
  void skip_entry(const Node& node);
  [[nodiscard]] int def_at(int leaf) const;
  [[nodiscard]] int rep_at(int leaf) const;
  [[noreturn]] void fail(int leaf, const std::string& message) const;
  [[noreturn]] static void fail_column(const parquet::ColumnDescriptor& column, const char* what);

  const parquet::Schema* schema_;
  std::vector<int> leaves_;  // schema leaf indexes, by batch position
  std::vector<Field> fields_;
  std::vector<Cursor> cursors_;             // by batch position
  std::vector<ValueFormatter> formatters_;  // by batch position
};

}  // namespace kbdata::tabular
