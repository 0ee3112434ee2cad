// Pages decoded a piece at a time (ColumnReader::stream_pages_from, SnappyStream) against the
// same pages decoded whole: files DuckDB wrote and files of long strings kbdata wrote with
// snappy and PLAIN pages (v1 and v2, nulls), every read form, selections, and corrupt pages.
#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/file.h"
#include "parquet/column_reader.h"
#include "parquet/file_reader.h"
#include "parquet/page_index.h"
#include "support/tables.h"

namespace kbdata::parquet {
namespace {

// What reading one column gives: every batch's levels and values concatenated, or the error.
struct ColumnRead {
  std::vector<int16_t> def_levels;
  std::vector<std::string> values;
  std::string error;  // empty: read to the end
  int64_t pages_streamed = 0;
  int64_t pages_streamed_whole = 0;

  bool operator==(const ColumnRead& other) const {
    return def_levels == other.def_levels && values == other.values &&
           error.empty() == other.error.empty();
  }
};

uint64_t size_and_first_byte(std::span<const uint8_t> value) {
  return value.size() << 8 | (value.empty() ? 0 : value[0]);
}

ColumnRead read_column(FileReader& reader, int leaf, size_t batch_rows, bool measure,
                       size_t stream_from, const std::optional<RowRanges>& rows = std::nullopt) {
  ColumnRead out;
  try {
    for (int g = 0; g < reader.num_row_groups(); ++g) {
      auto column = reader.column(g, leaf);
      column->stream_pages_from(stream_from);
      if (measure) column->set_measure(&size_and_first_byte);
      if (rows) column->select_rows(*rows, nullptr, reader.metadata().row_groups[g].num_rows);
      ColumnBatch batch;
      while (column->read_records(batch_rows, batch) > 0) {
        out.def_levels.insert(out.def_levels.end(), batch.def_levels.begin(),
                              batch.def_levels.end());
        for (size_t i = 0; i < batch.values.count; ++i) {
          out.values.push_back(measure ? std::to_string(batch.values.measure(i))
                                       : std::string(batch.values.string(i)));
        }
      }
      out.pages_streamed += column->pages_streamed();
      out.pages_streamed_whole += column->pages_streamed_whole();
    }
  } catch (const Error& e) {
    out.error = e.what();
  }
  return out;
}

// A file of one optional and one required string column of `rows` long, mostly distinct texts
// (so that the writer falls back to PLAIN pages), snappy, pages of about `page_bytes`.
std::vector<uint8_t> long_strings_file(size_t rows, int page_version, size_t page_bytes,
                                       uint32_t seed) {
  FlatTable t;
  t.schema = {root(2), leaf("code", PhysicalType::BYTE_ARRAY, Repetition::OPTIONAL, string_type()),
              leaf("name", PhysicalType::BYTE_ARRAY, Repetition::REQUIRED, string_type())};
  Schema schema = Schema::from_elements(t.schema);
  ColumnBatch code = batch_for(schema.leaves()[0]);
  ColumnBatch name = batch_for(schema.leaves()[1]);
  std::mt19937 rng(seed);
  const std::string words[] = {"def ",    "return ", "torch.",         "x ",
                               "= ",      "\n    ",  "tl.load(",       "(a, b)",
                               "# note ", "kernel",  "\u00e9t\u00e9 ", "1024"};
  for (size_t r = 0; r < rows; ++r) {
    if (rng() % 7 == 0) {
      code.def_levels.push_back(0);
    } else {
      std::string text = "# " + std::to_string(r) + "\n";
      const size_t target = rng() % 5 == 0 ? 40000 + rng() % 90000 : rng() % 6000;
      while (text.size() < target) text += words[rng() % std::size(words)];
      code.def_levels.push_back(1);
      put_string(code.values, text);
    }
    ++code.num_levels;
    put_string(name.values, "user-" + std::to_string(rng() % 1000));
    ++name.num_levels;
  }
  t.columns = {std::move(code), std::move(name)};
  WriterOptions w;
  w.codec = Codec::SNAPPY;
  w.page_version = page_version;
  w.encoding = ValueEncoding::PLAIN;
  w.page_bytes = page_bytes;
  w.page_rows = 100000;
  w.row_group_rows = static_cast<int64_t>(rows / 2 + 1);
  w.row_group_bytes = size_t{1} << 30;
  w.dictionary_page_bytes = 0;
  w.page_index = false;
  return write_table(t, w, 97);
}

void expect_streamed_reads_equal_whole_reads(FileReader& reader, const std::string& what,
                                             int64_t& streamed_pages) {
  for (int leaf = 0; leaf < static_cast<int>(reader.schema().leaves().size()); ++leaf) {
    const ColumnDescriptor& c = reader.schema().leaves()[static_cast<size_t>(leaf)];
    if (c.physical != PhysicalType::BYTE_ARRAY || c.max_rep > 0) continue;
    const int64_t rows = reader.num_rows();
    RowRanges picked;
    for (int64_t r = 1; r < rows; r += 5) picked.push_back({r, std::min(r + 2, rows)});
    for (bool measure : {false, true}) {
      for (size_t batch : {size_t{1}, size_t{13}, size_t{5000}}) {
        const std::string where = what + " column " + c.dotted_path + " batch " +
                                  std::to_string(batch) + (measure ? " measured" : "");
        const ColumnRead whole = read_column(reader, leaf, batch, measure, SIZE_MAX);
        ASSERT_TRUE(whole.error.empty()) << where << ": " << whole.error;
        EXPECT_EQ(whole.pages_streamed, 0) << where;
        const ColumnRead streamed = read_column(reader, leaf, batch, measure, 0);
        EXPECT_TRUE(streamed == whole) << where << ": " << streamed.error;
        EXPECT_EQ(streamed.pages_streamed_whole, 0) << where;
        streamed_pages += streamed.pages_streamed;
        const ColumnRead picked_whole = read_column(reader, leaf, batch, measure, SIZE_MAX, picked);
        const ColumnRead picked_streamed = read_column(reader, leaf, batch, measure, 0, picked);
        ASSERT_TRUE(picked_whole.error.empty()) << where << ": " << picked_whole.error;
        EXPECT_TRUE(picked_streamed == picked_whole) << where << " picked";
      }
    }
  }
}

TEST(StreamedPages, KbdataFilesOfLongStringsReadAsWholePagesDo) {
  int64_t streamed_pages = 0;
  for (int version : {1, 2}) {
    for (size_t page_bytes : {size_t{300} << 10, size_t{2} << 20}) {
      const auto bytes = long_strings_file(600, version, page_bytes, 3);
      auto reader = open_bytes(bytes);
      expect_streamed_reads_equal_whole_reads(
          *reader, "v" + std::to_string(version) + " pages " + std::to_string(page_bytes),
          streamed_pages);
    }
  }
  EXPECT_GT(streamed_pages, 100);
}

TEST(StreamedPages, FilesDuckDbWroteReadAsWholePagesDo) {
  int64_t streamed_pages = 0;
  for (const char* name : {"kernelbot_sample.parquet", "multi_page.parquet", "data_page_v2.parquet",
                           "dictionary.parquet", "v2_dictionary.parquet", "all_null.parquet",
                           "row_groups.parquet", "plain_strings.parquet", "types.parquet"}) {
    auto reader = FileReader::open(std::string(KBDATA_TEST_DATA) + "/" + name);
    expect_streamed_reads_equal_whole_reads(*reader, name, streamed_pages);
  }
  EXPECT_GT(streamed_pages, 0);
}

// Only snappy PLAIN pages of BYTE_ARRAY columns without repetition are streamed, and only from
// the threshold on.
TEST(StreamedPages, OnlyLargeSnappyPlainStringPagesAreStreamed) {
  const auto bytes = long_strings_file(200, 1, size_t{1} << 20, 4);
  auto reader = open_bytes(bytes);
  EXPECT_GT(read_column(*reader, 0, 100, false, 0).pages_streamed, 0);
  EXPECT_EQ(read_column(*reader, 0, 100, false, SIZE_MAX).pages_streamed, 0);
  EXPECT_EQ(read_column(*reader, 0, 100, false, ColumnReader::kStreamedPageBytes).pages_streamed,
            0);  // pages of 1 MiB
  FlatTable t = flat_table(500, 2);
  WriterOptions w;
  w.codec = Codec::LZ4_RAW;
  w.encoding = ValueEncoding::PLAIN;
  w.dictionary_page_bytes = 0;
  const auto lz4 = write_table(t, w);
  auto lz4_reader = open_bytes(lz4);
  for (int leaf = 0; leaf < static_cast<int>(lz4_reader->schema().leaves().size()); ++leaf) {
    if (lz4_reader->schema().leaves()[static_cast<size_t>(leaf)].max_rep > 0) continue;
    EXPECT_EQ(read_column(*lz4_reader, leaf, 100, false, 0).pages_streamed, 0) << leaf;
  }
}

// A byte changed anywhere in a chunk of streamed pages: the streamed read fails where the whole
// read fails, and reads the same values where it reads them.
TEST(StreamedPages, CorruptPagesFailAsWholePagesDo) {
  const auto clean = long_strings_file(150, 1, size_t{200} << 10, 5);
  auto reader = open_bytes(clean);
  const ColumnMetaData& meta = *reader->metadata().row_groups[0].columns[0].meta_data;
  const auto start = static_cast<size_t>(meta.data_page_offset);
  const auto length = static_cast<size_t>(meta.total_compressed_size);
  std::mt19937 rng(6);
  int failed = 0;
  for (int round = 0; round < 300; ++round) {
    std::vector<uint8_t> bytes = clean;
    const size_t at = start + rng() % length;
    bytes[at] ^= static_cast<uint8_t>(1u << (rng() % 8));
    if (round % 3 == 0) bytes[start + rng() % length] = static_cast<uint8_t>(rng());
    std::unique_ptr<FileReader> corrupt;
    try {
      corrupt = open_bytes(bytes);
    } catch (const Error&) {
      continue;
    }
    for (bool measure : {false, true}) {
      const ColumnRead whole = read_column(*corrupt, 0, 7, measure, SIZE_MAX);
      const ColumnRead streamed = read_column(*corrupt, 0, 7, measure, 0);
      ASSERT_EQ(whole.error.empty(), streamed.error.empty())
          << "round " << round << " at " << at << ": whole '" << whole.error << "', streamed '"
          << streamed.error << "'";
      if (whole.error.empty()) {
        EXPECT_TRUE(streamed == whole) << round;
      } else {
        ++failed;
      }
    }
  }
  EXPECT_GT(failed, 100);
}

}  // namespace
}  // namespace kbdata::parquet
