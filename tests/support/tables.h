// Test-only: hand-built tables (flat and nested, every type family, nulls) written with kbdata's
// FileWriter, and the whole-file reading they are compared with. Shared by the writer's and the
// scan's tests.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "common/file.h"
#include "parquet/file_reader.h"
#include "parquet/schema.h"
#include "parquet/write/file_writer.h"

namespace kbdata::parquet {

// ---- Schemas ----

inline SchemaElement root(int children) {
  SchemaElement e;
  e.name = "schema";
  e.num_children = children;
  return e;
}

inline SchemaElement leaf(const std::string& name, PhysicalType type, Repetition repetition,
                          std::optional<LogicalType> logical = std::nullopt, int32_t length = 0) {
  SchemaElement e;
  e.name = name;
  e.type = type;
  e.repetition_type = repetition;
  e.logical_type = logical;
  if (type == PhysicalType::FIXED_LEN_BYTE_ARRAY) e.type_length = length;
  return e;
}

inline SchemaElement group(const std::string& name, Repetition repetition, int children,
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

inline LogicalType string_type() {
  LogicalType t;
  t.kind = LogicalType::Kind::STRING;
  return t;
}

// ---- Batches ----

template <typename T>
inline void put(ValueBuffer& buffer, T value) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(&value);
  buffer.data.insert(buffer.data.end(), bytes, bytes + sizeof(T));
  ++buffer.count;
}

inline void put_string(ValueBuffer& buffer, const std::string& s) {
  buffer.append_binary({reinterpret_cast<const uint8_t*>(s.data()), s.size()});
}

inline ColumnBatch batch_for(const ColumnDescriptor& column) {
  ColumnBatch b;
  b.values = ValueBuffer::for_type(column.physical, column.type_length);
  return b;
}

// A flat table of six columns and `rows` rows, every type family and nulls in the optional ones.
struct FlatTable {
  std::vector<SchemaElement> schema;
  std::vector<ColumnBatch> columns;
};

inline FlatTable flat_table(size_t rows, uint32_t seed = 1) {
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
inline FlatTable nested_table(size_t rows) {
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

inline std::vector<uint8_t> write_table(const FlatTable& table, const WriterOptions& options,
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

inline std::unique_ptr<FileReader> open_bytes(std::vector<uint8_t> bytes,
                                              ReaderOptions options = {}) {
  return FileReader::open(std::make_unique<MemoryFile>("written.parquet", std::move(bytes)),
                          options);
}

// Every leaf's levels and values over the whole file, concatenated across row groups.
inline std::vector<ColumnBatch> read_table(FileReader& reader) {
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

inline void expect_same(const std::vector<ColumnBatch>& expected,
                        const std::vector<ColumnBatch>& actual, const std::string& what) {
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

}  // namespace kbdata::parquet
