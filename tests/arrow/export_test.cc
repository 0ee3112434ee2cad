// arrow::export_stream read by a reader written here from the Arrow specification (the C data
// interface, the C stream interface and the columnar format's layouts): formats, buffers,
// offsets, validity bitmaps, null counts, and every release called exactly once.
#include "arrow/export.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tests/arrow/release_counter.h"

namespace kbdata::arrow {
namespace {

using result::Cell;
using result::Column;
using result::ColumnType;
using result::List;
using result::ResultTable;
using result::Value;

// ---- The reader, from the specification ----

bool bit_set(const void* bitmap, int64_t i) {
  return (static_cast<const uint8_t*>(bitmap)[i / 8] >> (i % 8)) & 1;
}

// The metadata's key-value pairs (int32 count, then int32-length-prefixed keys and values).
std::map<std::string, std::string> read_metadata(const char* metadata) {
  std::map<std::string, std::string> out;
  if (metadata == nullptr) return out;
  auto int32_at = [&](size_t& at) {
    int32_t v;
    std::memcpy(&v, metadata + at, sizeof v);
    at += sizeof v;
    return v;
  };
  size_t at = 0;
  const int32_t n = int32_at(at);
  for (int32_t i = 0; i < n; ++i) {
    const int32_t key_size = int32_at(at);
    std::string key(metadata + at, static_cast<size_t>(key_size));
    at += static_cast<size_t>(key_size);
    const int32_t value_size = int32_at(at);
    out[key] = std::string(metadata + at, static_cast<size_t>(value_size));
    at += static_cast<size_t>(value_size);
  }
  return out;
}

// Checks what every array must satisfy and returns its validity bitmap (nullptr: none null).
const void* check_array(const ArrowArray& a, int64_t n_buffers, int64_t n_children) {
  EXPECT_NE(a.release, nullptr);
  EXPECT_EQ(a.offset, 0);
  EXPECT_EQ(a.n_buffers, n_buffers);
  EXPECT_EQ(a.n_children, n_children);
  EXPECT_EQ(a.dictionary, nullptr);
  EXPECT_GE(a.length, 0);
  const void* validity = a.buffers[0];
  int64_t nulls = 0;
  if (validity == nullptr) {
    EXPECT_EQ(a.null_count, 0) << "no validity bitmap, so no null";
  } else {
    for (int64_t i = 0; i < a.length; ++i) nulls += bit_set(validity, i) ? 0 : 1;
    EXPECT_EQ(a.null_count, nulls) << "the null count is the bitmap's";
  }
  return validity;
}

// The values of a primitive or large_string array, by its format.
std::vector<Value> read_values(const ArrowSchema& s, const ArrowArray& a) {
  const std::string format = s.format;
  std::vector<Value> out;
  EXPECT_EQ(s.n_children, 0);
  if (format == "U") {
    const void* validity = check_array(a, 3, 0);
    const auto* offsets = static_cast<const int64_t*>(a.buffers[1]);
    const auto* bytes = static_cast<const char*>(a.buffers[2]);
    EXPECT_NE(offsets, nullptr) << "offsets are never NULL (length + 1 of them)";
    EXPECT_EQ(offsets[0], 0);
    for (int64_t i = 0; i < a.length; ++i) {
      EXPECT_LE(offsets[i], offsets[i + 1]) << "offsets never decrease";
      if (validity != nullptr && !bit_set(validity, i)) {
        out.emplace_back();
      } else {
        out.emplace_back(std::string(bytes + offsets[i], bytes + offsets[i + 1]));
      }
    }
    return out;
  }
  const void* validity = check_array(a, 2, 0);
  for (int64_t i = 0; i < a.length; ++i) {
    if (validity != nullptr && !bit_set(validity, i)) {
      out.emplace_back();
    } else if (format == "l" || format == "tsu:UTC") {
      out.emplace_back(static_cast<const int64_t*>(a.buffers[1])[i]);
    } else if (format == "g") {
      out.emplace_back(static_cast<const double*>(a.buffers[1])[i]);
    } else if (format == "b") {
      out.emplace_back(bit_set(a.buffers[1], i));
    } else {
      ADD_FAILURE() << "format " << format;
    }
  }
  return out;
}

std::string expected_format(ColumnType type) {
  switch (type) {
    case ColumnType::INT64:
      return "l";
    case ColumnType::SCORE:
    case ColumnType::FACTOR:
    case ColumnType::DOUBLE:
      return "g";
    case ColumnType::BOOL:
      return "b";
    case ColumnType::TIMESTAMP:
      return "tsu:UTC";
    case ColumnType::STRING:
    case ColumnType::JSON:
      return "U";
  }
  return "?";
}

// One column's cells, read from its field and array.
std::vector<Cell> read_column(const ArrowSchema& s, const ArrowArray& a, const Column& column) {
  EXPECT_EQ(std::string(s.name), column.name);
  EXPECT_EQ(s.flags, ARROW_FLAG_NULLABLE);
  EXPECT_EQ(s.dictionary, nullptr);
  std::vector<Cell> out;
  if (!column.list) {
    EXPECT_EQ(std::string(s.format), expected_format(column.type));
    for (Value& v : read_values(s, a)) {
      std::visit([&](auto&& x) { out.emplace_back(std::move(x)); }, v);
    }
    return out;
  }
  EXPECT_EQ(std::string(s.format), "+L");
  EXPECT_EQ(s.n_children, 1);
  EXPECT_EQ(std::string(s.children[0]->format), expected_format(column.type));
  const void* validity = check_array(a, 2, 1);
  const auto* offsets = static_cast<const int64_t*>(a.buffers[1]);
  EXPECT_NE(offsets, nullptr);
  EXPECT_EQ(offsets[0], 0);
  const std::vector<Value> items = read_values(*s.children[0], *a.children[0]);
  EXPECT_EQ(offsets[a.length], static_cast<int64_t>(items.size()))
      << "the last offset is the items' length";
  for (int64_t i = 0; i < a.length; ++i) {
    EXPECT_LE(offsets[i], offsets[i + 1]);
    if (validity != nullptr && !bit_set(validity, i)) {
      out.emplace_back();
    } else {
      out.emplace_back(List(items.begin() + offsets[i], items.begin() + offsets[i + 1]));
    }
  }
  return out;
}

// ---- The table ----

const std::vector<Column> kColumns = {
    {"id", ColumnType::INT64},
    {"name", ColumnType::STRING},
    {"score", ColumnType::SCORE},
    {"speedup", ColumnType::FACTOR},
    {"sigma", ColumnType::DOUBLE},
    {"passed", ColumnType::BOOL},
    {"at", ColumnType::TIMESTAMP},
    {"extra", ColumnType::JSON},
    {"tags", ColumnType::STRING, false, true},
    {"scores", ColumnType::SCORE, false, true},
    {"times", ColumnType::TIMESTAMP, false, true},
    {"flags", ColumnType::BOOL, false, true},
    {"ranks", ColumnType::INT64, false, true},
};

std::vector<Cell> row(int64_t i) {
  const bool null = i % 5 == 3;
  auto maybe = [&](Cell c) { return null ? Cell{} : c; };
  List tags;
  for (int64_t k = 0; k < i % 3; ++k) tags.push_back("t" + std::to_string(k));
  if (i % 4 == 1) tags.push_back(Value{});
  return {i,
          maybe("user " + std::string(static_cast<size_t>(i), 'x')),
          maybe(1e-6 * static_cast<double>(i + 1)),
          maybe(1.5 * static_cast<double>(i)),
          maybe(0.25),
          maybe(i % 2 == 0),
          maybe(int64_t{1'760'000'000'000'000} + i),
          maybe(std::string("{\"k\":") + std::to_string(i) + "}"),
          maybe(tags),
          maybe(List{1e-5, Value{}, 2e-5}),
          maybe(List{int64_t{1'760'000'000'000'000}}),
          maybe(List{true, false, Value{}, true, true, false, true, true, false}),
          i % 2 == 0 ? Cell{List{}} : Cell{List{int64_t{1}, int64_t{2}}}};
}

std::unique_ptr<ResultTable> table_of(int64_t rows, int64_t batch_rows) {
  auto table = std::make_unique<ResultTable>(kColumns, "test rows", batch_rows);
  for (int64_t i = 0; i < rows; ++i) table->add_row(row(i));
  return table;
}

// Reads the whole stream with the reader above, checking the schema and each batch against
// `rows` of row(); returns the batches' lengths.
std::vector<int64_t> read_stream(ArrowArrayStream& stream, testing::ReleaseCounter& counter,
                                 int64_t rows) {
  ArrowSchema schema{};
  EXPECT_EQ(stream.get_schema(&stream, &schema), 0);
  counter.watch(&schema);
  EXPECT_EQ(std::string(schema.format), "+s");
  EXPECT_EQ(schema.flags, 0);
  EXPECT_EQ(read_metadata(schema.metadata),
            (std::map<std::string, std::string>{{"kbdata.rule", "test rows"}}));
  EXPECT_EQ(schema.n_children, static_cast<int64_t>(kColumns.size()));
  EXPECT_EQ(read_metadata(schema.children[2]->metadata).at("kbdata.type"), "score");
  EXPECT_EQ(read_metadata(schema.children[3]->metadata).at("kbdata.type"), "factor");
  EXPECT_EQ(read_metadata(schema.children[7]->metadata).at("kbdata.type"), "json");
  std::vector<int64_t> lengths;
  int64_t next_row = 0;
  for (;;) {
    ArrowArray array{};
    EXPECT_EQ(stream.get_next(&stream, &array), 0);
    EXPECT_EQ(stream.get_last_error(&stream), nullptr);
    if (array.release == nullptr) break;  // the end
    counter.watch(&array);
    check_array(array, 1, static_cast<int64_t>(kColumns.size()));
    EXPECT_EQ(array.null_count, 0);
    lengths.push_back(array.length);
    for (size_t c = 0; c < kColumns.size(); ++c) {
      EXPECT_EQ(array.children[c]->length, array.length);
      const std::vector<Cell> cells =
          read_column(*schema.children[c], *array.children[c], kColumns[c]);
      for (int64_t r = 0; r < array.length; ++r) {
        EXPECT_EQ(cells[r], row(next_row + r)[c])
            << "row " << next_row + r << ", " << kColumns[c].name;
      }
    }
    next_row += array.length;
    array.release(&array);
    EXPECT_EQ(array.release, nullptr);
  }
  EXPECT_EQ(next_row, rows);
  schema.release(&schema);
  EXPECT_EQ(schema.release, nullptr);
  return lengths;
}

TEST(ArrowExport, EveryTypeEveryBatchAsTheSpecificationSays) {
  std::unique_ptr<ResultTable> table = table_of(11, 4);
  testing::ReleaseCounter counter;
  ArrowArrayStream stream{};
  export_stream(*table, &stream);
  EXPECT_EQ(read_stream(stream, counter, 11), (std::vector<int64_t>{4, 4, 3}));
  stream.release(&stream);
  EXPECT_EQ(stream.release, nullptr);
  // The schema (1 + 13 fields + 5 list items) and 3 batches of (1 + 13 columns + 5 list items).
  EXPECT_EQ(counter.watched(), 19u + 3u * 19u);
  EXPECT_EQ(counter.released_once(), counter.watched());
  EXPECT_TRUE(counter.problems().empty()) << counter.problems().front();
}

TEST(ArrowExport, BuffersAreTheTablesOwnNotCopies) {
  std::unique_ptr<ResultTable> table = table_of(5, 100);
  ArrowArrayStream stream{};
  export_stream(*table, &stream);
  ArrowArray array{};
  ASSERT_EQ(stream.get_next(&stream, &array), 0);
  const result::Batch& batch = *table->batches().at(0);
  EXPECT_EQ(array.children[1]->buffers[1], batch.columns[1].values().offsets().data());
  EXPECT_EQ(array.children[1]->buffers[2], batch.columns[1].values().bytes().data());
  EXPECT_EQ(array.children[0]->buffers[1], batch.columns[0].values().ints().data());
  EXPECT_EQ(array.children[8]->children[0]->buffers[2], batch.columns[8].values().bytes().data());
  array.release(&array);
  stream.release(&stream);
}

TEST(ArrowExport, EveryRequestIsAFreshStreamThatMayOutliveTheTable) {
  std::unique_ptr<ResultTable> table = table_of(9, 4);
  testing::ReleaseCounter counter;
  ArrowArrayStream first{};
  ArrowArrayStream second{};
  export_stream(*table, &first);
  export_stream(*table, &second);
  table.reset();  // the streams hold their batches
  EXPECT_EQ(read_stream(first, counter, 9), (std::vector<int64_t>{4, 4, 1}));
  EXPECT_EQ(read_stream(second, counter, 9), (std::vector<int64_t>{4, 4, 1}));
  first.release(&first);
  second.release(&second);
  EXPECT_EQ(counter.released_once(), counter.watched());
}

TEST(ArrowExport, AnArrayOutlivesItsStreamAndAMovedChildItsParent) {
  std::unique_ptr<ResultTable> table = table_of(6, 100);
  testing::ReleaseCounter counter;
  ArrowArrayStream stream{};
  export_stream(*table, &stream);
  ArrowArray array{};
  ASSERT_EQ(stream.get_next(&stream, &array), 0);
  counter.watch(&array);
  stream.release(&stream);
  table.reset();
  // Move the "name" column away, as the specification allows: a bitwise copy, the source marked
  // released, then the parent released at once.
  ArrowArray name = *array.children[1];
  array.children[1]->release = nullptr;
  array.release(&array);
  ASSERT_EQ(name.length, 6);
  const auto* offsets = static_cast<const int64_t*>(name.buffers[1]);
  const auto* bytes = static_cast<const char*>(name.buffers[2]);
  EXPECT_EQ(std::string(bytes + offsets[5], bytes + offsets[6]), "user xxxxx");
  name.release(&name);
  EXPECT_EQ(name.release, nullptr);
  EXPECT_EQ(counter.released_once(), counter.watched());
  EXPECT_TRUE(counter.problems().empty());
}

TEST(ArrowExport, AnEmptyTableHasItsSchemaAndNoBatch) {
  ResultTable table(kColumns, "");
  testing::ReleaseCounter counter;
  ArrowArrayStream stream{};
  export_stream(table, &stream);
  ArrowSchema schema{};
  ASSERT_EQ(stream.get_schema(&stream, &schema), 0);
  counter.watch(&schema);
  EXPECT_EQ(schema.metadata, nullptr) << "no rule, no metadata: NULL, never empty";
  EXPECT_EQ(schema.n_children, static_cast<int64_t>(kColumns.size()));
  ArrowArray array{};
  array.release = reinterpret_cast<void (*)(ArrowArray*)>(1);  // overwritten by the end
  ASSERT_EQ(stream.get_next(&stream, &array), 0);
  EXPECT_EQ(array.release, nullptr);
  schema.release(&schema);
  stream.release(&stream);
  EXPECT_EQ(counter.released_once(), counter.watched());
}

TEST(ArrowExport, ASchemaAlone) {
  testing::ReleaseCounter counter;
  ArrowSchema schema{};
  export_schema({{"when", ColumnType::TIMESTAMP, false, true}}, "r", &schema);
  counter.watch(&schema);
  ASSERT_EQ(schema.n_children, 1);
  EXPECT_EQ(std::string(schema.children[0]->format), "+L");
  EXPECT_EQ(std::string(schema.children[0]->children[0]->format), "tsu:UTC");
  EXPECT_EQ(std::string(schema.children[0]->children[0]->name), "item");
  schema.release(&schema);
  EXPECT_EQ(counter.watched(), 3u);
  EXPECT_EQ(counter.released_once(), 3u);
}

}  // namespace
}  // namespace kbdata::arrow
