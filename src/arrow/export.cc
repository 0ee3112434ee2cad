#include "arrow/export.h"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace kbdata::arrow {
namespace {

using result::ColumnType;

const char* format_of(ColumnType type, StringLayout strings) {
  switch (type) {
    case ColumnType::INT64:
      return "l";
    case ColumnType::SCORE:
    case ColumnType::FACTOR:
    case ColumnType::DOUBLE:
      return "g";
    case ColumnType::BOOL:
      return "b";
    case ColumnType::STRING:
    case ColumnType::JSON:
      return strings == StringLayout::STRING ? "u" : "U";
    case ColumnType::TIMESTAMP:
      return "tsu:UTC";
  }
  return "U";
}

// What a value of the type means, for the field's kbdata.type.
const char* meaning_of(ColumnType type) {
  switch (type) {
    case ColumnType::INT64:
      return "int64";
    case ColumnType::SCORE:
      return "score";
    case ColumnType::FACTOR:
      return "factor";
    case ColumnType::DOUBLE:
      return "double";
    case ColumnType::BOOL:
      return "bool";
    case ColumnType::STRING:
      return "string";
    case ColumnType::TIMESTAMP:
      return "timestamp";
    case ColumnType::JSON:
      return "json";
  }
  return "string";
}

void append_int32(std::string& out, int32_t v) {
  char bytes[sizeof v];
  std::memcpy(bytes, &v, sizeof v);  // native byte order, as the specification says
  out.append(bytes, sizeof v);
}

// Key-value pairs in the interface's binary form: an int32 count, then each key and value as an
// int32 length and its bytes. Empty for no pairs (the field's metadata is then NULL).
std::string metadata_of(const std::vector<std::pair<std::string, std::string>>& pairs) {
  std::string out;
  if (pairs.empty()) return out;
  append_int32(out, static_cast<int32_t>(pairs.size()));
  for (const auto& [key, value] : pairs) {
    append_int32(out, static_cast<int32_t>(key.size()));
    out += key;
    append_int32(out, static_cast<int32_t>(value.size()));
    out += value;
  }
  return out;
}

// ---- Ownership, the same for schemas and arrays ----

// A child structure (ArrowSchema or ArrowArray) owned by its parent's private data. Its release
// callback is called by the parent's release; the destructor releases it only when the parent
// was never completed (an allocation failed half-way) and no consumer moved it away.
template <typename Structure>
struct Child {
  Structure structure{};
  Child() = default;
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child() {
    if (structure.release != nullptr) structure.release(&structure);
  }
};

// The release callback of a structure whose private data is a Private: its children first (a
// child moved away by the consumer is already marked released), then what it owns; then it is
// marked released.
template <typename Structure, typename Private>
void release_structure(Structure* s) {
  for (int64_t i = 0; i < s->n_children; ++i) {
    Structure* child = s->children[i];
    if (child->release != nullptr) child->release(child);
  }
  std::unique_ptr<Private> owned(static_cast<Private*>(s->private_data));
  owned.reset();
  s->private_data = nullptr;
  s->release = nullptr;
}

// ---- Schemas ----

using ChildSchema = Child<ArrowSchema>;

struct SchemaPrivate {
  std::string format;
  std::string name;
  std::string metadata;
  std::vector<std::unique_ptr<ChildSchema>> children;
  std::vector<ArrowSchema*> child_pointers;
};

void fill_schema(ArrowSchema* out, std::string format, std::string name, std::string metadata,
                 std::vector<std::unique_ptr<ChildSchema>> children) {
  auto data = std::make_unique<SchemaPrivate>();
  data->format = std::move(format);
  data->name = std::move(name);
  data->metadata = std::move(metadata);
  data->children = std::move(children);
  for (const auto& child : data->children) data->child_pointers.push_back(&child->structure);
  out->format = data->format.c_str();
  out->name = data->name.c_str();
  out->metadata = data->metadata.empty() ? nullptr : data->metadata.data();
  out->flags = ARROW_FLAG_NULLABLE;
  out->n_children = static_cast<int64_t>(data->child_pointers.size());
  out->children = data->child_pointers.empty() ? nullptr : data->child_pointers.data();
  out->dictionary = nullptr;
  out->private_data = data.release();
  out->release = release_structure<ArrowSchema, SchemaPrivate>;
}

void fill_field(ArrowSchema* out, const result::Column& column, StringLayout strings) {
  std::string metadata = metadata_of({{"kbdata.type", meaning_of(column.type)}});
  if (!column.list) {
    fill_schema(out, format_of(column.type, strings), column.name, std::move(metadata), {});
    return;
  }
  std::vector<std::unique_ptr<ChildSchema>> item;
  item.push_back(std::make_unique<ChildSchema>());
  fill_schema(&item.back()->structure, format_of(column.type, strings), "item", {}, {});
  fill_schema(out, "+L", column.name, std::move(metadata), std::move(item));
}

// ---- Arrays ----

using ChildArray = Child<ArrowArray>;

struct ArrayPrivate {
  // The batch whose buffers the array points into, kept alive until the array is released.
  std::shared_ptr<const result::Batch> batch;
  std::vector<int32_t> offsets32;  // a string column's offsets as StringLayout::STRING has them
  std::vector<const void*> buffers;
  std::vector<std::unique_ptr<ChildArray>> children;
  std::vector<ArrowArray*> child_pointers;
};

void fill_array(ArrowArray* out, int64_t length, int64_t null_count,
                std::unique_ptr<ArrayPrivate> data) {
  for (const auto& child : data->children) data->child_pointers.push_back(&child->structure);
  out->length = length;
  out->null_count = null_count;
  out->offset = 0;
  out->n_buffers = static_cast<int64_t>(data->buffers.size());
  out->n_children = static_cast<int64_t>(data->child_pointers.size());
  out->buffers = data->buffers.data();
  out->children = data->child_pointers.empty() ? nullptr : data->child_pointers.data();
  out->dictionary = nullptr;
  out->private_data = data.release();
  out->release = release_structure<ArrowArray, ArrayPrivate>;
}

// The validity bitmap's buffer: none when nothing is null (the interface allows NULL then).
const void* validity_buffer(const std::vector<uint8_t>& bitmap, int64_t null_count) {
  return null_count == 0 ? nullptr : bitmap.data();
}

void fill_values(ArrowArray* out, const result::Values& values,
                 const std::shared_ptr<const result::Batch>& batch, StringLayout strings) {
  auto data = std::make_unique<ArrayPrivate>();
  data->batch = batch;
  data->buffers.push_back(validity_buffer(values.validity(), values.null_count()));
  switch (values.type()) {
    case ColumnType::INT64:
    case ColumnType::TIMESTAMP:
      data->buffers.push_back(values.ints().data());
      break;
    case ColumnType::SCORE:
    case ColumnType::FACTOR:
    case ColumnType::DOUBLE:
      data->buffers.push_back(values.doubles().data());
      break;
    case ColumnType::BOOL:
      data->buffers.push_back(values.bits().data());
      break;
    case ColumnType::STRING:
    case ColumnType::JSON:
      if (strings == StringLayout::STRING) {
        // int32 offsets, copied: the batch's own are int64.
        if (values.bytes().size() > static_cast<size_t>(INT32_MAX)) {
          throw std::length_error(
              "a batch holds " + std::to_string(values.bytes().size()) +
              " bytes of text, more than Arrow's string (int32 offsets) can address; ask for "
              "large_string");
        }
        data->offsets32.assign(values.offsets().begin(), values.offsets().end());
        data->buffers.push_back(data->offsets32.data());
      } else {
        data->buffers.push_back(values.offsets().data());
      }
      data->buffers.push_back(values.bytes().data());
      break;
  }
  fill_array(out, values.size(), values.null_count(), std::move(data));
}

void fill_column(ArrowArray* out, const result::ColumnData& column,
                 const std::shared_ptr<const result::Batch>& batch, StringLayout strings) {
  if (!column.list()) {
    fill_values(out, column.values(), batch, strings);
    return;
  }
  auto data = std::make_unique<ArrayPrivate>();
  data->batch = batch;
  data->buffers.push_back(validity_buffer(column.list_validity(), column.null_count()));
  data->buffers.push_back(column.list_offsets().data());
  data->children.push_back(std::make_unique<ChildArray>());
  fill_values(&data->children.back()->structure, column.values(), batch, strings);
  fill_array(out, column.rows(), column.null_count(), std::move(data));
}

void fill_batch(ArrowArray* out, const std::shared_ptr<const result::Batch>& batch,
                StringLayout strings) {
  auto data = std::make_unique<ArrayPrivate>();
  data->batch = batch;
  data->buffers.push_back(nullptr);  // a record batch: no row is null
  for (const result::ColumnData& column : batch->columns) {
    data->children.push_back(std::make_unique<ChildArray>());
    fill_column(&data->children.back()->structure, column, batch, strings);
  }
  fill_array(out, batch->rows, 0, std::move(data));
}

// ---- The stream ----

// The batches of a table already made.
class TableBatches : public BatchSource {
 public:
  explicit TableBatches(std::vector<std::shared_ptr<const result::Batch>> batches)
      : batches_(std::move(batches)) {}
  std::shared_ptr<const result::Batch> next() override {
    return next_ == batches_.size() ? nullptr : batches_[next_++];
  }

 private:
  std::vector<std::shared_ptr<const result::Batch>> batches_;
  size_t next_ = 0;
};

struct StreamPrivate {
  std::vector<result::Column> columns;
  std::string rule;
  StringLayout strings = StringLayout::LARGE_STRING;
  std::unique_ptr<BatchSource> source;
  std::string last_error;
};

StreamPrivate& stream_data(ArrowArrayStream* stream) {
  return *static_cast<StreamPrivate*>(stream->private_data);
}

// Runs `fill`; an exception (none may cross the C interface) becomes an errno value and the
// stream's last error.
template <typename Fill>
int guarded(ArrowArrayStream* stream, Fill fill) {
  StreamPrivate& data = stream_data(stream);
  try {
    fill(data);
    data.last_error.clear();
    return 0;
  } catch (const std::bad_alloc&) {
    data.last_error = "kbdata: out of memory exporting a result table to Arrow";
    return ENOMEM;
  } catch (const std::exception& e) {
    data.last_error = std::string("kbdata: ") + e.what();
    return EIO;
  }
}

int stream_get_schema(ArrowArrayStream* stream, ArrowSchema* out) {
  return guarded(stream, [&](StreamPrivate& data) {
    export_schema(data.columns, data.rule, out, data.strings);
  });
}

int stream_get_next(ArrowArrayStream* stream, ArrowArray* out) {
  return guarded(stream, [&](StreamPrivate& data) {
    const std::shared_ptr<const result::Batch> batch = data.source->next();
    if (batch == nullptr) {
      *out = ArrowArray{};  // the end: a released array
      return;
    }
    fill_batch(out, batch, data.strings);
  });
}

const char* stream_get_last_error(ArrowArrayStream* stream) {
  const std::string& error = stream_data(stream).last_error;
  return error.empty() ? nullptr : error.c_str();
}

void stream_release(ArrowArrayStream* stream) {
  std::unique_ptr<StreamPrivate> owned(static_cast<StreamPrivate*>(stream->private_data));
  owned.reset();
  stream->private_data = nullptr;
  stream->release = nullptr;
}

}  // namespace

void export_schema(const std::vector<result::Column>& columns, const std::string& rule,
                   ArrowSchema* out, StringLayout strings) {
  std::vector<std::unique_ptr<ChildSchema>> fields;
  for (const result::Column& column : columns) {
    fields.push_back(std::make_unique<ChildSchema>());
    fill_field(&fields.back()->structure, column, strings);
  }
  std::string metadata = rule.empty() ? std::string{} : metadata_of({{"kbdata.rule", rule}});
  fill_schema(out, "+s", "", std::move(metadata), std::move(fields));
  out->flags = 0;  // the record batch itself is never null
}

void export_stream(result::ResultTable& table, ArrowArrayStream* out, StringLayout strings) {
  export_stream(table.columns(), table.rule(), std::make_unique<TableBatches>(table.batches()), out,
                strings);
}

void export_stream(std::vector<result::Column> columns, std::string rule,
                   std::unique_ptr<BatchSource> source, ArrowArrayStream* out,
                   StringLayout strings) {
  auto data = std::make_unique<StreamPrivate>();
  data->columns = std::move(columns);
  data->rule = std::move(rule);
  data->strings = strings;
  data->source = std::move(source);
  out->get_schema = stream_get_schema;
  out->get_next = stream_get_next;
  out->get_last_error = stream_get_last_error;
  out->private_data = data.release();
  out->release = stream_release;
}

}  // namespace kbdata::arrow
