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
#include "support/tables.h"

namespace kbdata::parquet {
namespace {

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

TEST(FileWriter, TheSameBytesWhateverTheCompressingThreads) {
  // Pages compressed on a pool come out in order and cut the row groups where the calling
  // thread's would: row groups bounded by compressed bytes, many pages, every codec that
  // compresses, both page versions, flat and nested.
  const FlatTable flat = flat_table(6000);
  const FlatTable nested = nested_table(3000);
  for (Codec codec : {Codec::SNAPPY, Codec::GZIP, Codec::ZSTD, Codec::LZ4_RAW, Codec::BROTLI}) {
    for (int version : {1, 2}) {
      for (const FlatTable* table : {&flat, &nested}) {
        WriterOptions options;
        options.codec = codec;
        options.page_version = version;
        options.page_bytes = 4 << 10;
        options.row_group_bytes = 48 << 10;
        options.page_checksums = true;
        const std::string what = std::string(to_string(codec)) + " v" + std::to_string(version) +
                                 (table == &nested ? " nested" : " flat");
        options.threads = 1;
        const std::vector<uint8_t> one = write_table(*table, options, 777);
        for (int threads : {2, 4}) {
          options.threads = threads;
          EXPECT_EQ(write_table(*table, options, 777), one) << what << ", " << threads;
        }
        auto reader = open_bytes(one);
        EXPECT_GT(reader->num_row_groups(), 1) << what;
        expect_same(table->columns, read_table(*reader), what);
      }
    }
  }
}

// A sink that fails once it holds more than `limit` bytes, as a full disk does.
class FullSink final : public OutputSink {
 public:
  explicit FullSink(size_t limit) : limit_(limit) {}
  void write(std::span<const uint8_t> bytes) override {
    if (written_ + bytes.size() > limit_) throw IoError("no space left on device");
    written_ += bytes.size();
  }

 private:
  size_t limit_;
  size_t written_ = 0;
};

TEST(FileWriter, AnErrorOfTheSinkIsThrownWhateverTheThreads) {
  // With a pool, the bytes are written by the writer's own thread: its error reaches a later
  // write() or close(), never lost.
  const FlatTable table = flat_table(20'000);
  for (int threads : {1, 2, 4}) {
    WriterOptions options;
    options.threads = threads;
    options.row_group_rows = 1000;
    FullSink sink(100 << 10);
    EXPECT_THROW(
        {
          FileWriter writer(sink, table.schema, options);
          writer.write(table.columns);
          writer.close();
        },
        IoError)
        << threads;
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

TEST(FileWriter, RowGroupsAreBoundedByCompressedBytesCountedWithoutWaiting) {
  // The cut counts a page at its compressed size once two more write() calls have begun (before,
  // at its uncompressed size: the pool may still be compressing it), so compressed row groups
  // come within two batches of the limit, not a compression ratio below it, and the same on the
  // pool as on the calling thread. A text column that compresses about tenfold, PLAIN pages.
  FlatTable table;
  table.schema = {root(1),
                  leaf("code", PhysicalType::BYTE_ARRAY, Repetition::REQUIRED, string_type())};
  table.columns.push_back(batch_for(Schema::from_elements(table.schema).leaves()[0]));
  std::mt19937 rng(5);
  for (int i = 0; i < 100'000; ++i) {
    put_string(table.columns[0].values, "    acc += a[i * " + std::to_string(rng() % 64) +
                                            "] * b[j]; // tile " + std::to_string(rng() % 8));
    table.columns[0].num_levels++;
  }
  WriterOptions options;
  options.codec = Codec::ZSTD;
  options.encoding = ValueEncoding::PLAIN;
  options.page_bytes = 2 << 10;
  const size_t limit = 48 << 10;
  options.row_group_bytes = limit;
  const size_t batch_rows = 50;  // about 2 KB a batch
  for (int threads : {1, 2}) {
    options.threads = threads;
    auto reader = open_bytes(write_table(table, options, batch_rows));
    const auto& groups = reader->metadata().row_groups;
    ASSERT_GT(groups.size(), 3u) << threads;
    for (size_t g = 0; g + 1 < groups.size(); ++g) {
      const int64_t compressed = groups[g].total_compressed_size.value_or(0);
      ASSERT_LT(compressed * 5, groups[g].total_byte_size) << "the data compresses";
      EXPECT_GT(compressed, static_cast<int64_t>(limit * 8 / 10)) << threads << " group " << g;
      EXPECT_LT(compressed, static_cast<int64_t>(limit + (4 << 10))) << threads << " group " << g;
    }
  }
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
  options.threads = 1;  // (with more, a thread of the writer's own hands the bytes on, later)
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
  uint64_t last_progress = 0;
  copy_file(*source, writer, [&](const ProgressStep& step) {
    EXPECT_EQ(step.total, 2500u);
    EXPECT_EQ(step.unit, "rows");
    EXPECT_GT(step.done, last_progress);
    last_progress = step.done;
  });
  writer.close();
  EXPECT_EQ(last_progress, 2500u);
  auto copy = open_bytes(sink.take());
  EXPECT_EQ(copy->num_row_groups(), 1);
  expect_same(table.columns, read_table(*copy), "copy");
}

}  // namespace
}  // namespace kbdata::parquet
