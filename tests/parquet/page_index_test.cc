// The page index: reading and validating it, skipping pages by it (counting the bytes read), and
// page CRCs.
#include "parquet/page_index.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/file.h"
#include "parquet/file_reader.h"
#include "parquet/row_filter.h"
#include "support/page_index_writer.h"

namespace kbdata::parquet {
namespace {

using kbdata::testing::build_indexed_int32_file;
using kbdata::testing::IndexedFileSpec;

std::string data_path(const std::string& name) {
  return std::string(KBDATA_TEST_DATA) + "/" + name;
}

std::string corpus_path(const std::string& name) {
  const char* env = std::getenv("KBDATA_CORPUS");
  std::string root = env ? env : std::string(KBDATA_SOURCE_DIR) + "/../shared/parquet-corpus";
  return root + "/" + name;
}

std::unique_ptr<FileReader> open_memory(std::vector<uint8_t> bytes, ReaderOptions options = {}) {
  return FileReader::open(std::make_unique<MemoryFile>("hand.parquet", std::move(bytes)), options);
}

// Every row of `column` as its values' bytes (nullopt for null), read with the given batch size.
std::vector<std::optional<std::string>> read_rows(ColumnReader& column, size_t batch_rows) {
  std::vector<std::optional<std::string>> out;
  ColumnBatch batch;
  while (size_t n = column.read_batch(batch_rows, batch)) {
    size_t v = 0;
    for (size_t r = 0; r < n; ++r) {
      if (column.column().max_def > 0 && batch.def_levels[r] != column.column().max_def) {
        out.emplace_back();
      } else {
        out.emplace_back(std::string(batch.values.string(v++)));
      }
    }
  }
  return out;
}

// The rows of `all` that lie in `ranges`.
std::vector<std::optional<std::string>> rows_in(const std::vector<std::optional<std::string>>& all,
                                                const RowRanges& ranges) {
  std::vector<std::optional<std::string>> out;
  for (const auto& r : ranges) {
    for (int64_t i = r.begin; i < r.end; ++i) out.push_back(all[static_cast<size_t>(i)]);
  }
  return out;
}

TEST(PageIndex, ReadsTheShippedFixturesIndexes) {
  auto reader = FileReader::open(data_path("page_index.parquet"));
  ASSERT_EQ(reader->num_row_groups(), 2);
  const int id = *reader->schema().find_leaf("id");
  const int score = *reader->schema().find_leaf("score");
  auto offsets = reader->offset_index(0, id);
  auto columns = reader->column_index(0, id);
  ASSERT_TRUE(offsets && columns);
  ASSERT_EQ(offsets->page_locations.size(), 12u);
  EXPECT_EQ(offsets->page_locations[3].first_row_index, 150);
  EXPECT_EQ(page_row_count(*offsets, 11, 600), 50);
  EXPECT_EQ(columns->boundary_order, BoundaryOrder::ASCENDING);
  int64_t min3;
  std::memcpy(&min3, columns->min_values[3].data(), 8);
  EXPECT_EQ(min3, 150);
  auto score_index = reader->column_index(0, score);
  ASSERT_TRUE(score_index && score_index->null_counts);
  EXPECT_TRUE(score_index->null_pages[2]);  // rows 100..149 are all null
  EXPECT_EQ((*score_index->null_counts)[2], 50);
  EXPECT_EQ(reader->offset_index(1, id)->page_locations.size(), 8u);
}

TEST(PageIndex, AbsentIndexIsNullopt) {
  auto reader = FileReader::open(data_path("row_groups.parquet"));
  EXPECT_FALSE(reader->offset_index(0, 0));
  EXPECT_FALSE(reader->column_index(0, 0));
}

TEST(PageIndex, IndexesAreReadOnlyWhenAskedFor) {
  auto local = LocalFile::open(data_path("page_index.parquet"));
  auto owner = std::make_unique<RecordingFile>(*local);
  RecordingFile* recording = owner.get();
  auto reader = FileReader::open(std::move(owner));
  uint64_t opened = recording->bytes_read();
  const auto& chunk = reader->metadata().row_groups[0].columns[0];
  (void)reader->offset_index(0, 0);
  EXPECT_EQ(recording->bytes_read() - opened, static_cast<uint64_t>(*chunk.offset_index_length));
}

TEST(PageIndex, CorruptIndexesAreFormatErrors) {
  IndexedFileSpec outside;
  outside.shift_page_offset = 100000;
  auto reader = open_memory(build_indexed_int32_file(outside).bytes);
  try {
    (void)reader->offset_index(0, 0);
    FAIL() << "no error";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("lies outside its column chunk"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("hand.parquet: row group 0, column 'v'"),
              std::string::npos)
        << e.what();
  }

  IndexedFileSpec repeated;
  repeated.repeat_first_row = true;
  reader = open_memory(build_indexed_int32_file(repeated).bytes);
  EXPECT_THROW((void)reader->offset_index(0, 0), FormatError);

  IndexedFileSpec short_mins;
  short_mins.short_min_values = true;
  reader = open_memory(build_indexed_int32_file(short_mins).bytes);
  try {
    (void)reader->column_index(0, 0);
    FAIL() << "no error";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("column index lists differ in length"), std::string::npos)
        << e.what();
  }
  // The data itself still reads: the index is only used when asked for.
  auto column = reader->column(0, 0);
  EXPECT_EQ(read_rows(*column, 7).size(), 80u);
}

TEST(PageIndex, RangeHelpers) {
  RowRanges a = {{0, 10}, {20, 30}};
  RowRanges b = {{5, 25}};
  EXPECT_EQ(intersect(a, b), (RowRanges{{5, 10}, {20, 25}}));
  RowRanges c;
  append_range(c, 0, 5);
  append_range(c, 5, 7);
  append_range(c, 9, 9);
  EXPECT_EQ(c, (RowRanges{{0, 7}}));
}

// The main pruning test: reading two rows of each column of the shipped fixture reads only the
// pages holding them (and the dictionary page), counted by RecordingFile.
TEST(PageSkipping, ReadsOnlyThePagesOfTheSelectedRows) {
  auto local = LocalFile::open(data_path("page_index.parquet"));
  auto full = FileReader::open(data_path("page_index.parquet"));

  for (int leaf = 0; leaf < 3; ++leaf) {
    auto everything = read_rows(*full->column(0, leaf), 64);
    ASSERT_EQ(everything.size(), 600u);

    auto owner = std::make_unique<RecordingFile>(*local);
    RecordingFile* recording = owner.get();
    auto reader = FileReader::open(std::move(owner));
    const int64_t opened = static_cast<int64_t>(recording->bytes_read());
    const RowRanges ranges = {{120, 125}, {430, 431}};
    auto index = reader->offset_index(0, leaf);
    ASSERT_TRUE(index);
    const int64_t index_bytes = static_cast<int64_t>(recording->bytes_read()) - opened;
    auto column = reader->column(0, leaf);
    column->select_rows(ranges, &*index, 600);
    auto selected = read_rows(*column, 3);
    EXPECT_EQ(selected, rows_in(everything, ranges)) << "leaf " << leaf;
    const int64_t pruned = static_cast<int64_t>(recording->bytes_read()) - opened - index_bytes;

    // Allowed: the dictionary page (before the first data page) and pages 2 and 8.
    const auto& meta =
        *reader->metadata().row_groups[0].columns[static_cast<size_t>(leaf)].meta_data;
    const auto& pages = index->page_locations;
    int64_t dictionary = pages[0].offset - chunk_start(meta);
    int64_t needed = dictionary + pages[2].compressed_page_size + pages[8].compressed_page_size;
    EXPECT_EQ(pruned, needed) << "leaf " << leaf;
    for (size_t i = opened == 0 ? 0 : 0; i < recording->ranges().size(); ++i) {
      const auto& r = recording->ranges()[i];
      bool in_skipped_page = false;
      for (size_t p = 0; p < pages.size(); ++p) {
        if (p == 2 || p == 8) continue;
        auto begin = static_cast<uint64_t>(pages[p].offset);
        auto end = begin + static_cast<uint64_t>(pages[p].compressed_page_size);
        if (r.offset < end && r.offset + r.length > begin) in_skipped_page = true;
      }
      EXPECT_FALSE(in_skipped_page)
          << "leaf " << leaf << " read [" << r.offset << ", +" << r.length << ")";
    }

    // Without a selection the whole chunk is read.
    auto plain_owner = std::make_unique<RecordingFile>(*local);
    RecordingFile* plain_recording = plain_owner.get();
    auto plain_reader = FileReader::open(std::move(plain_owner));
    const uint64_t plain_opened = plain_recording->bytes_read();
    (void)read_rows(*plain_reader->column(0, leaf), 64);
    const auto unpruned = static_cast<int64_t>(plain_recording->bytes_read() - plain_opened);
    EXPECT_EQ(unpruned, meta.total_compressed_size);
    std::printf(
        "[ measured ] leaf %d: %lld bytes of column data read with the selection, "
        "%lld without\n",
        leaf, static_cast<long long>(pruned), static_cast<long long>(unpruned));
  }
}

TEST(PageSkipping, RowFilterDrivesTheSkipping) {
  auto local = LocalFile::open(data_path("page_index.parquet"));
  auto owner = std::make_unique<RecordingFile>(*local);
  RecordingFile* recording = owner.get();
  auto reader = FileReader::open(std::move(owner));
  RowFilter filter(reader->schema(), {{"id", CompareOp::BETWEEN, int64_t{610}, int64_t{619}}});
  EXPECT_TRUE(filter.row_group_ranges(*reader, 0).empty());  // statistics: ids 0..599
  RowRanges ranges = filter.row_group_ranges(*reader, 1);
  EXPECT_EQ(ranges, (RowRanges{{0, 50}}));  // the first page of row group 1
  const uint64_t before = recording->bytes_read();
  auto index = reader->offset_index(1, 1);
  auto column = reader->column(1, 1);
  column->select_rows(ranges, &*index, 400);
  auto rows = read_rows(*column, 1000);
  ASSERT_EQ(rows.size(), 50u);
  EXPECT_EQ(rows[11], std::optional<std::string>("n061"));  // row 611
  EXPECT_LT(recording->bytes_read() - before,
            static_cast<uint64_t>(
                reader->metadata().row_groups[1].columns[1].meta_data->total_compressed_size));
}

TEST(PageSkipping, EverySelectionOfTheHandBuiltFileReadsExactlyItsRows) {
  IndexedFileSpec spec;
  auto file = build_indexed_int32_file(spec);
  auto full = open_memory(file.bytes);
  auto everything = read_rows(*full->column(0, 0), 100);
  ASSERT_EQ(everything.size(), 80u);
  const std::vector<RowRanges> selections = {{},
                                             {{0, 80}},
                                             {{0, 1}},
                                             {{79, 80}},
                                             {{9, 11}},
                                             {{10, 20}},
                                             {{3, 4}, {5, 6}, {33, 61}},
                                             {{0, 10}, {70, 80}},
                                             {{15, 16}, {16, 17}}};
  for (const auto& ranges : selections) {
    for (bool with_index : {true, false}) {
      for (size_t batch : {1u, 4u, 100u}) {
        auto reader = open_memory(file.bytes);
        auto index = reader->offset_index(0, 0);
        auto column = reader->column(0, 0);
        column->select_rows(ranges, with_index ? &*index : nullptr, 80);
        EXPECT_EQ(read_rows(*column, batch), rows_in(everything, ranges))
            << ranges.size() << " ranges, index " << with_index << ", batch " << batch;
      }
    }
  }
}

TEST(PageSkipping, SelectAfterReadingIsAUsageError) {
  auto reader = open_memory(build_indexed_int32_file({}).bytes);
  auto column = reader->column(0, 0);
  ColumnBatch batch;
  ASSERT_EQ(column->read_batch(1, batch), 1u);
  EXPECT_THROW(column->select_rows({{0, 1}}, nullptr, 80), UsageError);
}

TEST(PageChecksums, VerifiedOnlyWhenAsked) {
  IndexedFileSpec spec;
  spec.corrupt_crc_page = 5;
  auto file = build_indexed_int32_file(spec);
  // Without verification the file reads.
  EXPECT_EQ(read_rows(*open_memory(file.bytes)->column(0, 0), 100).size(), 80u);
  auto reader = open_memory(file.bytes, {.verify_checksums = true});
  try {
    (void)read_rows(*reader->column(0, 0), 100);
    FAIL() << "no error";
  } catch (const FormatError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("page checksum mismatch (stored 0x"), std::string::npos) << what;
    EXPECT_NE(what.find("byte " + std::to_string(file.page_offsets[5])), std::string::npos) << what;
  }
  // A correct file passes, and so does skipping the bad page.
  EXPECT_EQ(read_rows(*open_memory(build_indexed_int32_file({}).bytes, {.verify_checksums = true})
                           ->column(0, 0),
                      100)
                .size(),
            80u);
  auto skipping = open_memory(file.bytes, {.verify_checksums = true});
  auto index = skipping->offset_index(0, 0);
  auto column = skipping->column(0, 0);
  column->select_rows({{0, 50}, {60, 80}}, &*index, 80);
  EXPECT_EQ(read_rows(*column, 100).size(), 70u);
}

TEST(PageChecksums, ShippedFixtureHasValidChecksums) {
  auto reader = FileReader::open(data_path("page_index.parquet"), {.verify_checksums = true});
  for (int g = 0; g < reader->num_row_groups(); ++g) {
    for (int leaf = 0; leaf < 3; ++leaf)
      EXPECT_NO_THROW((void)read_rows(*reader->column(g, leaf), 99));
  }
}

void read_all(FileReader& reader) {
  for (int g = 0; g < reader.num_row_groups(); ++g) {
    for (size_t leaf = 0; leaf < reader.schema().leaves().size(); ++leaf) {
      auto column = reader.column(g, static_cast<int>(leaf));
      ColumnBatch batch;
      while (column->read_records(1000, batch) > 0) {
      }
    }
  }
}

TEST(PageChecksums, Corpus) {
  const std::string dir = corpus_path("parquet-testing/");
  if (!std::filesystem::exists(dir + "datapage_v1-corrupt-checksum.parquet")) {
    GTEST_SKIP() << "corpus not found at " << dir;
  }
  for (const char* name :
       {"datapage_v1-corrupt-checksum.parquet", "rle-dict-uncompressed-corrupt-checksum.parquet"}) {
    auto plain = FileReader::open(dir + name);
    EXPECT_NO_THROW(read_all(*plain)) << name;
    auto checked = FileReader::open(dir + name, {.verify_checksums = true});
    try {
      read_all(*checked);
      ADD_FAILURE() << name << " passed verification";
    } catch (const FormatError& e) {
      EXPECT_NE(std::string(e.what()).find("page checksum mismatch"), std::string::npos)
          << e.what();
    }
  }
  for (const char* name :
       {"datapage_v1-snappy-compressed-checksum.parquet",
        "datapage_v1-uncompressed-checksum.parquet", "plain-dict-uncompressed-checksum.parquet",
        "rle-dict-snappy-checksum.parquet"}) {
    auto checked = FileReader::open(dir + name, {.verify_checksums = true});
    EXPECT_NO_THROW(read_all(*checked)) << name;
  }
}

TEST(PageSkipping, CorpusTinyPages) {
  const std::string path = corpus_path("parquet-testing/alltypes_tiny_pages.parquet");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "corpus not found";
  auto full = FileReader::open(path);
  const int64_t rows = full->metadata().row_groups[0].num_rows;
  const RowRanges ranges = {{0, 3}, {1000, 1100}, {rows - 5, rows}};
  for (size_t leaf = 0; leaf < full->schema().leaves().size(); ++leaf) {
    int l = static_cast<int>(leaf);
    auto everything = read_rows(*full->column(0, l), 1000);
    auto local = LocalFile::open(path);
    auto owner = std::make_unique<RecordingFile>(*local);
    RecordingFile* recording = owner.get();
    auto reader = FileReader::open(std::move(owner));
    auto index = reader->offset_index(0, l);
    ASSERT_TRUE(index) << leaf;
    const uint64_t before = recording->bytes_read();
    auto column = reader->column(0, l);
    column->select_rows(ranges, &*index, rows);
    EXPECT_EQ(read_rows(*column, 37), rows_in(everything, ranges)) << leaf;
    EXPECT_LT(recording->bytes_read() - before,
              static_cast<uint64_t>(
                  reader->metadata().row_groups[0].columns[leaf].meta_data->total_compressed_size))
        << leaf;
  }
}

}  // namespace
}  // namespace kbdata::parquet
