// Rows of typed columns to a Parquet file: the one way kbdata writes a table (synth, export,
// dedup, every `-f parquet` output). docs/parquet.md, "Writing rows".
//
//   schema      Fields: leaves of a FieldType, groups (structs) of fields, lists of a leaf type;
//               OPTIONAL unless required()
//   builders    one TypedColumnBuilder per leaf, taking values and nulls row by row or a batch at a
//               time; end_row() / end_rows() close rows
//   batches     the rows held are handed to FileWriter every RowBatchLimits (rows or bytes of
//               values), which bounds row groups and pages, writes statistics and the page index
//               (WriterOptions)
//   provenance  kbdata's key-value metadata and created_by, from one Provenance (provenance.h)
//   output      an AtomicOutputFile: the file is at its path only after commit(); a writer
//               destroyed before (an error on the way) leaves nothing, not even its temporary
//
// It knows no KernelBot type: dataset/flat_file_writer.h writes the flat schema on top of it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/file.h"
#include "common/output_target.h"
#include "parquet/column_reader.h"
#include "parquet/metadata.h"
#include "parquet/schema.h"
#include "parquet/write/file_writer.h"
#include "parquet/write/provenance.h"
#include "parquet/write/writer_options.h"

namespace kbdata::parquet {

// ---- Schema ----

// A leaf's type as written: its physical type and annotation.
enum class FieldType {
  INT32,            // INT32
  INT64,            // INT64
  DOUBLE,           // DOUBLE
  BOOLEAN,          // BOOLEAN
  STRING,           // BYTE_ARRAY STRING (with the legacy ConvertedType UTF8)
  BINARY,           // BYTE_ARRAY without annotation
  JSON,             // BYTE_ARRAY JSON (ConvertedType JSON)
  TIMESTAMP,        // INT64 TIMESTAMP(MICROS, UTC) (ConvertedType TIMESTAMP_MICROS): µs since
                    // the epoch
  LOCAL_TIMESTAMP,  // INT64 TIMESTAMP(MICROS, not adjusted to UTC), no ConvertedType: a naive time
};

// One field of a schema: a leaf, a group of fields (a struct), or a list.
class Field {
 public:
  enum class Kind { LEAF, GROUP, LIST };

  // An OPTIONAL leaf.
  [[nodiscard]] static Field leaf(std::string name, FieldType type);
  // An OPTIONAL group of `fields` (a struct); a group needs at least one field.
  [[nodiscard]] static Field group(std::string name, std::vector<Field> fields);
  // An OPTIONAL list in the spec's 3-level form: `name` (LIST) / REPEATED group "list" / OPTIONAL
  // leaf "element" of `element`.
  [[nodiscard]] static Field list(std::string name, FieldType element);

  // The same field, REQUIRED: it is never null (a list: never null, maybe empty).
  [[nodiscard]] Field required() &&;

  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] Kind kind() const { return kind_; }
  [[nodiscard]] FieldType type() const { return type_; }  // a leaf's, or a list's elements'
  [[nodiscard]] bool is_required() const { return required_; }
  [[nodiscard]] const std::vector<Field>& fields() const { return fields_; }  // a group's

 private:
  Field(std::string name, Kind kind, FieldType type)
      : name_(std::move(name)), kind_(kind), type_(type) {}

  std::string name_;
  Kind kind_;
  FieldType type_;
  bool required_ = false;
  std::vector<Field> fields_;
};

// The footer's element list (root first, named "schema") of a schema of `fields`. Throws
// UsageError for an empty group.
[[nodiscard]] std::vector<SchemaElement> schema_elements(const std::vector<Field>& fields);

// ---- Column builders ----

// When the rows held are handed to the FileWriter: at `rows` rows, or once the values held (their
// PLAIN bytes, without lengths or levels) reach `bytes`. Memory is one batch plus what the
// FileWriter holds (a row group's encoded pages). Where batches end is part of the output: a
// column's page ends at a batch's end when its dictionary outgrows its limit there, so the same
// rows in other batches can give other (equally valid) bytes.
struct RowBatchLimits {
  size_t rows = 2048;
  size_t bytes = size_t{8} << 20;
};

class RowFileWriter;

// The entries of one leaf column for the rows being written. Every row gives every leaf exactly
// one entry:
//   - a value (TypedColumnBuilder::value),
//   - null(): the leaf is null, the groups around it present; for a list's leaf outside
//     begin_list(): the list is null;
//   - null_at(level): a null at a definition level below the leaf's own: the group (or list)
//     that level names is null. Level 0 is the outermost optional field on the leaf's path, so
//     null_at(0) for a leaf of an OPTIONAL top-level group means "the struct is null";
//   - for a leaf of a list: begin_list(), then each element (a value, or null() for a null
//     element), then end_list(); no element is an empty list.
// Misuse (a null in a REQUIRED leaf, a level out of range, a list call on a leaf of no list)
// throws UsageError naming the column.
class ColumnBuilder {
 public:
  // Made by RowFileWriter: `column` is its schema's, `list_def` the definition level of an empty
  // list (-1 for a leaf of no list), `batch` and `batch_bytes` the writer's.
  ColumnBuilder(const ColumnDescriptor& column, int list_def, ColumnBatch& batch,
                size_t& batch_bytes);
  ColumnBuilder(const ColumnBuilder&) = delete;
  ColumnBuilder& operator=(const ColumnBuilder&) = delete;
  virtual ~ColumnBuilder() = default;

  [[nodiscard]] const ColumnDescriptor& column() const { return column_; }

  void null();
  void null_at(int definition_level);
  // `count` nulls of the leaf, one per row (a leaf of no list).
  void nulls(size_t count);
  void begin_list();
  void end_list();

 protected:
  friend class RowFileWriter;

  // Records an entry that holds a value, and the value's bytes.
  void value_entry(size_t value_bytes) {
    if (max_rep_ > 0) list_entry();
    if (max_def_ > 0) batch_.def_levels.push_back(max_def_);
    ++batch_.num_levels;
    batch_bytes_ += value_bytes;
    if (list_def_ < 0) ++records_;
  }
  void list_entry();
  void null_entry(int16_t level);
  [[noreturn]] void fail(const std::string& what) const;

  const ColumnDescriptor& column_;
  ColumnBatch& batch_;
  size_t& batch_bytes_;  // the writer's count of value bytes held, shared by its builders
  const int16_t max_def_;
  const int16_t max_rep_;
  const int list_def_;  // the level of an empty list (list leaves); -1 for a leaf of no list
  bool in_list_ = false;
  bool list_empty_ = true;
  size_t records_ = 0;  // rows given an entry since the last batch
};

// The builder of a leaf whose values are T: int32_t (INT32), int64_t (INT64, TIMESTAMP,
// LOCAL_TIMESTAMP), double (DOUBLE), bool (BOOLEAN), std::string_view (STRING, BINARY, JSON).
// A STRING or JSON value that is not valid UTF-8 is written with each invalid sequence replaced
// by U+FFFD: the annotation promises UTF-8 to every reader.
template <typename T>
class TypedColumnBuilder final : public ColumnBuilder {
 public:
  // Made by RowFileWriter (see ColumnBuilder).
  TypedColumnBuilder(const ColumnDescriptor& column, int list_def, ColumnBatch& batch,
                     size_t& batch_bytes);

  void value(T v);
  // The value, or null() for nullopt.
  template <typename U>
  void optional(const std::optional<U>& v) {
    if (v) {
      value(static_cast<T>(*v));
    } else {
      null();
    }
  }
  // One value per row, for `values.size()` rows (a leaf of no list).
  void values(std::span<const T> values);

 private:
  bool utf8_ = false;  // STRING or JSON: values are checked and repaired
};

using Int32Builder = TypedColumnBuilder<int32_t>;
using Int64Builder = TypedColumnBuilder<int64_t>;
using DoubleBuilder = TypedColumnBuilder<double>;
using BoolBuilder = TypedColumnBuilder<bool>;
using BytesBuilder = TypedColumnBuilder<std::string_view>;

// ---- The writer ----

class RowFileWriter {
 public:
  // Creates the output's temporary beside `target` (AtomicOutputFile: a destination that must not
  // be replaced, docs/cli.md "Safety", is a UsageError). `options` as FileWriter takes them; their
  // key_value_metadata and created_by are replaced by `provenance`'s. Throws UsageError for an
  // invalid schema or options, IoError if the temporary cannot be created.
  RowFileWriter(OutputTarget target, const std::vector<Field>& fields, WriterOptions options,
                const Provenance& provenance, RowBatchLimits limits = {});
  // The same for `path`, checked with check_output_file().
  RowFileWriter(const std::string& path, const std::vector<Field>& fields, WriterOptions options,
                const Provenance& provenance, RowBatchLimits limits = {});
  virtual ~RowFileWriter();
  RowFileWriter(const RowFileWriter&) = delete;
  RowFileWriter& operator=(const RowFileWriter&) = delete;

  [[nodiscard]] const Schema& schema() const { return writer_.schema(); }

  // The builder of leaf `leaf` (Schema::leaves() order: depth first), or of the leaf whose dotted
  // path is `dotted_path`. Throws UsageError for a leaf that does not exist or whose values are
  // not T. The reference stays valid for the writer's life.
  //   column(leaf)     the builder without its type: for nulls and lists of any leaf
  //   column<T>(leaf)  the typed builder, for values
  [[nodiscard]] ColumnBuilder& column(size_t leaf);
  template <typename T>
  [[nodiscard]] TypedColumnBuilder<T>& column(size_t leaf);
  template <typename T>
  [[nodiscard]] TypedColumnBuilder<T>& column(const std::string& dotted_path);

  // Ends a row: every leaf has been given its entry. Hands the rows held to the FileWriter when
  // they reach the batch limits. Throws UsageError (naming the column) if a leaf got no entry or
  // several, when the rows are handed over; IoError from the output.
  void end_row() { end_rows(1); }
  // Ends `count` rows given by batch (TypedColumnBuilder::values, ColumnBuilder::nulls).
  void end_rows(size_t count);

  // Appends a key-value pair to the footer's metadata, after the provenance's: what is known only
  // once the rows are written (FileWriter::add_key_value). REQUIRES: not closed yet.
  void add_key_value(KeyValue kv) { writer_.add_key_value(std::move(kv)); }

  // Writes the rows held, the last row group, the page indexes and the footer. The file is then
  // complete, still under its temporary name; no row may follow. A second call does nothing.
  void close();
  // close() if not yet, then flushes and syncs the temporary (AtomicOutputFile::sync): lets a
  // caller sync several outputs before renaming any (kbdata export).
  void sync();
  // close() if not yet, then moves the file into place.
  void commit();

  [[nodiscard]] int64_t rows() const { return rows_; }
  // Bytes written to the output so far; the file's size after close().
  [[nodiscard]] uint64_t bytes_written() const { return writer_.bytes_written(); }

 private:
  RowFileWriter(std::unique_ptr<AtomicOutputFile> file, const std::vector<Field>& fields,
                WriterOptions options, const Provenance& provenance, RowBatchLimits limits);
  void flush();
  ColumnBuilder& builder(size_t leaf, PhysicalType physical, const char* expected);

  std::unique_ptr<AtomicOutputFile> file_;
  FileWriter writer_;
  RowBatchLimits limits_;
  std::vector<ColumnBatch> batches_;  // one per leaf; the builders append to them
  std::vector<std::unique_ptr<ColumnBuilder>> builders_;
  size_t batch_bytes_ = 0;
  size_t batch_rows_ = 0;
  int64_t rows_ = 0;
  bool closed_ = false;
};

}  // namespace kbdata::parquet
