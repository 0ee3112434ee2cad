#include "parquet/write/row_file_writer.h"

#include <cstring>
#include <functional>

#include "common/error.h"
#include "common/text.h"

namespace kbdata::parquet {
namespace {

SchemaElement leaf_element(const std::string& name, FieldType type, bool required) {
  SchemaElement e;
  e.name = name;
  e.repetition_type = required ? Repetition::REQUIRED : Repetition::OPTIONAL;
  LogicalType t;
  switch (type) {
    case FieldType::INT32:
      e.type = PhysicalType::INT32;
      break;
    case FieldType::INT64:
      e.type = PhysicalType::INT64;
      break;
    case FieldType::DOUBLE:
      e.type = PhysicalType::DOUBLE;
      break;
    case FieldType::BOOLEAN:
      e.type = PhysicalType::BOOLEAN;
      break;
    case FieldType::STRING:
      e.type = PhysicalType::BYTE_ARRAY;
      t.kind = LogicalType::Kind::STRING;
      e.logical_type = t;
      e.converted_type = ConvertedType::UTF8;
      break;
    case FieldType::BINARY:
      e.type = PhysicalType::BYTE_ARRAY;
      break;
    case FieldType::JSON:
      e.type = PhysicalType::BYTE_ARRAY;
      t.kind = LogicalType::Kind::JSON;
      e.logical_type = t;
      e.converted_type = ConvertedType::JSON;
      break;
    case FieldType::TIMESTAMP:
    case FieldType::LOCAL_TIMESTAMP:
      e.type = PhysicalType::INT64;
      t.kind = LogicalType::Kind::TIMESTAMP;
      t.unit = TimeUnit::MICROS;
      t.is_adjusted_to_utc = type == FieldType::TIMESTAMP;
      e.logical_type = t;
      // Readers from before LogicalType know only the UTC form as TIMESTAMP_MICROS.
      if (type == FieldType::TIMESTAMP) e.converted_type = ConvertedType::TIMESTAMP_MICROS;
      break;
  }
  return e;
}

SchemaElement group_element(const std::string& name, Repetition repetition, size_t children) {
  SchemaElement e;
  e.name = name;
  e.repetition_type = repetition;
  e.num_children = static_cast<int32_t>(children);
  return e;
}

void append_elements(const Field& field, std::vector<SchemaElement>& out) {
  const Repetition repetition = field.is_required() ? Repetition::REQUIRED : Repetition::OPTIONAL;
  switch (field.kind()) {
    case Field::Kind::LEAF:
      out.push_back(leaf_element(field.name(), field.type(), field.is_required()));
      return;
    case Field::Kind::GROUP:
      if (field.fields().empty()) throw UsageError("group " + field.name() + " has no fields");
      out.push_back(group_element(field.name(), repetition, field.fields().size()));
      for (const Field& child : field.fields()) append_elements(child, out);
      return;
    case Field::Kind::LIST: {
      SchemaElement list = group_element(field.name(), repetition, 1);
      LogicalType t;
      t.kind = LogicalType::Kind::LIST;
      list.logical_type = t;
      list.converted_type = ConvertedType::LIST;
      out.push_back(list);
      out.push_back(group_element("list", Repetition::REPEATED, 1));
      out.push_back(leaf_element("element", field.type(), /*required=*/false));
      return;
    }
  }
}

// The definition level of an empty list for every leaf of `schema` (-1 for a leaf of no list): a
// list's REPEATED node's max_def minus one.
std::vector<int> empty_list_levels(const Schema& schema) {
  std::vector<int> levels(schema.leaves().size(), -1);
  std::function<void(const SchemaNode&, int)> walk = [&](const SchemaNode& node, int list_def) {
    if (node.repetition == Repetition::REPEATED) list_def = node.max_def - 1;
    if (node.is_leaf) {
      levels[static_cast<size_t>(node.leaf_index)] = list_def;
      return;
    }
    for (const SchemaNode& child : node.children) walk(child, list_def);
  };
  for (const SchemaNode& child : schema.root().children) walk(child, -1);
  return levels;
}

WriterOptions with_provenance(WriterOptions options, const Provenance& provenance) {
  apply_provenance(provenance, options);
  return options;
}

template <typename T>
constexpr PhysicalType physical_of() {
  if constexpr (std::is_same_v<T, int32_t>) return PhysicalType::INT32;
  if constexpr (std::is_same_v<T, int64_t>) return PhysicalType::INT64;
  if constexpr (std::is_same_v<T, double>) return PhysicalType::DOUBLE;
  if constexpr (std::is_same_v<T, bool>) return PhysicalType::BOOLEAN;
  return PhysicalType::BYTE_ARRAY;
}

template <typename T>
constexpr const char* value_type_name() {
  if constexpr (std::is_same_v<T, int32_t>) return "int32_t";
  if constexpr (std::is_same_v<T, int64_t>) return "int64_t";
  if constexpr (std::is_same_v<T, double>) return "double";
  if constexpr (std::is_same_v<T, bool>) return "bool";
  return "std::string_view";
}

}  // namespace

// ---- Schema ----

Field Field::leaf(std::string name, FieldType type) {
  return Field(std::move(name), Kind::LEAF, type);
}

Field Field::group(std::string name, std::vector<Field> fields) {
  Field f(std::move(name), Kind::GROUP, FieldType::INT32);
  f.fields_ = std::move(fields);
  return f;
}

Field Field::list(std::string name, FieldType element) {
  return Field(std::move(name), Kind::LIST, element);
}

Field Field::required() && {
  required_ = true;
  return std::move(*this);
}

std::vector<SchemaElement> schema_elements(const std::vector<Field>& fields) {
  std::vector<SchemaElement> out(1);
  out[0].name = "schema";
  out[0].num_children = static_cast<int32_t>(fields.size());
  for (const Field& field : fields) append_elements(field, out);
  return out;
}

// ---- Column builders ----

ColumnBuilder::ColumnBuilder(const ColumnDescriptor& column, int list_def, ColumnBatch& batch,
                             size_t& batch_bytes)
    : column_(column),
      batch_(batch),
      batch_bytes_(batch_bytes),
      max_def_(static_cast<int16_t>(column.max_def)),
      max_rep_(static_cast<int16_t>(column.max_rep)),
      list_def_(list_def) {}

void ColumnBuilder::fail(const std::string& what) const {
  UsageError error("column " + column_.dotted_path + ": " + what);
  error.locate_column(column_.dotted_path);
  throw error;
}

void ColumnBuilder::list_entry() {
  if (!in_list_) fail("a value or null of a list's element outside begin_list()");
  batch_.rep_levels.push_back(list_empty_ ? 0 : max_rep_);
  list_empty_ = false;
}

void ColumnBuilder::null_entry(int16_t level) {
  if (max_def_ > 0) batch_.def_levels.push_back(level);
  if (max_rep_ > 0) batch_.rep_levels.push_back(0);
  ++batch_.num_levels;
  ++records_;
}

void ColumnBuilder::null() {
  if (in_list_) {
    // A null element.
    if (column_.repetition != Repetition::OPTIONAL) fail("a null element in a list of REQUIRED");
    list_entry();
    batch_.def_levels.push_back(static_cast<int16_t>(max_def_ - 1));
    ++batch_.num_levels;
    return;
  }
  if (list_def_ >= 0) {
    null_at(list_def_ - 1);  // the list itself
    return;
  }
  if (column_.repetition != Repetition::OPTIONAL) fail("a null in a REQUIRED column");
  null_entry(static_cast<int16_t>(max_def_ - 1));
}

void ColumnBuilder::null_at(int definition_level) {
  const int below = list_def_ >= 0 ? list_def_ : max_def_;
  if (in_list_ || definition_level < 0 || definition_level >= below) {
    fail("no null at definition level " + std::to_string(definition_level) + " (levels 0.." +
         std::to_string(below - 1) + " hold one" + (in_list_ ? ", outside a list)" : ")"));
  }
  null_entry(static_cast<int16_t>(definition_level));
}

void ColumnBuilder::nulls(size_t count) {
  if (list_def_ >= 0) fail("nulls() on a list's column");
  if (column_.repetition != Repetition::OPTIONAL) fail("a null in a REQUIRED column");
  batch_.def_levels.insert(batch_.def_levels.end(), count, static_cast<int16_t>(max_def_ - 1));
  batch_.num_levels += count;
  records_ += count;
}

void ColumnBuilder::begin_list() {
  if (list_def_ < 0) fail("begin_list() on a column of no list");
  if (in_list_) fail("begin_list() twice");
  in_list_ = true;
  list_empty_ = true;
}

void ColumnBuilder::end_list() {
  if (!in_list_) fail("end_list() without begin_list()");
  in_list_ = false;
  if (list_empty_) {
    batch_.def_levels.push_back(static_cast<int16_t>(list_def_));
    batch_.rep_levels.push_back(0);
    ++batch_.num_levels;
  }
  ++records_;
}

template <typename T>
TypedColumnBuilder<T>::TypedColumnBuilder(const ColumnDescriptor& column, int list_def,
                                          ColumnBatch& batch, size_t& batch_bytes)
    : ColumnBuilder(column, list_def, batch, batch_bytes),
      utf8_(column.logical.kind == LogicalType::Kind::STRING ||
            column.logical.kind == LogicalType::Kind::JSON) {}

template <typename T>
void TypedColumnBuilder<T>::value(T v) {
  ValueBuffer& values = batch_.values;
  if constexpr (std::is_same_v<T, std::string_view>) {
    if (utf8_ && !is_valid_utf8(v)) {
      std::string repaired;
      append_utf8_repaired(repaired, v);
      value(repaired);
      return;
    }
    values.append_binary({reinterpret_cast<const uint8_t*>(v.data()), v.size()});
    value_entry(v.size());
  } else if constexpr (std::is_same_v<T, bool>) {
    values.data.push_back(v ? 1 : 0);
    ++values.count;
    value_entry(1);
  } else {
    const size_t at = values.data.size();
    values.data.resize(at + sizeof(T));
    std::memcpy(values.data.data() + at, &v, sizeof(T));
    ++values.count;
    value_entry(sizeof(T));
  }
}

template <typename T>
void TypedColumnBuilder<T>::values(std::span<const T> values) {
  if (list_def_ >= 0) fail("values() on a list's column");
  if constexpr (std::is_same_v<T, std::string_view> || std::is_same_v<T, bool>) {
    for (const T& v : values) value(v);
  } else {
    ValueBuffer& buffer = batch_.values;
    const size_t at = buffer.data.size();
    buffer.data.resize(at + values.size_bytes());
    if (!values.empty()) std::memcpy(buffer.data.data() + at, values.data(), values.size_bytes());
    buffer.count += values.size();
    if (max_def_ > 0) batch_.def_levels.insert(batch_.def_levels.end(), values.size(), max_def_);
    batch_.num_levels += values.size();
    batch_bytes_ += values.size_bytes();
    records_ += values.size();
  }
}

template class TypedColumnBuilder<int32_t>;
template class TypedColumnBuilder<int64_t>;
template class TypedColumnBuilder<double>;
template class TypedColumnBuilder<bool>;
template class TypedColumnBuilder<std::string_view>;

// ---- The writer ----

RowFileWriter::RowFileWriter(OutputTarget target, const std::vector<Field>& fields,
                             WriterOptions options, const Provenance& provenance,
                             RowBatchLimits limits)
    : RowFileWriter(std::make_unique<AtomicOutputFile>(std::move(target)), fields,
                    std::move(options), provenance, limits) {}

RowFileWriter::RowFileWriter(const std::string& path, const std::vector<Field>& fields,
                             WriterOptions options, const Provenance& provenance,
                             RowBatchLimits limits)
    : RowFileWriter(std::make_unique<AtomicOutputFile>(path), fields, std::move(options),
                    provenance, limits) {}

RowFileWriter::RowFileWriter(std::unique_ptr<AtomicOutputFile> file,
                             const std::vector<Field>& fields, WriterOptions options,
                             const Provenance& provenance, RowBatchLimits limits)
    : file_(std::move(file)),
      writer_(*file_, schema_elements(fields), with_provenance(std::move(options), provenance)),
      limits_(limits) {
  const std::vector<ColumnDescriptor>& leaves = writer_.schema().leaves();
  const std::vector<int> list_levels = empty_list_levels(writer_.schema());
  batches_.resize(leaves.size());
  for (size_t i = 0; i < leaves.size(); ++i) {
    const ColumnDescriptor& c = leaves[i];
    batches_[i].values = ValueBuffer::for_type(c.physical, c.type_length);
    ColumnBatch& b = batches_[i];
    std::unique_ptr<ColumnBuilder> builder;
    switch (c.physical) {
      case PhysicalType::INT32:
        builder = std::make_unique<Int32Builder>(c, list_levels[i], b, batch_bytes_);
        break;
      case PhysicalType::INT64:
        builder = std::make_unique<Int64Builder>(c, list_levels[i], b, batch_bytes_);
        break;
      case PhysicalType::DOUBLE:
        builder = std::make_unique<DoubleBuilder>(c, list_levels[i], b, batch_bytes_);
        break;
      case PhysicalType::BOOLEAN:
        builder = std::make_unique<BoolBuilder>(c, list_levels[i], b, batch_bytes_);
        break;
      default:
        builder = std::make_unique<BytesBuilder>(c, list_levels[i], b, batch_bytes_);
        break;
    }
    builders_.push_back(std::move(builder));
  }
}

RowFileWriter::~RowFileWriter() = default;

ColumnBuilder& RowFileWriter::builder(size_t leaf, PhysicalType physical, const char* expected) {
  ColumnBuilder& b = column(leaf);
  if (b.column().physical != physical) {
    b.fail(std::string("its values are ") + to_string(b.column().physical) + ", not " + expected);
  }
  return b;
}

ColumnBuilder& RowFileWriter::column(size_t leaf) {
  if (leaf >= builders_.size()) {
    throw UsageError("no leaf column " + std::to_string(leaf) + " (the schema has " +
                     std::to_string(builders_.size()) + ")");
  }
  return *builders_[leaf];
}

template <typename T>
TypedColumnBuilder<T>& RowFileWriter::column(size_t leaf) {
  return static_cast<TypedColumnBuilder<T>&>(builder(leaf, physical_of<T>(), value_type_name<T>()));
}

template <typename T>
TypedColumnBuilder<T>& RowFileWriter::column(const std::string& dotted_path) {
  std::optional<int> leaf = writer_.schema().find_leaf(dotted_path);
  if (!leaf) throw UsageError("no column " + dotted_path);
  return column<T>(static_cast<size_t>(*leaf));
}

template Int32Builder& RowFileWriter::column<int32_t>(size_t);
template Int64Builder& RowFileWriter::column<int64_t>(size_t);
template DoubleBuilder& RowFileWriter::column<double>(size_t);
template BoolBuilder& RowFileWriter::column<bool>(size_t);
template BytesBuilder& RowFileWriter::column<std::string_view>(size_t);
template Int32Builder& RowFileWriter::column<int32_t>(const std::string&);
template Int64Builder& RowFileWriter::column<int64_t>(const std::string&);
template DoubleBuilder& RowFileWriter::column<double>(const std::string&);
template BoolBuilder& RowFileWriter::column<bool>(const std::string&);
template BytesBuilder& RowFileWriter::column<std::string_view>(const std::string&);

void RowFileWriter::end_rows(size_t count) {
  if (closed_) throw UsageError("rows written after close()");
  batch_rows_ += count;
  rows_ += static_cast<int64_t>(count);
  if (batch_rows_ >= limits_.rows || batch_bytes_ >= limits_.bytes) flush();
}

void RowFileWriter::flush() {
  for (const auto& b : builders_) {
    if (b->in_list_) b->fail("a list begun and not ended");
    if (b->records_ != batch_rows_) {
      b->fail(std::to_string(b->records_) + " entries for " + std::to_string(batch_rows_) +
              " rows (a row must give every leaf exactly one)");
    }
  }
  if (batch_rows_ > 0) writer_.write(batches_);
  for (ColumnBatch& b : batches_) b.clear();
  for (const auto& b : builders_) b->records_ = 0;
  batch_rows_ = 0;
  batch_bytes_ = 0;
}

void RowFileWriter::close() {
  if (closed_) return;
  flush();
  writer_.close();
  closed_ = true;
}

void RowFileWriter::sync() {
  if (!closed_) close();
  file_->sync();
}

void RowFileWriter::commit() {
  if (!closed_) close();
  file_->commit();
}

}  // namespace kbdata::parquet
