// RowFileWriter, read back by kbdata's FileReader and by DuckDB (tools/peers): every field type,
// nulls at every level, lists, batches, row-group and page bounds, the page index, provenance,
// and the output rules (a refused destination, a failure mid-write leaves nothing).
#include "parquet/write/row_file_writer.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/output_target.h"
#include "common/version.h"
#include "parquet/file_reader.h"
#include "support/oracle.h"
#include "support/temp_dir.h"

namespace kbdata::parquet {
namespace {

namespace fs = std::filesystem;
using testing::duckdb;
using testing::sql_path;

using testing::TempDir;

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The file read into memory: a LocalFile would note it as an input of the process
// (output_target.h), and a later file given its inode once it is removed would be refused as an
// output.
std::unique_ptr<FileReader> open_file(const std::string& path) {
  const std::string bytes = read_text(path);
  return FileReader::open(
      std::make_unique<MemoryFile>(path, std::vector<uint8_t>(bytes.begin(), bytes.end())));
}

// ---- One table of every field type ----

// Leaves, in schema order: id, i32, f64, flag, name, blob, doc, at, local, run.code, run.note,
// tags.list.element.
std::vector<Field> every_type_fields() {
  return {Field::leaf("id", FieldType::INT64).required(),
          Field::leaf("i32", FieldType::INT32),
          Field::leaf("f64", FieldType::DOUBLE),
          Field::leaf("flag", FieldType::BOOLEAN),
          Field::leaf("name", FieldType::STRING),
          Field::leaf("blob", FieldType::BINARY),
          Field::leaf("doc", FieldType::JSON),
          Field::leaf("at", FieldType::TIMESTAMP),
          Field::leaf("local", FieldType::LOCAL_TIMESTAMP),
          Field::group("run", {Field::leaf("code", FieldType::INT64),
                               Field::leaf("note", FieldType::STRING)}),
          Field::list("tags", FieldType::STRING)};
}

// A row of that table. Nulls follow fixed patterns so that every kind appears.
struct Row {
  int64_t id = 0;
  std::optional<int32_t> i32;
  std::optional<double> f64;
  std::optional<bool> flag;
  std::optional<std::string> name;
  std::optional<std::string> blob;
  std::optional<std::string> doc;
  std::optional<int64_t> at;
  std::optional<int64_t> local;
  bool run_null = false;
  std::optional<int64_t> run_code;  // within a present run
  std::optional<std::string> run_note;
  bool tags_null = false;
  std::vector<std::optional<std::string>> tags;
};

Row make_row(int64_t i) {
  Row r;
  r.id = i * 3 - 1000;
  if (i % 7 != 0) r.i32 = static_cast<int32_t>(i % 2 == 0 ? -i * 11 : INT32_MAX - i);
  if (i % 5 != 1) r.f64 = static_cast<double>(i) * 0.25 - 40;
  if (i % 4 != 2) r.flag = i % 3 == 0;
  if (i % 9 != 3)
    r.name = i % 50 == 0 ? std::string(300, static_cast<char>('a' + i % 26))
                         : "user-" + std::to_string(i % 37);
  if (i % 6 != 4) r.blob = std::string("\x00\xff\x01", 3) + std::to_string(i);
  if (i % 8 != 5) r.doc = "{\"k\":" + std::to_string(i) + "}";
  if (i % 10 != 6) r.at = 1'700'000'000'000'000 + i * 1'000'001;
  if (i % 11 != 7) r.local = -86'400'000'000 + i * 7;
  r.run_null = i % 13 == 0;
  if (!r.run_null) {
    if (i % 3 != 1) r.run_code = i * i;
    if (i % 4 != 1) r.run_note = "note " + std::to_string(i % 5);
  }
  r.tags_null = i % 12 == 0;
  if (!r.tags_null && i % 12 != 1) {  // 1 mod 12: an empty list
    for (int64_t k = 0; k < i % 4 + 1; ++k) {
      if ((i + k) % 5 == 0) {
        r.tags.emplace_back();  // a null element
      } else {
        r.tags.emplace_back("t" + std::to_string((i * 7 + k) % 20));
      }
    }
  }
  return r;
}

// Gives the row's entries through the writer's builders, one value at a time.
void put_row(RowFileWriter& w, const Row& r) {
  w.column<int64_t>(0).value(r.id);
  w.column<int32_t>(1).optional(r.i32);
  w.column<double>(2).optional(r.f64);
  w.column<bool>(3).optional(r.flag);
  w.column<std::string_view>(4).optional(r.name);
  w.column<std::string_view>(5).optional(r.blob);
  w.column<std::string_view>(6).optional(r.doc);
  w.column<int64_t>("at").optional(r.at);
  w.column<int64_t>("local").optional(r.local);
  if (r.run_null) {
    w.column(9).null_at(0);
    w.column(10).null_at(0);
  } else {
    w.column<int64_t>("run.code").optional(r.run_code);
    w.column<std::string_view>("run.note").optional(r.run_note);
  }
  BytesBuilder& tags = w.column<std::string_view>(11);
  if (r.tags_null) {
    tags.null();
  } else {
    tags.begin_list();
    for (const auto& t : r.tags) t ? tags.value(*t) : tags.null();
    tags.end_list();
  }
  w.end_row();
}

// The levels the rows must have, derived from the spec's rules (not from the writer): for each
// leaf, its definition and repetition levels over all rows.
struct Levels {
  std::vector<int16_t> def;
  std::vector<int16_t> rep;
};

std::vector<Levels> expected_levels(const std::vector<Row>& rows) {
  std::vector<Levels> out(12);
  auto flat = [&](size_t leaf, bool present) { out[leaf].def.push_back(present ? 1 : 0); };
  for (const Row& r : rows) {
    flat(1, r.i32.has_value());
    flat(2, r.f64.has_value());
    flat(3, r.flag.has_value());
    flat(4, r.name.has_value());
    flat(5, r.blob.has_value());
    flat(6, r.doc.has_value());
    flat(7, r.at.has_value());
    flat(8, r.local.has_value());
    // run (optional group, def 1) / code and note (optional, def 2)
    out[9].def.push_back(r.run_null ? 0 : r.run_code ? 2 : 1);
    out[10].def.push_back(r.run_null ? 0 : r.run_note ? 2 : 1);
    // tags (optional, 1) / list (repeated, 2) / element (optional, 3); rep 1 for the 2nd element on
    Levels& t = out[11];
    if (r.tags_null || r.tags.empty()) {
      t.def.push_back(r.tags_null ? 0 : 1);
      t.rep.push_back(0);
    }
    for (size_t k = 0; k < r.tags.size(); ++k) {
      t.def.push_back(r.tags[k] ? 3 : 2);
      t.rep.push_back(k == 0 ? 0 : 1);
    }
  }
  return out;
}

// Every leaf's levels and values over the file, concatenated across row groups.
std::vector<ColumnBatch> read_all(FileReader& reader) {
  std::vector<ColumnBatch> out;
  for (const ColumnDescriptor& c : reader.schema().leaves()) {
    ColumnBatch b;
    b.values = ValueBuffer::for_type(c.physical, c.type_length);
    out.push_back(std::move(b));
  }
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

std::vector<Row> write_every_type(const std::string& path, size_t rows, WriterOptions options = {},
                                  RowBatchLimits limits = {}) {
  std::vector<Row> written;
  RowFileWriter w(path, every_type_fields(), options, Provenance{}, limits);
  for (size_t i = 0; i < rows; ++i) {
    written.push_back(make_row(static_cast<int64_t>(i)));
    put_row(w, written.back());
  }
  w.commit();
  return written;
}

std::string text_or_null(const std::optional<std::string>& v) { return v ? *v : "<null>"; }

TEST(RowFileWriter, EveryFieldTypeReadsBackInKbdata) {
  TempDir dir;
  const std::string path = dir.file("every.parquet");
  const std::vector<Row> rows = write_every_type(path, 3000);
  auto reader = open_file(path);
  ASSERT_EQ(reader->num_rows(), 3000);

  // The schema: physical types, annotations and levels as FieldType promises.
  const auto& leaves = reader->schema().leaves();
  ASSERT_EQ(leaves.size(), 12u);
  struct Expect {
    const char* path;
    PhysicalType physical;
    LogicalType::Kind logical;
    std::optional<ConvertedType> converted;
    int max_def;
    int max_rep;
  };
  using K = LogicalType::Kind;
  const Expect expect[] = {
      {"id", PhysicalType::INT64, K::NONE, std::nullopt, 0, 0},
      {"i32", PhysicalType::INT32, K::NONE, std::nullopt, 1, 0},
      {"f64", PhysicalType::DOUBLE, K::NONE, std::nullopt, 1, 0},
      {"flag", PhysicalType::BOOLEAN, K::NONE, std::nullopt, 1, 0},
      {"name", PhysicalType::BYTE_ARRAY, K::STRING, ConvertedType::UTF8, 1, 0},
      {"blob", PhysicalType::BYTE_ARRAY, K::NONE, std::nullopt, 1, 0},
      {"doc", PhysicalType::BYTE_ARRAY, K::JSON, ConvertedType::JSON, 1, 0},
      {"at", PhysicalType::INT64, K::TIMESTAMP, ConvertedType::TIMESTAMP_MICROS, 1, 0},
      {"local", PhysicalType::INT64, K::TIMESTAMP, std::nullopt, 1, 0},
      {"run.code", PhysicalType::INT64, K::NONE, std::nullopt, 2, 0},
      {"run.note", PhysicalType::BYTE_ARRAY, K::STRING, ConvertedType::UTF8, 2, 0},
      {"tags.list.element", PhysicalType::BYTE_ARRAY, K::STRING, ConvertedType::UTF8, 3, 1}};
  for (size_t i = 0; i < leaves.size(); ++i) {
    SCOPED_TRACE(expect[i].path);
    EXPECT_EQ(leaves[i].dotted_path, expect[i].path);
    EXPECT_EQ(leaves[i].physical, expect[i].physical);
    EXPECT_EQ(leaves[i].logical.kind, expect[i].logical);
    EXPECT_EQ(leaves[i].converted, expect[i].converted);
    EXPECT_EQ(leaves[i].max_def, expect[i].max_def);
    EXPECT_EQ(leaves[i].max_rep, expect[i].max_rep);
  }
  EXPECT_TRUE(leaves[7].logical.is_adjusted_to_utc);
  EXPECT_FALSE(leaves[8].logical.is_adjusted_to_utc);
  EXPECT_EQ(leaves[7].logical.unit, TimeUnit::MICROS);
  EXPECT_EQ(leaves[8].logical.unit, TimeUnit::MICROS);

  // Levels, derived independently, and values.
  std::vector<ColumnBatch> all = read_all(*reader);
  std::vector<Levels> levels = expected_levels(rows);
  for (size_t leaf = 1; leaf < 12; ++leaf) {
    SCOPED_TRACE(leaves[leaf].dotted_path);
    EXPECT_EQ(all[leaf].def_levels, levels[leaf].def);
    EXPECT_EQ(all[leaf].rep_levels, levels[leaf].rep);
  }
  EXPECT_TRUE(all[0].def_levels.empty());  // REQUIRED: no levels
  size_t at[12] = {};
  for (const Row& r : rows) {
    EXPECT_EQ(all[0].values.get<int64_t>(at[0]++), r.id);
    if (r.i32) {
      EXPECT_EQ(all[1].values.get<int32_t>(at[1]++), *r.i32);
    }
    if (r.f64) {
      EXPECT_EQ(all[2].values.get<double>(at[2]++), *r.f64);
    }
    if (r.flag) {
      EXPECT_EQ(all[3].values.get<uint8_t>(at[3]++), *r.flag ? 1 : 0);
    }
    if (r.name) {
      EXPECT_EQ(all[4].values.string(at[4]++), *r.name);
    }
    if (r.blob) {
      EXPECT_EQ(all[5].values.string(at[5]++), *r.blob);
    }
    if (r.doc) {
      EXPECT_EQ(all[6].values.string(at[6]++), *r.doc);
    }
    if (r.at) {
      EXPECT_EQ(all[7].values.get<int64_t>(at[7]++), *r.at);
    }
    if (r.local) {
      EXPECT_EQ(all[8].values.get<int64_t>(at[8]++), *r.local);
    }
    if (r.run_code) {
      EXPECT_EQ(all[9].values.get<int64_t>(at[9]++), *r.run_code);
    }
    if (r.run_note) {
      EXPECT_EQ(all[10].values.string(at[10]++), *r.run_note);
    }
    for (const auto& t : r.tags) {
      if (t) {
        EXPECT_EQ(all[11].values.string(at[11]++), *t);
      }
    }
  }
  for (size_t leaf = 0; leaf < 12; ++leaf) EXPECT_EQ(at[leaf], all[leaf].values.count);
}

TEST(RowFileWriter, EveryFieldTypeReadsBackInDuckDb) {
  TempDir dir;
  const std::string path = dir.file("every.parquet");
  const std::vector<Row> rows = write_every_type(path, 2500);
  // DuckDB's view of the schema.
  auto schema = duckdb().rows(
      "SELECT name, type, logical_type IS NOT NULL, converted_type, repetition_type FROM "
      "parquet_schema(" +
      sql_path(path) + ") WHERE name <> 'duckdb_schema' AND name <> 'schema'");
  std::vector<std::string> names;
  for (const auto& r : schema) names.push_back(*r[0]);
  EXPECT_EQ(names,
            (std::vector<std::string>{"id", "i32", "f64", "flag", "name", "blob", "doc", "at",
                                      "local", "run", "code", "note", "tags", "list", "element"}));
  auto column_type = duckdb().rows("SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM " +
                                   sql_path(path) + ")");
  std::vector<std::string> types;
  for (const auto& r : column_type) types.push_back(*r[0] + " " + *r[1]);
  EXPECT_EQ(types, (std::vector<std::string>{
                       "id BIGINT", "i32 INTEGER", "f64 DOUBLE", "flag BOOLEAN", "name VARCHAR",
                       "blob BLOB", "doc JSON", "at TIMESTAMP WITH TIME ZONE", "local TIMESTAMP",
                       "run STRUCT(code BIGINT, note VARCHAR)", "tags VARCHAR[]"}));

  // Every value, as DuckDB reads it, against the rows written.
  auto got = duckdb().rows(
      "SELECT id, i32, CAST(f64 * 4 AS BIGINT), flag, name, hex(blob), CAST(doc AS VARCHAR), "
      "epoch_us(\"at\"), epoch_us(\"local\"), run IS NULL, run.code, run.note, tags IS NULL, "
      "len(tags), "
      "array_to_string(list_transform(tags, x -> coalesce(x, '<null>')), '|') FROM " +
      sql_path(path) + " ORDER BY id");
  ASSERT_EQ(got.size(), rows.size());
  auto hex = [](const std::string& s) {
    static const char* digits = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : s) {
      out += digits[c >> 4];
      out += digits[c & 15];
    }
    return out;
  };
  auto opt = [](auto v) -> std::optional<std::string> {
    if (!v) return std::nullopt;
    return std::to_string(*v);
  };
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    const auto& g = got[i];
    SCOPED_TRACE("row " + std::to_string(i));
    EXPECT_EQ(g[0], std::to_string(r.id));
    EXPECT_EQ(g[1], opt(r.i32));
    EXPECT_EQ(g[2],
              r.f64 ? std::optional<std::string>(std::to_string(static_cast<int64_t>(*r.f64 * 4)))
                    : std::nullopt);
    EXPECT_EQ(g[3], r.flag ? std::optional<std::string>(*r.flag ? "true" : "false") : std::nullopt);
    EXPECT_EQ(g[4], r.name);
    EXPECT_EQ(g[5], r.blob ? std::optional<std::string>(hex(*r.blob)) : std::nullopt);
    EXPECT_EQ(g[6], r.doc);
    EXPECT_EQ(g[7], opt(r.at));
    EXPECT_EQ(g[8], opt(r.local));
    EXPECT_EQ(g[9], r.run_null ? "true" : "false");
    EXPECT_EQ(g[10], opt(r.run_code));
    EXPECT_EQ(g[11], r.run_note);
    EXPECT_EQ(g[12], r.tags_null ? "true" : "false");
    if (!r.tags_null) {
      EXPECT_EQ(g[13], std::to_string(r.tags.size()));
      std::string joined;
      for (size_t k = 0; k < r.tags.size(); ++k) {
        joined += (k ? "|" : "") + text_or_null(r.tags[k]);
      }
      EXPECT_EQ(g[14], joined);
    }
  }
}

TEST(RowFileWriter, BatchesOfValuesEqualRowsOneByOne) {
  TempDir dir;
  const std::vector<Field> fields = {
      Field::leaf("a", FieldType::INT64), Field::leaf("b", FieldType::DOUBLE).required(),
      Field::leaf("c", FieldType::STRING), Field::leaf("d", FieldType::BOOLEAN)};
  const size_t n = 5000;
  std::vector<int64_t> a(n);
  std::vector<double> b(n);
  std::vector<std::string> c(n);
  std::vector<std::string_view> c_views(n);
  bool d[n];
  for (size_t i = 0; i < n; ++i) {
    a[i] = static_cast<int64_t>(i * i);
    b[i] = static_cast<double>(i) / 8;
    c[i] = "s" + std::to_string(i % 97);
    c_views[i] = c[i];
    d[i] = i % 3 == 0;
  }
  {
    RowFileWriter by_batch(dir.file("batch.parquet"), fields, {}, {}, {.rows = 700});
    // Four batches of rows; the last with nulls in a, c and d.
    for (size_t from = 0; from < n; from += 1250) {
      const size_t count = std::min<size_t>(1250, n - from);
      if (from + count == n) {
        by_batch.column(0).nulls(count);
      } else {
        by_batch.column<int64_t>(0).values(std::span(a).subspan(from, count));
      }
      by_batch.column<double>(1).values(std::span(b).subspan(from, count));
      if (from + count == n) {
        by_batch.column(2).nulls(count);
        by_batch.column(3).nulls(count);
      } else {
        by_batch.column<std::string_view>(2).values(std::span(c_views).subspan(from, count));
        by_batch.column<bool>(3).values(std::span<const bool>(d + from, count));
      }
      by_batch.end_rows(count);
    }
    by_batch.commit();
  }
  {
    RowFileWriter by_row(dir.file("row.parquet"), fields, {}, {}, {.rows = 700});
    for (size_t i = 0; i < n; ++i) {
      const bool last = i >= 3750;
      last ? by_row.column(0).null() : by_row.column<int64_t>(0).value(a[i]);
      by_row.column<double>(1).value(b[i]);
      last ? by_row.column(2).null() : by_row.column<std::string_view>(2).value(c[i]);
      last ? by_row.column(3).null() : by_row.column<bool>(3).value(d[i]);
      by_row.end_row();
    }
    by_row.commit();
  }
  auto batch = open_file(dir.file("batch.parquet"));
  auto row = open_file(dir.file("row.parquet"));
  std::vector<ColumnBatch> x = read_all(*batch);
  std::vector<ColumnBatch> y = read_all(*row);
  for (size_t leaf = 0; leaf < 4; ++leaf) {
    EXPECT_EQ(x[leaf].def_levels, y[leaf].def_levels) << leaf;
    EXPECT_EQ(x[leaf].values.data, y[leaf].values.data) << leaf;
    EXPECT_EQ(x[leaf].values.offsets, y[leaf].values.offsets) << leaf;
  }
  EXPECT_EQ(x[0].values.count, 3750u);
  EXPECT_EQ(duckdb().rows("SELECT count(a), count(b), count(c), count(*) FILTER (d) FROM " +
                          sql_path(dir.file("batch.parquet")))[0],
            (std::vector<std::optional<std::string>>{"3750", "5000", "3750", "1250"}));
}

// ---- Layout ----

TEST(RowFileWriter, RowGroupsAreBoundedByRowsAndBytes) {
  TempDir dir;
  WriterOptions by_rows;
  by_rows.row_group_rows = 1000;
  write_every_type(dir.file("rows.parquet"), 4500, by_rows, {.rows = 333});
  auto reader = open_file(dir.file("rows.parquet"));
  ASSERT_EQ(reader->num_row_groups(), 5);
  for (int g = 0; g < 4; ++g) EXPECT_EQ(reader->metadata().row_groups[g].num_rows, 1000);
  EXPECT_EQ(reader->metadata().row_groups[4].num_rows, 500);
  EXPECT_EQ(duckdb().rows("SELECT count(DISTINCT row_group_id) FROM parquet_metadata(" +
                          sql_path(dir.file("rows.parquet")) + ")")[0][0],
            "5");

  WriterOptions by_bytes;
  by_bytes.row_group_bytes = 32 << 10;
  by_bytes.codec = Codec::UNCOMPRESSED;
  std::vector<Row> rows = write_every_type(dir.file("bytes.parquet"), 20'000, by_bytes);
  reader = open_file(dir.file("bytes.parquet"));
  EXPECT_GT(reader->num_row_groups(), 5);
  int64_t total = 0;
  for (const RowGroup& g : reader->metadata().row_groups) {
    // The bound is checked after each step of records: over it by about a record and a page's
    // estimate per column, never by a row group's worth.
    EXPECT_LT(g.total_compressed_size.value_or(0), 2 * (32 << 10));
    total += g.num_rows;
  }
  EXPECT_EQ(total, 20'000);
  std::vector<Levels> levels = expected_levels(rows);
  std::vector<ColumnBatch> all = read_all(*reader);
  EXPECT_EQ(all[11].def_levels, levels[11].def);
  EXPECT_EQ(all[11].rep_levels, levels[11].rep);
}

TEST(RowFileWriter, PagesAreBoundedAndThePageIndexDescribesThem) {
  TempDir dir;
  WriterOptions options;
  options.page_rows = 400;
  options.page_bytes = 4096;
  options.row_group_rows = 3000;
  const std::vector<Row> rows = write_every_type(dir.file("pages.parquet"), 7000, options);
  auto reader = open_file(dir.file("pages.parquet"));
  ASSERT_EQ(reader->num_row_groups(), 3);
  for (int g = 0; g < reader->num_row_groups(); ++g) {
    const RowGroup& group = reader->metadata().row_groups[static_cast<size_t>(g)];
    for (int leaf = 0; leaf < 12; ++leaf) {
      SCOPED_TRACE("group " + std::to_string(g) + " leaf " + std::to_string(leaf));
      const ColumnChunk& chunk = group.columns[static_cast<size_t>(leaf)];
      ASSERT_TRUE(chunk.offset_index_offset && chunk.column_index_offset);
      auto offsets = reader->offset_index(g, leaf);
      auto bounds = reader->column_index(g, leaf);
      ASSERT_TRUE(offsets && bounds);
      const auto& pages = offsets->page_locations;
      ASSERT_GE(pages.size(), static_cast<size_t>((group.num_rows + 399) / 400));
      ASSERT_EQ(bounds->min_values.size(), pages.size());
      ASSERT_EQ(bounds->null_pages.size(), pages.size());
      // Pages follow each other from the chunk's first data page, cover the group's rows from 0,
      // and hold at most page_rows rows.
      EXPECT_EQ(pages[0].offset, chunk.meta_data->data_page_offset);
      EXPECT_EQ(pages[0].first_row_index, 0);
      for (size_t p = 0; p + 1 < pages.size(); ++p) {
        EXPECT_EQ(pages[p + 1].offset, pages[p].offset + pages[p].compressed_page_size);
        const int64_t page_rows = pages[p + 1].first_row_index - pages[p].first_row_index;
        EXPECT_GT(page_rows, 0);
        EXPECT_LE(page_rows, 400);
      }
      const int64_t last_end = pages.back().offset + pages.back().compressed_page_size;
      const int64_t chunk_start =
          chunk.meta_data->dictionary_page_offset.value_or(chunk.meta_data->data_page_offset);
      EXPECT_EQ(last_end - chunk_start, chunk.meta_data->total_compressed_size);
    }
    // The id column: min and max of each page are its first and last rows' ids; ascending.
    auto offsets = reader->offset_index(g, 0);
    auto bounds = reader->column_index(g, 0);
    EXPECT_EQ(bounds->boundary_order, BoundaryOrder::ASCENDING);
    for (size_t p = 0; p < offsets->page_locations.size(); ++p) {
      const int64_t first = 3000LL * g + offsets->page_locations[p].first_row_index;
      const int64_t end = p + 1 < offsets->page_locations.size()
                              ? 3000LL * g + offsets->page_locations[p + 1].first_row_index
                              : std::min<int64_t>(3000LL * (g + 1), 7000);
      int64_t min = 0;
      int64_t max = 0;
      std::memcpy(&min, bounds->min_values[p].data(), 8);
      std::memcpy(&max, bounds->max_values[p].data(), 8);
      EXPECT_EQ(min, rows[static_cast<size_t>(first)].id);
      EXPECT_EQ(max, rows[static_cast<size_t>(end - 1)].id);
      EXPECT_FALSE(bounds->null_pages[p]);
    }
    // The i32 column: each page's null count is the rows of the page without a value.
    offsets = reader->offset_index(g, 1);
    bounds = reader->column_index(g, 1);
    ASSERT_TRUE(bounds->null_counts.has_value());
    for (size_t p = 0; p < offsets->page_locations.size(); ++p) {
      const int64_t first = 3000LL * g + offsets->page_locations[p].first_row_index;
      const int64_t end = p + 1 < offsets->page_locations.size()
                              ? 3000LL * g + offsets->page_locations[p + 1].first_row_index
                              : std::min<int64_t>(3000LL * (g + 1), 7000);
      int64_t nulls = 0;
      for (int64_t i = first; i < end; ++i) nulls += rows[static_cast<size_t>(i)].i32 ? 0 : 1;
      EXPECT_EQ((*bounds->null_counts)[p], nulls);
    }
  }

  // Footer statistics: exact min and max, null count.
  const ColumnMetaData& id = *reader->metadata().row_groups[0].columns[0].meta_data;
  int64_t min = 0;
  int64_t max = 0;
  std::memcpy(&min, id.statistics->min_value->data(), 8);
  std::memcpy(&max, id.statistics->max_value->data(), 8);
  EXPECT_EQ(min, rows[0].id);
  EXPECT_EQ(max, rows[2999].id);
  int64_t lo = INT64_MAX;
  int64_t hi = INT64_MIN;
  int64_t nulls = 0;
  for (size_t i = 3000; i < 6000; ++i) {
    if (!rows[i].i32) {
      ++nulls;
      continue;
    }
    lo = std::min<int64_t>(lo, *rows[i].i32);
    hi = std::max<int64_t>(hi, *rows[i].i32);
  }
  const std::vector<std::optional<std::string>> stats = {std::to_string(lo), std::to_string(hi),
                                                         std::to_string(nulls)};
  EXPECT_EQ(duckdb().rows(
                "SELECT stats_min_value, stats_max_value, stats_null_count FROM parquet_metadata(" +
                sql_path(dir.file("pages.parquet")) +
                ") WHERE row_group_id = 1 AND path_in_schema = 'i32'")[0],
            stats);

  // Without the page index, as synth's published layout: none, and one row group.
  WriterOptions none;
  none.page_index = false;
  none.row_group_rows = INT64_MAX;
  none.row_group_bytes = SIZE_MAX;
  write_every_type(dir.file("none.parquet"), 3000, none);
  reader = open_file(dir.file("none.parquet"));
  ASSERT_EQ(reader->num_row_groups(), 1);
  for (const ColumnChunk& chunk : reader->metadata().row_groups[0].columns) {
    EXPECT_FALSE(chunk.offset_index_offset.has_value());
    EXPECT_FALSE(chunk.column_index_offset.has_value());
  }
}

TEST(RowFileWriter, CodecAndOptionsAreThoseGiven) {
  TempDir dir;
  for (Codec codec : {Codec::SNAPPY, Codec::ZSTD, Codec::LZ4_RAW, Codec::UNCOMPRESSED}) {
    WriterOptions options;
    options.codec = codec;
    options.page_version = 2;
    const std::string path = dir.file(std::string(to_string(codec)) + ".parquet");
    const std::vector<Row> rows = write_every_type(path, 1000, options);
    auto reader = open_file(path);
    for (const ColumnChunk& chunk : reader->metadata().row_groups[0].columns) {
      EXPECT_EQ(chunk.meta_data->codec, codec);
    }
    EXPECT_EQ(duckdb().rows("SELECT count(*), sum(id) FROM " + sql_path(path))[0][1],
              std::to_string([&] {
                int64_t s = 0;
                for (const Row& r : rows) s += r.id;
                return s;
              }()));
  }
  WriterOptions bad;
  bad.codec = Codec::ZSTD;
  bad.level = 99;
  EXPECT_THROW(RowFileWriter(dir.file("bad.parquet"), every_type_fields(), bad, {}), UsageError);
  EXPECT_EQ(dir.names().size(), 4u);  // the four files above, no temporary of the refused one
}

// ---- Provenance ----

TEST(RowFileWriter, ProvenanceIsKbdatasKeysInOneOrder) {
  TempDir dir;
  Provenance p;
  p.command = "kbdata dedup in.parquet out.parquet --exact";
  p.rule = "one row per code";
  p.source = "in.parquet";
  p.more = {{"kbdata.dedup.rows_in", "7"}, {"kbdata.empty", std::nullopt}};
  p.carried = {{"ARROW:schema", "abc"}, {"kbdata.command", "an older command"}};
  WriterOptions options;
  options.key_value_metadata = {{"replaced", "by the provenance"}};
  options.created_by = "someone else";
  {
    RowFileWriter w(dir.file("p.parquet"), {Field::leaf("x", FieldType::INT32)}, options, p);
    w.column<int32_t>(0).value(1);
    w.end_row();
    w.commit();
  }
  auto reader = open_file(dir.file("p.parquet"));
  const auto& kv = reader->metadata().key_value_metadata;
  std::vector<std::string> keys;
  for (const KeyValue& pair : kv) keys.push_back(pair.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"ARROW:schema", "kbdata.version", "kbdata.command",
                                            "kbdata.rule", "kbdata.source", "kbdata.dedup.rows_in",
                                            "kbdata.empty"}));
  EXPECT_EQ(kv[0].value, "abc");
  EXPECT_EQ(kv[1].value, std::string(kVersion));
  EXPECT_EQ(kv[2].value, p.command);
  EXPECT_EQ(kv[3].value, p.rule);
  EXPECT_EQ(kv[4].value, p.source);
  EXPECT_EQ(kv[5].value, "7");
  EXPECT_FALSE(kv[6].value.has_value());
  EXPECT_EQ(reader->metadata().created_by, std::string("kbdata version ") + kVersion);
  // DuckDB reads the same pairs.
  auto duck =
      duckdb().rows("SELECT decode(key), decode(value) FROM parquet_kv_metadata(" +
                    sql_path(dir.file("p.parquet")) + ") WHERE decode(key) LIKE 'kbdata.%'");
  ASSERT_EQ(duck.size(), 6u);
  EXPECT_EQ(duck[1][1], p.command);
  EXPECT_EQ(duckdb().rows("SELECT created_by FROM parquet_file_metadata(" +
                          sql_path(dir.file("p.parquet")) + ")")[0][0],
            std::string("kbdata version ") + kVersion);

  // Empty fields are left out; the version always comes first.
  {
    RowFileWriter w(dir.file("q.parquet"), {Field::leaf("x", FieldType::INT32)}, {}, {});
    w.commit();
  }
  reader = open_file(dir.file("q.parquet"));
  ASSERT_EQ(reader->metadata().key_value_metadata.size(), 1u);
  EXPECT_EQ(reader->metadata().key_value_metadata[0].key, "kbdata.version");
  EXPECT_EQ(reader->num_rows(), 0);  // no rows: still a valid file
  EXPECT_EQ(duckdb().rows("SELECT count(*) FROM " + sql_path(dir.file("q.parquet")))[0][0], "0");
}

// ---- Strings ----

TEST(RowFileWriter, StringsAreValidUtf8AndBinaryIsKeptAsGiven) {
  TempDir dir;
  const std::string bad = "caf\xE9 \xF0\x9F\x98\x80 ok";  // a Latin-1 byte, then a valid emoji
  {
    RowFileWriter w(dir.file("s.parquet"),
                    {Field::leaf("text", FieldType::STRING), Field::leaf("raw", FieldType::BINARY),
                     Field::leaf("doc", FieldType::JSON), Field::list("tags", FieldType::STRING)},
                    {}, {});
    w.column<std::string_view>(0).value(bad);
    w.column<std::string_view>(1).value(bad);
    w.column<std::string_view>(2).value("\"\xFF\"");
    w.column(3).begin_list();
    w.column<std::string_view>(3).value(bad);
    w.column(3).end_list();
    w.end_row();
    w.commit();
  }
  auto reader = open_file(dir.file("s.parquet"));
  std::vector<ColumnBatch> all = read_all(*reader);
  EXPECT_EQ(all[0].values.string(0), "caf\xEF\xBF\xBD \xF0\x9F\x98\x80 ok");
  EXPECT_EQ(all[1].values.string(0), bad);
  EXPECT_EQ(all[2].values.string(0), "\"\xEF\xBF\xBD\"");
  EXPECT_EQ(all[3].values.string(0), "caf\xEF\xBF\xBD \xF0\x9F\x98\x80 ok");
}

// ---- Misuse ----

TEST(RowFileWriter, MisuseIsAUsageErrorNamingTheColumn) {
  TempDir dir;
  RowFileWriter w(dir.file("m.parquet"), every_type_fields(), {}, {});
  auto message = [](auto&& f) {
    try {
      f();
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no UsageError");
  };
  EXPECT_NE(message([&] { (void)w.column<double>(0); }).find("column id: its values are INT64"),
            std::string::npos);
  EXPECT_NE(message([&] { (void)w.column<int64_t>(12); }).find("no leaf column 12"),
            std::string::npos);
  EXPECT_NE(message([&] { (void)w.column<int64_t>("nope"); }).find("no column nope"),
            std::string::npos);
  EXPECT_NE(message([&] { w.column(0).null(); }).find("column id: a null in a REQUIRED column"),
            std::string::npos);
  EXPECT_NE(message([&] { w.column(1).null_at(1); }).find("column i32: no null at definition"),
            std::string::npos);
  EXPECT_NE(message([&] { w.column(1).begin_list(); }).find("column i32: begin_list()"),
            std::string::npos);
  EXPECT_NE(message([&] { w.column(11).end_list(); }).find("end_list() without begin_list()"),
            std::string::npos);
  EXPECT_NE(message([&] { w.column<std::string_view>(11).value("x"); }).find("outside begin_list"),
            std::string::npos);
  EXPECT_THROW(RowFileWriter(dir.file("g.parquet"), {Field::group("empty", {})}, {}, {}),
               UsageError);
}

TEST(RowFileWriter, ARowMissingAnEntryIsRefusedWhenTheBatchIsHandedOver) {
  TempDir dir;
  std::string what;
  {
    RowFileWriter w(dir.file("r.parquet"),
                    {Field::leaf("a", FieldType::INT64), Field::leaf("b", FieldType::INT64)}, {},
                    {}, {.rows = 4});
    try {
      for (int i = 0; i < 10; ++i) {
        w.column<int64_t>(0).value(i);
        if (i != 2) w.column<int64_t>(1).value(i);  // row 2 gives b nothing
        w.end_row();
      }
    } catch (const UsageError& e) {
      what = e.what();
    }
  }
  EXPECT_NE(what.find("column b: 3 entries for 4 rows"), std::string::npos) << what;
  EXPECT_TRUE(dir.names().empty());  // nothing written, no temporary left
}

// ---- Output ----

TEST(RowFileWriter, ARefusedDestinationCreatesNothing) {
  TempDir dir;
  const std::vector<Field> fields = {Field::leaf("x", FieldType::INT64)};
  fs::create_directory(dir.file("folder"));
  EXPECT_THROW(RowFileWriter(dir.file("folder"), fields, {}, {}), UsageError);
  ASSERT_EQ(::mkfifo(dir.file("fifo").c_str(), 0600), 0);
  EXPECT_THROW(RowFileWriter(dir.file("fifo"), fields, {}, {}), UsageError);
  EXPECT_THROW(RowFileWriter(dir.file("missing/out.parquet"), fields, {}, {}), UsageError);
  // One of the process's inputs is never replaced.
  { std::ofstream(dir.file("input.parquet")) << "the input"; }
  note_input(dir.file("input.parquet"));
  // Held open for the process's life, so that its inode, a noted input, is never given to a file
  // of a later test once this folder is removed.
  static const int keep_inode = ::open(dir.file("input.parquet").c_str(), O_RDONLY);
  ASSERT_GE(keep_inode, 0);
  EXPECT_THROW(RowFileWriter(dir.file("input.parquet"), fields, {}, {}), UsageError);
  EXPECT_EQ(read_text(dir.file("input.parquet")), "the input");
  EXPECT_EQ(dir.names(), (std::vector<std::string>{"fifo", "folder", "input.parquet"}));
}

TEST(RowFileWriter, AFailureMidWriteLeavesTheOldFileAndNoTemporary) {
  TempDir dir;
  const std::string path = dir.file("out.parquet");
  { std::ofstream(path) << "the old file"; }
  // The caller fails after rows have been handed to the writer (small batches and row groups, so
  // bytes are already in the temporary).
  WriterOptions small;
  small.row_group_rows = 100;
  try {
    RowFileWriter w(path, every_type_fields(), small, {}, {.rows = 50});
    for (int64_t i = 0; i < 1000; ++i) put_row(w, make_row(i));
    EXPECT_GT(w.bytes_written(), 0u);
    throw std::runtime_error("the caller fails");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(read_text(path), "the old file");
  EXPECT_EQ(dir.names(), std::vector<std::string>{"out.parquet"});

  // The output fails: a file-size limit makes write() fail with EFBIG part way.
  struct rlimit old_limit {};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old_limit), 0);
  auto old_handler = ::signal(SIGXFSZ, SIG_IGN);
  struct rlimit limit = old_limit;
  limit.rlim_cur = 64 << 10;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &limit), 0);
  std::string what;
  try {
    RowFileWriter w(path, every_type_fields(), small, {}, {.rows = 50});
    for (int64_t i = 0; i < 20'000; ++i) put_row(w, make_row(i));
    w.commit();
  } catch (const IoError& e) {
    what = e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &old_limit);
  ::signal(SIGXFSZ, old_handler);
  EXPECT_FALSE(what.empty()) << "the write did not fail";
  EXPECT_EQ(read_text(path), "the old file");
  EXPECT_EQ(dir.names(), std::vector<std::string>{"out.parquet"});

  // Closed but never committed: nothing either.
  fs::remove(path);
  {
    RowFileWriter w(path, every_type_fields(), {}, {});
    put_row(w, make_row(1));
    w.close();
  }
  EXPECT_TRUE(dir.names().empty());
}

TEST(RowFileWriter, RowsAfterCloseAreRefused) {
  TempDir dir;
  RowFileWriter w(dir.file("c.parquet"), {Field::leaf("x", FieldType::INT64)}, {}, {});
  w.column<int64_t>(0).value(1);
  w.end_row();
  w.close();
  w.close();  // a second close does nothing
  w.column<int64_t>(0).value(2);
  EXPECT_THROW(w.end_row(), UsageError);
  w.commit();
  EXPECT_EQ(open_file(dir.file("c.parquet"))->num_rows(), 1);
  EXPECT_EQ(w.rows(), 1);
  EXPECT_EQ(w.bytes_written(), fs::file_size(dir.file("c.parquet")));
}

}  // namespace
}  // namespace kbdata::parquet
