// Page locations without a page index (walk_page_locations, FileReader::page_locations): the walk
// finds exactly what the writer's OffsetIndex lists, reads no page body, splits a chunk into
// ranges of pages that select_rows() reads back as the whole chunk, and refuses corrupt chunks
// with FormatError.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/file.h"
#include "parquet/file_reader.h"
#include "parquet/page_index.h"
#include "parquet/write/file_writer.h"

namespace kbdata::parquet {
namespace {

namespace fs = std::filesystem;

// ---- A table written by kbdata's writer ----

SchemaElement root(int children) {
  SchemaElement e;
  e.name = "schema";
  e.num_children = children;
  return e;
}

SchemaElement leaf(const std::string& name, PhysicalType type, Repetition repetition) {
  SchemaElement e;
  e.name = name;
  e.type = type;
  e.repetition_type = repetition;
  if (type == PhysicalType::BYTE_ARRAY) {
    LogicalType t;
    t.kind = LogicalType::Kind::STRING;
    e.logical_type = t;
  }
  return e;
}

SchemaElement group(const std::string& name, Repetition repetition, int children) {
  SchemaElement e;
  e.name = name;
  e.repetition_type = repetition;
  e.num_children = children;
  return e;
}

void put_string(ValueBuffer& buffer, const std::string& s) {
  buffer.append_binary({reinterpret_cast<const uint8_t*>(s.data()), s.size()});
}

// Leaves: id (required INT64), name (optional string of few distinct values: a dictionary),
// text (optional string, mostly distinct: the dictionary overflows and later pages are PLAIN),
// tags.list.element (optional strings in an optional list: repeated).
std::vector<SchemaElement> table_schema() {
  return {root(4),
          leaf("id", PhysicalType::INT64, Repetition::REQUIRED),
          leaf("name", PhysicalType::BYTE_ARRAY, Repetition::OPTIONAL),
          leaf("text", PhysicalType::BYTE_ARRAY, Repetition::OPTIONAL),
          group("tags", Repetition::OPTIONAL, 1),
          group("list", Repetition::REPEATED, 1),
          leaf("element", PhysicalType::BYTE_ARRAY, Repetition::OPTIONAL)};
}

std::vector<uint8_t> write_table(size_t rows, const WriterOptions& options) {
  Schema schema = Schema::from_elements(table_schema());
  std::vector<ColumnBatch> c;
  for (const ColumnDescriptor& d : schema.leaves()) {
    ColumnBatch b;
    b.values = ValueBuffer::for_type(d.physical, d.type_length);
    c.push_back(std::move(b));
  }
  std::mt19937 rng(7);
  for (size_t i = 0; i < rows; ++i) {
    c[0].num_levels++;
    auto id = static_cast<int64_t>(i);
    const auto* bytes = reinterpret_cast<const uint8_t*>(&id);
    c[0].values.data.insert(c[0].values.data.end(), bytes, bytes + sizeof id);
    c[0].values.count++;

    bool name_null = i % 7 == 2;
    c[1].num_levels++;
    c[1].def_levels.push_back(name_null ? 0 : 1);
    if (!name_null) put_string(c[1].values, "user-" + std::to_string(rng() % 40));

    bool text_null = i % 5 == 1;
    c[2].num_levels++;
    c[2].def_levels.push_back(text_null ? 0 : 1);
    if (!text_null) {
      put_string(c[2].values, std::to_string(i) + std::string(20 + rng() % 200, 'a' + i % 26));
    }

    ColumnBatch& tags = c[3];
    auto level = [&](int16_t d, int16_t r) {
      tags.def_levels.push_back(d);
      tags.rep_levels.push_back(r);
      tags.num_levels++;
    };
    if (i % 6 == 0) {
      level(0, 0);  // null list
    } else if (i % 6 == 1) {
      level(1, 0);  // empty list
    } else {
      for (size_t k = 0; k < i % 4 + 1; ++k) {
        bool null_element = (i + k) % 5 == 0;
        level(null_element ? 2 : 3, k == 0 ? 0 : 1);
        if (!null_element) put_string(tags.values, "tag" + std::to_string((i * 3 + k) % 30));
      }
    }
  }
  MemorySink sink;
  FileWriter writer(sink, table_schema(), options);
  writer.write(c);
  writer.close();
  return sink.take();
}

WriterOptions small_pages(int page_version, Codec codec = Codec::SNAPPY) {
  WriterOptions o;
  o.codec = codec;
  o.page_version = page_version;
  o.page_rows = 250;
  o.page_bytes = 16 << 10;
  o.dictionary_page_bytes = 8 << 10;
  o.row_group_rows = 1500;
  return o;
}

std::unique_ptr<FileReader> open_bytes(std::vector<uint8_t> bytes) {
  return FileReader::open(std::make_unique<MemoryFile>("written.parquet", std::move(bytes)));
}

void expect_same_locations(const OffsetIndex& expected, const OffsetIndex& actual,
                           const std::string& what) {
  ASSERT_EQ(expected.page_locations.size(), actual.page_locations.size()) << what;
  for (size_t i = 0; i < expected.page_locations.size(); ++i) {
    const PageLocation& e = expected.page_locations[i];
    const PageLocation& a = actual.page_locations[i];
    EXPECT_EQ(e.offset, a.offset) << what << " page " << i;
    EXPECT_EQ(e.compressed_page_size, a.compressed_page_size) << what << " page " << i;
    EXPECT_EQ(e.first_row_index, a.first_row_index) << what << " page " << i;
  }
}

const ColumnChunk& chunk_of(FileReader& reader, int g, int leaf) {
  return reader.metadata().row_groups[static_cast<size_t>(g)].columns[static_cast<size_t>(leaf)];
}

int64_t rows_of(FileReader& reader, int g) {
  return reader.metadata().row_groups[static_cast<size_t>(g)].num_rows;
}

TEST(PageLocations, WalkEqualsTheWritersOffsetIndex) {
  for (int version : {1, 2}) {
    for (Codec codec : {Codec::SNAPPY, Codec::UNCOMPRESSED}) {
      auto reader = open_bytes(write_table(4000, small_pages(version, codec)));
      ASSERT_EQ(reader->num_row_groups(), 3);
      bool saw_dictionary = false;
      for (int g = 0; g < reader->num_row_groups(); ++g) {
        for (int leaf = 0; leaf < 4; ++leaf) {
          const std::string what = "v" + std::to_string(version) + " codec " + to_string(codec) +
                                   " group " + std::to_string(g) + " leaf " + std::to_string(leaf);
          const ColumnChunk& chunk = chunk_of(*reader, g, leaf);
          const int max_rep = reader->schema().leaves()[static_cast<size_t>(leaf)].max_rep;
          std::optional<OffsetIndex> index = reader->offset_index(g, leaf);
          ASSERT_TRUE(index) << what;
          EXPECT_GT(index->page_locations.size(), 2u) << what;
          if (chunk.meta_data->dictionary_page_offset) saw_dictionary = true;

          RecordingFile recording(reader->file());
          std::optional<OffsetIndex> walked =
              walk_page_locations(recording, chunk, max_rep, rows_of(*reader, g));
          if (max_rep > 0 && version == 1) {
            EXPECT_FALSE(walked) << what;  // v1 pages of a repeated column: rows unknown
            continue;
          }
          ASSERT_TRUE(walked) << what;
          expect_same_locations(*index, *walked, what);
          // Only headers were read: one read of at most 1 KiB at each page header (the
          // dictionary page's at the chunk's start), nothing else.
          std::vector<int64_t> headers;
          if (chunk.meta_data->dictionary_page_offset) {
            headers.push_back(*chunk.meta_data->dictionary_page_offset);
          }
          for (const PageLocation& p : index->page_locations) headers.push_back(p.offset);
          ASSERT_EQ(recording.ranges().size(), headers.size()) << what;
          for (size_t i = 0; i < headers.size(); ++i) {
            EXPECT_EQ(static_cast<int64_t>(recording.ranges()[i].offset), headers[i]) << what;
            EXPECT_LE(recording.ranges()[i].length, 1024u) << what;
          }
        }
      }
      EXPECT_TRUE(saw_dictionary);
    }
  }
}

TEST(PageLocations, FileReaderWalksWhenThereIsNoPageIndex) {
  for (int version : {1, 2}) {
    WriterOptions indexed = small_pages(version);
    WriterOptions bare = indexed;
    bare.page_index = false;
    auto with_index = open_bytes(write_table(4000, indexed));
    auto without = open_bytes(write_table(4000, bare));
    for (int g = 0; g < with_index->num_row_groups(); ++g) {
      for (int leaf = 0; leaf < 4; ++leaf) {
        const std::string what = "v" + std::to_string(version) + " group " + std::to_string(g) +
                                 " leaf " + std::to_string(leaf);
        ASSERT_FALSE(without->offset_index(g, leaf)) << what;
        std::optional<OffsetIndex> expected = with_index->offset_index(g, leaf);
        std::optional<OffsetIndex> from_index = with_index->page_locations(g, leaf);
        std::optional<OffsetIndex> walked = without->page_locations(g, leaf);
        ASSERT_TRUE(expected && from_index) << what;
        expect_same_locations(*expected, *from_index, what);
        if (leaf == 3 && version == 1) {
          EXPECT_FALSE(walked) << what;
        } else {
          ASSERT_TRUE(walked) << what;
          expect_same_locations(*expected, *walked, what);  // pages lie where they did
        }
      }
    }
  }
}

// ---- Reading a chunk range by range ----

struct Rows {
  std::vector<int16_t> def;
  std::vector<int16_t> rep;
  std::vector<std::string> values;
  size_t records = 0;
};

// Reads `column` to its end (records for a repeated column, batches otherwise), appending to `out`.
void read_all(ColumnReader& column, Rows& out, size_t batch) {
  ColumnBatch b;
  for (;;) {
    size_t n =
        column.column().max_rep > 0 ? column.read_records(batch, b) : column.read_batch(batch, b);
    if (n == 0) break;
    out.records += n;
    out.def.insert(out.def.end(), b.def_levels.begin(), b.def_levels.end());
    out.rep.insert(out.rep.end(), b.rep_levels.begin(), b.rep_levels.end());
    for (size_t i = 0; i < b.values.count; ++i) {
      auto bytes = b.values.bytes(i);
      out.values.emplace_back(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    }
  }
}

TEST(PageLocations, ReadingUnitsOfPagesGivesTheWholeChunk) {
  for (int version : {1, 2}) {
    WriterOptions options = small_pages(version);
    options.page_index = false;
    auto reader = open_bytes(write_table(4000, options));
    for (int g = 0; g < reader->num_row_groups(); ++g) {
      for (int leaf = 0; leaf < 4; ++leaf) {
        const std::string what = "v" + std::to_string(version) + " group " + std::to_string(g) +
                                 " leaf " + std::to_string(leaf);
        std::optional<OffsetIndex> index = reader->page_locations(g, leaf);
        if (!index) continue;  // repeated, v1 (checked above)
        const int64_t group_rows = rows_of(*reader, g);
        Rows whole;
        read_all(*reader->column(g, leaf), whole, 97);
        ASSERT_EQ(whole.records, static_cast<size_t>(group_rows)) << what;

        // Units of 1, 2, 3, 1, 2, 3, ... consecutive pages, each read by a reader of its own.
        const auto& pages = index->page_locations;
        Rows pieces;
        size_t units = 0;
        for (size_t first = 0, size = 1; first < pages.size(); first += size, size = size % 3 + 1) {
          size_t last = std::min(first + size, pages.size());
          int64_t begin = pages[first].first_row_index;
          int64_t end = last < pages.size() ? pages[last].first_row_index : group_rows;
          RecordingFile recording(reader->file());
          ColumnReader column(recording, chunk_of(*reader, g, leaf),
                              reader->schema().leaves()[static_cast<size_t>(leaf)], g);
          column.select_rows({{begin, end}}, &*index, group_rows);
          size_t before = pieces.records;
          read_all(column, pieces, 61);
          EXPECT_EQ(pieces.records - before, static_cast<size_t>(end - begin)) << what;
          // Pages of other units were not read: nothing past the unit's last page.
          const PageLocation& last_page = pages[last - 1];
          for (const RecordingFile::Range& r : recording.ranges()) {
            EXPECT_LE(static_cast<int64_t>(r.offset + r.length),
                      last_page.offset + last_page.compressed_page_size)
                << what;
          }
          ++units;
        }
        EXPECT_GT(units, 1u) << what;
        EXPECT_EQ(pieces.records, whole.records) << what;
        EXPECT_EQ(pieces.def, whole.def) << what;
        EXPECT_EQ(pieces.rep, whole.rep) << what;
        EXPECT_EQ(pieces.values, whole.values) << what;
      }
    }
  }
}

// ---- Corrupt chunks ----

// An uncompressed file of one row group without a page index, and its `text` chunk.
struct Plain {
  std::vector<uint8_t> bytes;
  ColumnChunk chunk;
  int64_t rows = 0;
  OffsetIndex pages;  // as walked from the intact file
};

Plain plain_file() {
  WriterOptions options = small_pages(1, Codec::UNCOMPRESSED);
  options.page_index = false;
  options.row_group_rows = 4000;
  Plain p;
  p.bytes = write_table(1000, options);
  auto reader = open_bytes(p.bytes);
  p.chunk = chunk_of(*reader, 0, 2);
  p.rows = rows_of(*reader, 0);
  p.pages = *walk_page_locations(reader->file(), p.chunk, 0, p.rows);
  return p;
}

// walk_page_locations over `bytes` with `chunk`; the FormatError's message, or "" if none.
std::string walk_error(std::vector<uint8_t> bytes, const ColumnChunk& chunk, int64_t rows) {
  MemoryFile file("corrupt.parquet", std::move(bytes));
  try {
    (void)walk_page_locations(file, chunk, 0, rows);
  } catch (const FormatError& e) {
    return e.what();
  }
  return "";
}

TEST(PageLocations, CorruptChunksThrowFormatError) {
  const Plain p = plain_file();
  ASSERT_GT(p.pages.page_locations.size(), 2u);
  const PageLocation& second = p.pages.page_locations[1];
  const int64_t start = chunk_start(*p.chunk.meta_data);
  EXPECT_EQ(walk_error(p.bytes, p.chunk, p.rows), "");

  // The chunk ends 3 bytes into the second page's header.
  ColumnChunk cut = p.chunk;
  cut.meta_data->total_compressed_size = second.offset + 3 - start;
  EXPECT_NE(walk_error(p.bytes, cut, p.rows).find("page header runs past the end"),
            std::string::npos);

  // The chunk ends one byte before the second page does.
  cut.meta_data->total_compressed_size = second.offset + second.compressed_page_size - 1 - start;
  EXPECT_NE(walk_error(p.bytes, cut, p.rows).find("runs past the end of the column chunk"),
            std::string::npos);

  // The file ends inside the chunk.
  std::vector<uint8_t> truncated(p.bytes.begin(), p.bytes.begin() + second.offset + 5);
  EXPECT_NE(walk_error(truncated, p.chunk, p.rows).find("lies outside the file"),
            std::string::npos);

  // More and fewer rows than the row group holds.
  EXPECT_NE(walk_error(p.bytes, p.chunk, p.rows - 1).find("more rows than the row group"),
            std::string::npos);
  EXPECT_NE(walk_error(p.bytes, p.chunk, p.rows + 1).find("rows but the row group has"),
            std::string::npos);

  // Garbage instead of the second header.
  std::vector<uint8_t> garbage = p.bytes;
  for (int i = 0; i < 16; ++i) garbage[static_cast<size_t>(second.offset + i)] = 0xff;
  EXPECT_NE(walk_error(garbage, p.chunk, p.rows), "");

  // A second header declaring a negative compressed size.
  {
    std::vector<uint8_t> bytes(p.bytes.begin(), p.bytes.begin() + second.offset);
    PageHeader h;
    h.type = PageType::DATA_PAGE;
    h.uncompressed_page_size = 10;
    h.compressed_page_size = -10;
    h.data_page_header.emplace();
    h.data_page_header->num_values = 1;
    encode_page_header(h, bytes);
    bytes.resize(bytes.size() + 64, 0);
    ColumnChunk negative = p.chunk;
    negative.meta_data->total_compressed_size = static_cast<int64_t>(bytes.size()) - start;
    EXPECT_NE(walk_error(bytes, negative, p.rows).find("negative"), std::string::npos);
  }

  // A negative number of values.
  {
    std::vector<uint8_t> bytes(p.bytes.begin(), p.bytes.begin() + second.offset);
    PageHeader h;
    h.type = PageType::DATA_PAGE;
    h.data_page_header.emplace();
    h.data_page_header->num_values = -3;
    encode_page_header(h, bytes);
    ColumnChunk negative = p.chunk;
    negative.meta_data->total_compressed_size = static_cast<int64_t>(bytes.size()) - start;
    EXPECT_NE(walk_error(bytes, negative, p.rows).find("negative number of values"),
              std::string::npos);
  }
}

TEST(PageLocations, ErrorsThroughFileReaderNameTheFileGroupAndColumn) {
  WriterOptions options = small_pages(1, Codec::UNCOMPRESSED);
  options.page_index = false;
  std::vector<uint8_t> bytes = write_table(1000, options);
  auto intact = open_bytes(bytes);
  const PageLocation second = intact->page_locations(0, 2)->page_locations[1];
  for (int i = 0; i < 16; ++i) bytes[static_cast<size_t>(second.offset + i)] = 0xff;
  auto reader = open_bytes(bytes);
  try {
    (void)reader->page_locations(0, 2);
    FAIL() << "no error";
  } catch (const FormatError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("written.parquet"), std::string::npos) << what;
    EXPECT_NE(what.find("text"), std::string::npos) << what;
    EXPECT_NE(what.find(std::to_string(second.offset)), std::string::npos) << what;
  }
}

TEST(PageLocations, LongHeadersAreReadByGrowing) {
  // Two pages whose headers carry 5 KB statistics, more than the first 1 KiB read.
  std::vector<uint8_t> bytes = {'P', 'A', 'R', '1'};
  std::vector<int64_t> offsets;
  for (int page = 0; page < 2; ++page) {
    offsets.push_back(static_cast<int64_t>(bytes.size()));
    PageHeader h;
    h.type = PageType::DATA_PAGE;
    h.uncompressed_page_size = 8;
    h.compressed_page_size = 8;
    h.data_page_header.emplace();
    h.data_page_header->num_values = 2;
    h.data_page_header->statistics.emplace();
    h.data_page_header->statistics->min_value = std::string(5000, 'a');
    encode_page_header(h, bytes);
    bytes.resize(bytes.size() + 8, 0);
  }
  ColumnChunk chunk;
  chunk.meta_data.emplace();
  chunk.meta_data->data_page_offset = 4;
  chunk.meta_data->total_compressed_size = static_cast<int64_t>(bytes.size()) - 4;
  chunk.meta_data->num_values = 4;
  MemoryFile file("long.parquet", bytes);
  std::optional<OffsetIndex> walked = walk_page_locations(file, chunk, 0, 4);
  ASSERT_TRUE(walked);
  ASSERT_EQ(walked->page_locations.size(), 2u);
  EXPECT_EQ(walked->page_locations[0].offset, offsets[0]);
  EXPECT_EQ(walked->page_locations[1].offset, offsets[1]);
  EXPECT_EQ(walked->page_locations[1].first_row_index, 2);
  EXPECT_EQ(walked->page_locations[0].compressed_page_size, offsets[1] - offsets[0]);
  // Cut inside the second long header: the grown read still stops at the chunk's end.
  chunk.meta_data->total_compressed_size = offsets[1] + 2000 - 4;
  EXPECT_THROW((void)walk_page_locations(file, chunk, 0, 4), FormatError);
}

// ---- The shared corpus ----

std::optional<fs::path> corpus_root() {
  const char* env = std::getenv("KBDATA_CORPUS");
  fs::path root = env && *env ? fs::path(env)
                              : fs::path(KBDATA_SOURCE_DIR) / ".." / "shared" / "parquet-corpus";
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return std::nullopt;
  return root;
}

// Every chunk of a valid corpus file that has an OffsetIndex and no repetition: the walk finds the
// pages the index lists. Files and chunks kbdata cannot open or whose index it refuses are not
// this test's business (the conformance tests judge them).
TEST(PageLocations, CorpusWalksEqualTheirOffsetIndexes) {
  const auto root = corpus_root();
  if (!root) GTEST_SKIP() << "Parquet corpus not found (set KBDATA_CORPUS)";
  int compared = 0;
  for (auto it = fs::recursive_directory_iterator(*root); it != fs::recursive_directory_iterator();
       ++it) {
    const std::string name = it->path().lexically_relative(*root).generic_string();
    if (it->is_directory() && (name == "bad" || name == "encrypted")) {
      it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file() || it->path().extension() != ".parquet") continue;
    std::unique_ptr<FileReader> reader;
    try {
      reader = FileReader::open(it->path().string());
    } catch (const Error&) {
      continue;
    }
    for (int g = 0; g < reader->num_row_groups(); ++g) {
      for (int leaf = 0; leaf < static_cast<int>(reader->schema().leaves().size()); ++leaf) {
        const ColumnDescriptor& column = reader->schema().leaves()[static_cast<size_t>(leaf)];
        if (column.max_rep > 0) continue;
        std::optional<OffsetIndex> index;
        try {
          index = reader->offset_index(g, leaf);
        } catch (const Error&) {
          continue;
        }
        if (!index) continue;
        const std::string what = name + " group " + std::to_string(g) + " " + column.dotted_path;
        try {
          std::optional<OffsetIndex> walked = walk_page_locations(
              reader->file(), chunk_of(*reader, g, leaf), 0, rows_of(*reader, g));
          ASSERT_TRUE(walked) << what;
          expect_same_locations(*index, *walked, what);
          ++compared;
        } catch (const Error& e) {
          ADD_FAILURE() << what << ": " << e.what();
        }
      }
    }
  }
  std::cout << "page locations: " << compared << " corpus chunks compared\n";
  EXPECT_GT(compared, 0);
}

}  // namespace
}  // namespace kbdata::parquet
