#include "parquet/file_reader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/file.h"
#include "support/compact_writer.h"

namespace kbdata::parquet {
namespace {

using kbdata::testing::TestPage;

std::string data_path(const std::string& name) {
  return std::string(KBDATA_TEST_DATA) + "/" + name;
}

std::vector<uint8_t> slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<int32_t> read_int32_column(FileReader& reader, int leaf) {
  std::vector<int32_t> out;
  ColumnBatch batch;
  for (int g = 0; g < reader.num_row_groups(); ++g) {
    auto column = reader.column(g, leaf);
    while (column->read_batch(100, batch) > 0) {
      for (size_t i = 0; i < batch.values.count; ++i) out.push_back(batch.values.get<int32_t>(i));
    }
  }
  return out;
}

// Reads every value of every column; returns the number of level entries read.
size_t read_everything(FileReader& reader) {
  size_t total = 0;
  ColumnBatch batch;
  for (int g = 0; g < reader.num_row_groups(); ++g) {
    for (size_t c = 0; c < reader.schema().leaves().size(); ++c) {
      auto column = reader.column(g, static_cast<int>(c));
      while (size_t n = column->read_batch(512, batch)) total += n;
    }
  }
  return total;
}

TEST(FileReader, ProjectionReadsOnlyTheFooterAndTheChosenChunks) {
  auto local = LocalFile::open(data_path("row_groups.parquet"));
  auto recording_owner = std::make_unique<RecordingFile>(*local);
  RecordingFile* recording = recording_owner.get();
  auto reader = FileReader::open(std::move(recording_owner));
  ASSERT_EQ(reader->num_row_groups(), 3);
  const int leaf = *reader->schema().find_leaf("id");

  size_t opened = recording->ranges().size();
  std::vector<int32_t> ids = read_int32_column(*reader, leaf);
  ASSERT_EQ(ids.size(), 4200u);
  for (int32_t i = 0; i < 4200; ++i) ASSERT_EQ(ids[static_cast<size_t>(i)], i);

  // Every read after opening lies inside one of the id column's chunks.
  uint64_t chunk_bytes = 0;
  std::vector<std::pair<uint64_t, uint64_t>> allowed;
  for (const auto& group : reader->metadata().row_groups) {
    const auto& meta = *group.columns[static_cast<size_t>(leaf)].meta_data;
    uint64_t start =
        static_cast<uint64_t>(meta.dictionary_page_offset.value_or(meta.data_page_offset));
    start = std::min(start, static_cast<uint64_t>(meta.data_page_offset));
    allowed.emplace_back(start, start + static_cast<uint64_t>(meta.total_compressed_size));
    chunk_bytes += static_cast<uint64_t>(meta.total_compressed_size);
  }
  uint64_t data_bytes = 0;
  for (size_t i = opened; i < recording->ranges().size(); ++i) {
    const auto& r = recording->ranges()[i];
    bool inside = std::any_of(allowed.begin(), allowed.end(), [&](const auto& a) {
      return r.offset >= a.first && r.offset + r.length <= a.second;
    });
    EXPECT_TRUE(inside) << "read of " << r.length << " bytes at " << r.offset;
    data_bytes += r.length;
  }
  EXPECT_EQ(data_bytes, chunk_bytes);  // each chunk byte read exactly once
  // Opening read the magic, the footer length and the footer, nothing else.
  uint64_t open_bytes = 0;
  for (size_t i = 0; i < opened; ++i) open_bytes += recording->ranges()[i].length;
  EXPECT_EQ(open_bytes, 4 + 8 + reader->footer_length());
  EXPECT_EQ(recording->bytes_read(), open_bytes + chunk_bytes);
  EXPECT_LT(recording->bytes_read(), local->size());
}

TEST(FileReader, ReadsEveryShippedFixtureToTheEnd) {
  for (const char* name :
       {"types.parquet", "codec_snappy.parquet", "codec_gzip.parquet", "codec_zstd.parquet",
        "codec_lz4_raw.parquet", "codec_brotli.parquet", "codec_uncompressed.parquet",
        "data_page_v2.parquet", "dictionary.parquet", "multi_page.parquet", "plain_strings.parquet",
        "all_null.parquet", "empty.parquet", "v2_dictionary.parquet"}) {
    auto reader = FileReader::open(data_path(name));
    size_t levels = read_everything(*reader);
    EXPECT_EQ(levels, static_cast<size_t>(reader->num_rows()) * reader->schema().leaves().size())
        << name;
  }
}

TEST(FileReader, DictionaryFallbackToPlainMidChunk) {
  // Dictionary {100, 200}; page 1: indices 1,0,1 (bit width 1, one RLE run each... as bit-packed);
  // page 2 falls back to PLAIN: 7, 8.
  TestPage dictionary{2, 2, 0, {}};
  for (int32_t v : {100, 200})
    kbdata::testing::append_le32(dictionary.body, static_cast<uint32_t>(v));
  TestPage indexed{0, 3, 8, {}};
  indexed.body = {1,            // bit width
                  0x03,         // bit-packed run header: 1 group of 8 values
                  0b00000101};  // indices 1,0,1 (then padding)
  TestPage plain{0, 2, 0, {}};
  for (int32_t v : {7, 8}) kbdata::testing::append_le32(plain.body, static_cast<uint32_t>(v));
  auto bytes = kbdata::testing::build_int32_file({dictionary, indexed, plain}, 5);
  auto reader = FileReader::open(std::make_unique<MemoryFile>("fallback.parquet", bytes));
  EXPECT_EQ(read_int32_column(*reader, 0), (std::vector<int32_t>{200, 100, 200, 7, 8}));
}

TEST(FileReader, ValueFormsGiveIndicesOrLevelsOnly) {
  // The chunk of DictionaryFallbackToPlainMidChunk: a dictionary page, then PLAIN.
  TestPage dictionary{2, 2, 0, {}};
  for (int32_t v : {100, 200})
    kbdata::testing::append_le32(dictionary.body, static_cast<uint32_t>(v));
  TestPage indexed{0, 3, 8, {}};
  indexed.body = {1, 0x03, 0b00000101};  // indices 1,0,1
  TestPage plain{0, 2, 0, {}};
  for (int32_t v : {7, 8}) kbdata::testing::append_le32(plain.body, static_cast<uint32_t>(v));
  auto bytes = kbdata::testing::build_int32_file({dictionary, indexed, plain}, 5);
  auto reader = FileReader::open(std::make_unique<MemoryFile>("fallback.parquet", bytes));

  // INDICES: the dictionary page's values as indices, and the batch ends where PLAIN begins.
  auto column = reader->column(0, 0);
  column->set_value_form(ValueForm::INDICES);
  ColumnBatch batch;
  ASSERT_EQ(column->read_batch(100, batch), 3u);
  ASSERT_NE(batch.dictionary, nullptr);
  EXPECT_EQ(batch.indices, (std::vector<uint32_t>{1, 0, 1}));
  EXPECT_EQ(batch.values.count, 0u);
  EXPECT_EQ(batch.dictionary->get<int32_t>(1), 200);
  ASSERT_EQ(column->read_batch(100, batch), 2u);
  EXPECT_EQ(batch.dictionary, nullptr);
  EXPECT_TRUE(batch.indices.empty());
  ASSERT_EQ(batch.values.count, 2u);
  EXPECT_EQ(batch.values.get<int32_t>(0), 7);
  EXPECT_EQ(column->read_batch(100, batch), 0u);

  // NONE: the levels of all five entries, in one batch, and no value.
  column = reader->column(0, 0);
  column->set_value_form(ValueForm::NONE);
  ASSERT_EQ(column->read_batch(100, batch), 5u);
  EXPECT_EQ(batch.values.count, 0u);
  EXPECT_EQ(batch.dictionary, nullptr);
  EXPECT_EQ(column->read_batch(100, batch), 0u);

  // An index outside the dictionary is an error in the INDICES form too.
  TestPage outside{0, 3, 8, {}};
  outside.body = {2, 0x03, 0b00001001};  // indices 1,2,0: 2 is outside
  auto bad = FileReader::open(std::make_unique<MemoryFile>(
      "outside.parquet", kbdata::testing::build_int32_file({dictionary, outside}, 3)));
  column = bad->column(0, 0);
  column->set_value_form(ValueForm::INDICES);
  EXPECT_THROW(column->read_batch(100, batch), FormatError);
}

TEST(FileReader, DictionaryPageMissingIsAnErrorNamingThePlace) {
  TestPage indexed{0, 1, 8, {1, 0x03, 0x01}};
  auto bytes = kbdata::testing::build_int32_file({indexed}, 1);
  auto reader = FileReader::open(std::make_unique<MemoryFile>("nodict.parquet", bytes));
  try {
    read_int32_column(*reader, 0);
    FAIL() << "expected an error";
  } catch (const FormatError& e) {
    EXPECT_EQ(std::string(e.what()),
              "nodict.parquet: row group 0, column 'v', byte 4: dictionary-encoded page, but the "
              "chunk has no dictionary page");
  }
}

TEST(FileReader, NotParquetAndTruncatedFilesFailCleanly) {
  auto not_parquet = std::vector<uint8_t>(100, 'x');
  EXPECT_THROW(FileReader::open(std::make_unique<MemoryFile>("x", not_parquet)), FormatError);
  EXPECT_THROW(FileReader::open(std::make_unique<MemoryFile>("tiny", std::vector<uint8_t>{'P'})),
               FormatError);
  auto encrypted = slurp(data_path("types.parquet"));
  std::copy_n("PARE", 4, encrypted.end() - 4);
  try {
    FileReader::open(std::make_unique<MemoryFile>("enc", encrypted));
    FAIL() << "expected an error";
  } catch (const UnsupportedError& e) {
    EXPECT_NE(std::string(e.what()).find("encrypted Parquet files are not supported"),
              std::string::npos);
  }
}

// Every prefix of a real file, and the file with every single byte corrupted, either reads or
// fails with a kbdata::Error: never a crash, a hang or another exception.
TEST(FileReader, SurvivesEveryTruncationAndEveryCorruptedByte) {
  auto original = slurp(data_path("dictionary.parquet"));
  ASSERT_FALSE(original.empty());
  size_t errors = 0;
  auto attempt = [&](std::vector<uint8_t> bytes) {
    try {
      auto reader = FileReader::open(std::make_unique<MemoryFile>("mutant", std::move(bytes)));
      read_everything(*reader);
    } catch (const Error&) {
      ++errors;
    }
  };
  for (size_t cut = 0; cut < original.size(); cut += 7) {
    attempt(std::vector<uint8_t>(original.begin(), original.begin() + static_cast<long>(cut)));
  }
  for (size_t i = 0; i < original.size(); ++i) {
    for (uint8_t value : {uint8_t{0x00}, uint8_t{0xFF}}) {
      auto bytes = original;
      bytes[i] = value;
      attempt(std::move(bytes));
    }
  }
  EXPECT_GT(errors, original.size() / 7);  // at least every truncation failed
}

}  // namespace
}  // namespace kbdata::parquet
