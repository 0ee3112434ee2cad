// The writer, checked through the reader: what FileWriter writes reads back as the same levels and
// values, with the layout, page indexes, statistics and metadata docs/parquet.md promises.
#include "parquet/write/file_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/file.h"
#include "parquet/file_reader.h"
#include "parquet/write/copy_file.h"

namespace kbdata::parquet {
namespace {

// ---- Schemas ----

SchemaElement root(int children) {
  SchemaElement e;
  e.name = "schema";
  e.num_children = children;
  return e;
}

SchemaElement leaf(const std::string& name, PhysicalType type, Repetition repetition,
                   std::optional<LogicalType> logical = std::nullopt, int32_t length = 0) {
  SchemaElement e;
  e.name = name;
  e.type = type;
  e.repetition_type = repetition;
  e.logical_type = logical;
  if (type == PhysicalType::FIXED_LEN_BYTE_ARRAY) e.type_length = length;
  return e;
}

SchemaElement group(const std::string& name, Repetition repetition, int children,
                    std::optional<LogicalType::Kind> kind = std::nullopt) {
  SchemaElement e;
  e.name = name;
  e.repetition_type = repetition;
  e.num_children = children;
  if (kind) {
    LogicalType t;
    t.kind = *kind;
    e.logical_type = t;
  }
  return e;
}

LogicalType string_type() {
  LogicalType t;
  t.kind = LogicalType::Kind::STRING;
  return t;
}

// ---- Batches ----

template <typename T>
void put(ValueBuffer& buffer, T value) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(&value);
  buffer.data.insert(buffer.data.end(), bytes, bytes + sizeof(T));
  ++buffer.count;
}

void put_string(ValueBuffer& buffer, const std::string& s) {
  buffer.append_binary({reinterpret_cast<const uint8_t*>(s.data()), s.size()});
}

ColumnBatch batch_for(const ColumnDescriptor& column) {
  ColumnBatch b;
  b.values = ValueBuffer::for_type(column.physical, column.type_length);
  return b;
}

// A flat table of six columns and `rows` rows, every type family and nulls in the optional ones.
struct FlatTable {
  std::vector<SchemaElement> schema;
  std::vector<ColumnBatch> columns;
};

FlatTable flat_table(size_t rows, uint32_t seed = 1) {
  FlatTable t;
  t.schema = {
      root(6),
      leaf("id", PhysicalType::INT64, Repetition::REQUIRED),
      leaf("small", PhysicalType::INT32, Repetition::OPTIONAL),
      leaf("score", PhysicalType::DOUBLE, Repetition::OPTIONAL),
      leaf("name", PhysicalType::BYTE_ARRAY, Repetition::OPTIONAL, string_type()),
      leaf("passed", PhysicalType::BOOLEAN, Repetition::REQUIRED),
      leaf("hash", PhysicalType::FIXED_LEN_BYTE_ARRAY, Repetition::OPTIONAL, std::nullopt, 16)};
  Schema schema = Schema::from_elements(t.schema);
  for (const ColumnDescriptor& c : schema.leaves()) t.columns.push_back(batch_for(c));
  std::mt19937 rng(seed);
  for (size_t i = 0; i < rows; ++i) {
    ColumnBatch* c = t.columns.data();
    c[0].num_levels++;
    put<int64_t>(c[0].values, static_cast<int64_t>(i) * 1'000'003 - 5'000'000'000LL);

    bool small_null = rng() % 7 == 0;
    c[1].num_levels++;
    c[1].def_levels.push_back(small_null ? 0 : 1);
    if (!small_null) put<int32_t>(c[1].values, static_cast<int32_t>(rng() % 50) - 25);

    bool score_null = rng() % 5 == 0;
    c[2].num_levels++;
    c[2].def_levels.push_back(score_null ? 0 : 1);
    if (!score_null) put<double>(c[2].values, std::ldexp(static_cast<double>(rng() % 100000), -12));

    bool name_null = i % 11 == 3;
    c[3].num_levels++;
    c[3].def_levels.push_back(name_null ? 0 : 1);
    if (!name_null) {
      std::string s = "user-" + std::to_string(rng() % 300);
      if (i % 97 == 0) s.assign(300 + rng() % 2000, static_cast<char>('a' + i % 26));
      if (i % 101 == 0) s.clear();
      put_string(c[3].values, s);
    }

    c[4].num_levels++;
    put<uint8_t>(c[4].values, static_cast<uint8_t>(rng() % 3 == 0));

    bool hash_null = i % 13 == 0;
    c[5].num_levels++;
    c[5].def_levels.push_back(hash_null ? 0 : 1);
    if (!hash_null) {
      for (int k = 0; k < 16; ++k) c[5].values.data.push_back(static_cast<uint8_t>(rng()));
      c[5].values.count++;
    }
  }
  return t;
}

// A nested table: `tags` an optional 3-level list of optional strings, `run` an optional struct of
// a required int64 and a list of doubles.
FlatTable nested_table(size_t rows) {
  FlatTable t;
  t.schema = {root(2),
              group("tags", Repetition::OPTIONAL, 1, LogicalType::Kind::LIST),
              group("list", Repetition::REPEATED, 1),
              leaf("element", PhysicalType::BYTE_ARRAY, Repetition::OPTIONAL, string_type()),
              group("run", Repetition::OPTIONAL, 2),
              leaf("duration", PhysicalType::INT64, Repetition::REQUIRED),
              group("times", Repetition::OPTIONAL, 1, LogicalType::Kind::LIST),
              group("list", Repetition::REPEATED, 1),
              leaf("element", PhysicalType::DOUBLE, Repetition::REQUIRED)};
  Schema schema = Schema::from_elements(t.schema);
  for (const ColumnDescriptor& c : schema.leaves()) t.columns.push_back(batch_for(c));
  ColumnBatch& tags = t.columns[0];      // max_def 3, max_rep 1
  ColumnBatch& duration = t.columns[1];  // max_def 1
  ColumnBatch& times = t.columns[2];     // max_def 3, max_rep 1
  for (size_t i = 0; i < rows; ++i) {
    auto level = [](ColumnBatch& b, int16_t d, int16_t r) {
      b.def_levels.push_back(d);
      b.rep_levels.push_back(r);
      b.num_levels++;
    };
    switch (i % 5) {
      case 0:
        level(tags, 0, 0);
        break;  // null list
      case 1:
        level(tags, 1, 0);
        break;  // empty list
      default:
        for (size_t k = 0; k < i % 4 + 1; ++k) {
          bool null_element = (i + k) % 6 == 0;
          level(tags, null_element ? 2 : 3, k == 0 ? 0 : 1);
          if (!null_element) put_string(tags.values, "tag" + std::to_string((i * 7 + k) % 40));
        }
    }
    if (i % 9 == 4) {  // null struct
      duration.def_levels.push_back(0);
      duration.num_levels++;
      level(times, 0, 0);
    } else {
      duration.def_levels.push_back(1);
      duration.num_levels++;
      put<int64_t>(duration.values, static_cast<int64_t>(i * i));
      if (i % 3 == 0) {
        level(times, 1, 0);  // struct present, list null
      } else {
        for (size_t k = 0; k < i % 3; ++k) {
          level(times, 3, k == 0 ? 0 : 1);
          put<double>(times.values, static_cast<double>(i) + 0.25 * static_cast<double>(k));
        }
      }
    }
  }
  return t;
}

// ---- Writing and reading back ----

std::vector<uint8_t> write_table(const FlatTable& table, const WriterOptions& options,
                                 size_t batch_rows = 0) {
  MemorySink sink;
  FileWriter writer(sink, table.schema, options);
  if (batch_rows == 0) {
    writer.write(table.columns);
  } else {
    // Re-slice the columns into batches of batch_rows records.
    Schema schema = Schema::from_elements(table.schema);
    std::vector<size_t> level_at(table.columns.size(), 0);
    std::vector<size_t> value_at(table.columns.size(), 0);
    bool more = true;
    while (more) {
      std::vector<ColumnBatch> slices;
      more = false;
      for (size_t leaf = 0; leaf < table.columns.size(); ++leaf) {
        const ColumnDescriptor& c = schema.leaves()[leaf];
        const ColumnBatch& all = table.columns[leaf];
        ColumnBatch slice = batch_for(c);
        size_t records = 0;
        size_t& i = level_at[leaf];
        while (i < all.num_levels) {
          bool starts = c.max_rep == 0 || all.rep_levels[i] == 0;
          if (starts && records++ == batch_rows) break;
          if (c.max_def > 0) slice.def_levels.push_back(all.def_levels[i]);
          if (c.max_rep > 0) slice.rep_levels.push_back(all.rep_levels[i]);
          if (c.max_def == 0 || all.def_levels[i] == c.max_def) {
            auto bytes = all.values.bytes(value_at[leaf]++);
            if (all.values.is_binary()) {
              slice.values.append_binary(bytes);
            } else {
              slice.values.data.insert(slice.values.data.end(), bytes.begin(), bytes.end());
              slice.values.count++;
            }
          }
          slice.num_levels++;
          ++i;
        }
        more = more || i < all.num_levels;
        slices.push_back(std::move(slice));
      }
      writer.write(slices);
    }
  }
  writer.close();
  return sink.take();
}

std::unique_ptr<FileReader> open_bytes(std::vector<uint8_t> bytes, ReaderOptions options = {}) {
  return FileReader::open(std::make_unique<MemoryFile>("written.parquet", std::move(bytes)),
                          options);
}

// Every leaf's levels and values over the whole file, concatenated across row groups.
std::vector<ColumnBatch> read_table(FileReader& reader) {
  std::vector<ColumnBatch> out;
  for (const ColumnDescriptor& c : reader.schema().leaves()) out.push_back(batch_for(c));
  for (int g = 0; g < reader.num_row_groups(); ++g) {
    for (size_t leaf = 0; leaf < out.size(); ++leaf) {
      auto column = reader.column(g, static_cast<int>(leaf));
      ColumnBatch batch;
      while (column->read_batch(4096, batch) > 0) {
        ColumnBatch& all = out[leaf];
        all.num_levels += batch.num_levels;
        all.def_levels.insert(all.def_levels.end(), batch.def_levels.begin(),
                              batch.def_levels.end());
        all.rep_levels.insert(all.rep_levels.end(), batch.rep_levels.begin(),
                              batch.rep_levels.end());
        for (size_t i = 0; i < batch.values.count; ++i) {
          auto bytes = batch.values.bytes(i);
          if (all.values.is_binary()) {
            all.values.append_binary(bytes);
          } else {
            all.values.data.insert(all.values.data.end(), bytes.begin(), bytes.end());
            all.values.count++;
          }
        }
      }
    }
  }
  return out;
}

void expect_same(const std::vector<ColumnBatch>& expected, const std::vector<ColumnBatch>& actual,
                 const std::string& what) {
  ASSERT_EQ(expected.size(), actual.size()) << what;
  for (size_t leaf = 0; leaf < expected.size(); ++leaf) {
    const ColumnBatch& e = expected[leaf];
    const ColumnBatch& a = actual[leaf];
    ASSERT_EQ(e.num_levels, a.num_levels) << what << " leaf " << leaf;
    EXPECT_EQ(e.def_levels, a.def_levels) << what << " leaf " << leaf;
    EXPECT_EQ(e.rep_levels, a.rep_levels) << what << " leaf " << leaf;
    ASSERT_EQ(e.values.count, a.values.count) << what << " leaf " << leaf;
    EXPECT_EQ(e.values.data, a.values.data) << what << " leaf " << leaf;
    if (e.values.is_binary()) {
      EXPECT_EQ(e.values.offsets, a.values.offsets) << what;
    }
  }
}

// ---- Round trips ----

TEST(FileWriter, FlatRoundTripEveryCodecPageVersionAndEncoding) {
  FlatTable table = flat_table(5000);
  for (Codec codec : {Codec::UNCOMPRESSED, Codec::SNAPPY, Codec::GZIP, Codec::ZSTD, Codec::LZ4_RAW,
                      Codec::BROTLI}) {
    for (int version : {1, 2}) {
      for (ValueEncoding encoding :
           {ValueEncoding::AUTO, ValueEncoding::PLAIN, ValueEncoding::DELTA}) {
        WriterOptions options;
        options.codec = codec;
        options.page_version = version;
        options.encoding = encoding;
        options.page_bytes = 8 << 10;  // many pages
        std::string what = std::string(to_string(codec)) + " v" + std::to_string(version) +
                           " encoding " + std::to_string(static_cast<int>(encoding));
        auto reader = open_bytes(write_table(table, options));
        EXPECT_EQ(reader->num_rows(), 5000) << what;
        expect_same(table.columns, read_table(*reader), what);
      }
    }
  }
}

TEST(FileWriter, NestedRoundTripAcrossBatchesPagesAndRowGroups) {
  FlatTable table = nested_table(3000);
  for (int version : {1, 2}) {
    WriterOptions options;
    options.page_version = version;
    options.page_bytes = 2048;
    options.row_group_rows = 700;
    auto bytes = write_table(table, options, /*batch_rows=*/333);
    auto reader = open_bytes(bytes);
    EXPECT_EQ(reader->num_rows(), 3000);
    EXPECT_EQ(reader->num_row_groups(), 5);  // 700 * 4 + 200
    expect_same(table.columns, read_table(*reader), "v" + std::to_string(version));
    // Every page starts a record: the offset index's first rows are increasing record indexes,
    // and a page-skipping read of the last rows of each group gives the same records.
    for (int g = 0; g < reader->num_row_groups(); ++g) {
      for (int leaf : {0, 2}) {
        auto index = reader->offset_index(g, leaf);
        ASSERT_TRUE(index.has_value());
        if (g + 1 < reader->num_row_groups()) {
          ASSERT_GT(index->page_locations.size(), 1u);
        }
        EXPECT_EQ(index->page_locations[0].first_row_index, 0);
        for (size_t p = 1; p < index->page_locations.size(); ++p) {
          EXPECT_GT(index->page_locations[p].first_row_index,
                    index->page_locations[p - 1].first_row_index);
        }
      }
    }
  }
}

TEST(FileWriter, EmptyTableWritesAValidFile) {
  FlatTable table = flat_table(0);
  auto reader = open_bytes(write_table(table, WriterOptions{}));
  EXPECT_EQ(reader->num_rows(), 0);
  EXPECT_EQ(reader->num_row_groups(), 0);
  EXPECT_EQ(reader->schema().leaves().size(), 6u);
}

// ---- Layout ----

TEST(FileWriter, RowGroupsAreBoundedByRowsAndBytes) {
  FlatTable table = flat_table(10'000);
  WriterOptions by_rows;
  by_rows.row_group_rows = 3000;
  auto reader = open_bytes(write_table(table, by_rows, 1234));
  ASSERT_EQ(reader->num_row_groups(), 4);
  for (int g = 0; g < 3; ++g) EXPECT_EQ(reader->metadata().row_groups[g].num_rows, 3000);
  EXPECT_EQ(reader->metadata().row_groups[3].num_rows, 1000);

  WriterOptions by_bytes;
  by_bytes.row_group_bytes = 64 << 10;
  by_bytes.codec = Codec::UNCOMPRESSED;
  reader = open_bytes(write_table(table, by_bytes));
  EXPECT_GT(reader->num_row_groups(), 3);
  for (const RowGroup& g : reader->metadata().row_groups) {
    // Over the limit by at most about a page per column.
    EXPECT_LT(g.total_compressed_size.value_or(0), (64 << 10) + 6 * (1 << 20));
  }
  expect_same(table.columns, read_table(*reader), "by bytes");
}

TEST(FileWriter, PagesAreBoundedByBytesAndRows) {
  FlatTable table = flat_table(50'000);
  WriterOptions options;
  options.page_bytes = 16 << 10;
  options.page_rows = 5000;
  auto reader = open_bytes(write_table(table, options));
  for (size_t leaf = 0; leaf < 6; ++leaf) {
    auto index = reader->offset_index(0, static_cast<int>(leaf));
    ASSERT_TRUE(index.has_value());
    const auto& pages = index->page_locations;
    ASSERT_GE(pages.size(), 10u) << "leaf " << leaf;
    for (size_t p = 0; p + 1 < pages.size(); ++p) {
      int64_t rows = pages[p + 1].first_row_index - pages[p].first_row_index;
      EXPECT_LE(rows, 5000);
      EXPECT_LE(pages[p].compressed_page_size, (16 << 10) + 4096) << "leaf " << leaf;
    }
  }
}

TEST(FileWriter, EveryChunkHasAPageIndexMatchingItsPages) {
  FlatTable table = flat_table(20'000);
  WriterOptions options;
  options.page_bytes = 4096;
  options.row_group_rows = 8000;
  auto reader = open_bytes(write_table(table, options));
  Schema schema = Schema::from_elements(table.schema);
  for (int g = 0; g < reader->num_row_groups(); ++g) {
    for (int leaf = 0; leaf < 6; ++leaf) {
      const ColumnChunk& chunk = reader->metadata().row_groups[g].columns[leaf];
      ASSERT_TRUE(chunk.offset_index_offset.has_value());
      ASSERT_TRUE(chunk.column_index_offset.has_value());
      auto offsets = reader->offset_index(g, leaf);
      auto bounds = reader->column_index(g, leaf);
      ASSERT_TRUE(offsets && bounds);
      ASSERT_EQ(bounds->min_values.size(), offsets->page_locations.size());
      // Page bounds bracket the values of each page: check the id column exactly.
      if (leaf == 0) {
        for (size_t p = 0; p < offsets->page_locations.size(); ++p) {
          int64_t first = offsets->page_locations[p].first_row_index + 8000LL * g;
          int64_t min = 0;
          std::memcpy(&min, bounds->min_values[p].data(), 8);
          EXPECT_EQ(min, first * 1'000'003 - 5'000'000'000LL);
        }
        EXPECT_EQ(bounds->boundary_order, BoundaryOrder::ASCENDING);
      }
    }
  }
}

TEST(FileWriter, PageIndexCanBeLeftOut) {
  FlatTable table = flat_table(5000);
  WriterOptions options;
  options.page_index = false;
  options.page_bytes = 4096;
  options.row_group_rows = INT64_MAX;
  options.row_group_bytes = SIZE_MAX;
  auto reader = open_bytes(write_table(table, options, /*batch_rows=*/700));
  ASSERT_EQ(reader->num_row_groups(), 1);
  for (const ColumnChunk& chunk : reader->metadata().row_groups[0].columns) {
    EXPECT_FALSE(chunk.offset_index_offset.has_value());
    EXPECT_FALSE(chunk.column_index_offset.has_value());
  }
  EXPECT_FALSE(reader->offset_index(0, 0).has_value());
  expect_same(table.columns, read_table(*reader), "no page index");
}

TEST(FileWriter, FooterStatisticsAreExact) {
  FlatTable table = flat_table(3000);
  auto reader = open_bytes(write_table(table, WriterOptions{}));
  const ColumnMetaData& id = *reader->metadata().row_groups[0].columns[0].meta_data;
  ASSERT_TRUE(id.statistics && id.statistics->min_value && id.statistics->max_value);
  int64_t min = 0;
  int64_t max = 0;
  std::memcpy(&min, id.statistics->min_value->data(), 8);
  std::memcpy(&max, id.statistics->max_value->data(), 8);
  EXPECT_EQ(min, -5'000'000'000LL);
  EXPECT_EQ(max, 2999LL * 1'000'003 - 5'000'000'000LL);
  EXPECT_EQ(id.statistics->null_count, 0);
  EXPECT_EQ(id.statistics->is_min_value_exact, true);

  const ColumnMetaData& name = *reader->metadata().row_groups[0].columns[3].meta_data;
  size_t nulls = 0;
  for (int16_t d : table.columns[3].def_levels) nulls += d == 0 ? 1 : 0;
  EXPECT_EQ(name.statistics->null_count, static_cast<int64_t>(nulls));
  EXPECT_EQ(name.statistics->min_value, "");  // row 0 holds the empty string
}

TEST(FileWriter, DictionaryFallsBackToPlainPastItsLimit) {
  FlatTable table = flat_table(20'000);
  WriterOptions options;
  options.dictionary_page_bytes = 4096;
  auto reader = open_bytes(write_table(table, options));
  const ColumnMetaData& id = *reader->metadata().row_groups[0].columns[0].meta_data;
  // id is unique per row: the dictionary fills at once and the chunk falls back.
  EXPECT_TRUE(id.dictionary_page_offset.has_value());
  auto has = [](const ColumnMetaData& m, Encoding e) {
    return std::find(m.encodings.begin(), m.encodings.end(), e) != m.encodings.end();
  };
  EXPECT_TRUE(has(id, Encoding::RLE_DICTIONARY));
  EXPECT_TRUE(has(id, Encoding::PLAIN));
  // `small` has 50 distinct values: dictionary only.
  const ColumnMetaData& small = *reader->metadata().row_groups[0].columns[1].meta_data;
  for (const PageEncodingStats& s : small.encoding_stats) {
    if (s.page_type != PageType::DICTIONARY_PAGE) {
      EXPECT_EQ(s.encoding, Encoding::RLE_DICTIONARY);
    }
  }
  expect_same(table.columns, read_table(*reader), "fallback");
}

TEST(FileWriter, KeyValueMetadataCreatedByAndColumnOrders) {
  FlatTable table = flat_table(10);
  WriterOptions options;
  options.key_value_metadata = {{"kbdata.command", "kbdata convert a b"}, {"empty", std::nullopt}};
  options.created_by = "kbdata version test";
  auto reader = open_bytes(write_table(table, options));
  ASSERT_EQ(reader->metadata().key_value_metadata.size(), 2u);
  EXPECT_EQ(reader->metadata().key_value_metadata[0].value, "kbdata convert a b");
  EXPECT_EQ(reader->metadata().created_by, "kbdata version test");
  EXPECT_EQ(reader->metadata().column_orders.size(), 6u);
}

TEST(FileWriter, ChecksumsAreWrittenAndVerified) {
  FlatTable table = flat_table(2000);
  WriterOptions options;
  options.page_checksums = true;
  std::vector<uint8_t> bytes = write_table(table, options);
  ReaderOptions verify;
  verify.verify_checksums = true;
  expect_same(table.columns, read_table(*open_bytes(bytes, verify)), "crc");

  // Flip a byte inside the first data page body of column 0: verification must fail.
  auto reader = open_bytes(bytes);
  auto index = reader->offset_index(0, 0);
  ASSERT_TRUE(index.has_value());
  const PageLocation& page = index->page_locations[0];
  bytes[static_cast<size_t>(page.offset + page.compressed_page_size - 1)] ^= 0x55;
  auto corrupt = open_bytes(bytes, verify);
  EXPECT_THROW(read_table(*corrupt), FormatError);
}

TEST(FileWriter, MismatchedBatchesAreRefusedBeforeAnythingIsWritten) {
  FlatTable table = flat_table(10);
  MemorySink sink;
  FileWriter writer(sink, table.schema, WriterOptions{});
  std::vector<ColumnBatch> bad = table.columns;
  bad[2].def_levels.pop_back();
  EXPECT_THROW(writer.write(bad), UsageError);
  bad = table.columns;
  bad[1].num_levels--;
  bad[1].def_levels.pop_back();
  EXPECT_THROW(writer.write(bad), UsageError);  // 9 records against 10
  bad = table.columns;
  bad[1].def_levels[0] = 2;  // beyond max_def
  EXPECT_THROW(writer.write(bad), UsageError);
  bad = table.columns;
  bad.pop_back();
  EXPECT_THROW(writer.write(bad), UsageError);
  EXPECT_TRUE(sink.bytes().empty());
  writer.write(table.columns);  // the writer is still usable
  writer.close();
  EXPECT_EQ(open_bytes(sink.take())->num_rows(), 10);
}

TEST(FileWriter, StreamsRowGroupsBeforeClose) {
  FlatTable table = flat_table(10'000);
  MemorySink sink;
  WriterOptions options;
  options.row_group_rows = 1000;
  FileWriter writer(sink, table.schema, options);
  writer.write(table.columns);
  // Nine full row groups are in the sink already; the writer holds at most the tenth.
  EXPECT_GT(sink.bytes().size(), writer.bytes_written() / 2);
  EXPECT_EQ(sink.bytes().size(), writer.bytes_written());
  writer.close();
  EXPECT_EQ(open_bytes(sink.take())->num_row_groups(), 10);
}

TEST(FileWriter, InvalidOptionsAreUsageErrors) {
  FlatTable table = flat_table(1);
  MemorySink sink;
  WriterOptions options;
  options.page_version = 3;
  EXPECT_THROW(FileWriter(sink, table.schema, options), UsageError);
  options = WriterOptions{};
  options.codec = Codec::ZSTD;
  options.level = 99;
  EXPECT_THROW(FileWriter(sink, table.schema, options), UsageError);
  std::vector<SchemaElement> broken = table.schema;
  broken[0].num_children = 9;
  EXPECT_THROW(FileWriter(sink, broken, WriterOptions{}), UsageError);
}

// ---- copy_file ----

TEST(CopyFile, CopiesAFileWrittenWithOtherOptions) {
  FlatTable table = nested_table(2500);
  WriterOptions first;
  first.codec = Codec::GZIP;
  first.row_group_rows = 600;
  auto source = open_bytes(write_table(table, first));
  MemorySink sink;
  WriterOptions second;
  second.codec = Codec::ZSTD;
  second.page_version = 2;
  FileWriter writer(sink, source->metadata().schema, second);
  int64_t last_progress = 0;
  copy_file(*source, writer, [&](int64_t done, int64_t total) {
    EXPECT_EQ(total, 2500);
    EXPECT_GT(done, last_progress);
    last_progress = done;
  });
  writer.close();
  EXPECT_EQ(last_progress, 2500);
  auto copy = open_bytes(sink.take());
  EXPECT_EQ(copy->num_row_groups(), 1);
  expect_same(table.columns, read_table(*copy), "copy");
}

}  // namespace
}  // namespace kbdata::parquet
