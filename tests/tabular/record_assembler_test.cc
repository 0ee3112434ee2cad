#include "tabular/record_assembler.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "parquet/metadata.h"
#include "tabular/row_writer.h"

namespace kbdata::tabular {
namespace {

using parquet::ColumnBatch;
using parquet::ConvertedType;
using parquet::PhysicalType;
using parquet::Repetition;
using parquet::Schema;
using parquet::SchemaElement;

SchemaElement group(std::string name, Repetition repetition, int children,
                    std::optional<ConvertedType> converted = std::nullopt) {
  SchemaElement e;
  e.name = std::move(name);
  e.repetition_type = repetition;
  e.num_children = children;
  e.converted_type = converted;
  return e;
}

SchemaElement leaf(std::string name, Repetition repetition,
                   PhysicalType type = PhysicalType::INT32) {
  SchemaElement e;
  e.name = std::move(name);
  e.repetition_type = repetition;
  e.type = type;
  return e;
}

Schema schema_of(std::vector<SchemaElement> fields, int top_level) {
  SchemaElement root;
  root.name = "schema";
  root.num_children = top_level;
  fields.insert(fields.begin(), root);
  return Schema::from_elements(fields);
}

// A batch of INT32 entries: (rep, def, value-or-nothing).
struct Entry {
  int16_t rep;
  int16_t def;
  std::optional<int32_t> value;
};

ColumnBatch batch_of(const std::vector<Entry>& entries, bool with_rep = true,
                     bool with_def = true) {
  ColumnBatch batch;
  batch.values = parquet::ValueBuffer::for_type(PhysicalType::INT32, 0);
  batch.num_levels = entries.size();
  for (const Entry& entry : entries) {
    if (with_rep) batch.rep_levels.push_back(entry.rep);
    if (with_def) batch.def_levels.push_back(entry.def);
    if (entry.value) {
      const int32_t v = *entry.value;
      const auto* bytes = reinterpret_cast<const uint8_t*>(&v);
      batch.values.data.insert(batch.values.data.end(), bytes, bytes + 4);
      ++batch.values.count;
    }
  }
  return batch;
}

std::vector<std::string> render_rows(RecordAssembler& assembler,
                                     const std::vector<ColumnBatch>& batches, size_t rows) {
  std::vector<const ColumnBatch*> pointers;
  for (const auto& batch : batches) pointers.push_back(&batch);
  assembler.start(pointers);
  std::vector<std::string> out;
  for (size_t r = 0; r < rows; ++r) {
    std::string row = "{";
    for (size_t f = 0; f < assembler.num_fields(); ++f) {
      if (f > 0) row += ",";
      row += assembler.field_name(f) + ":";
      assembler.append_json(f, row);
    }
    out.push_back(row + "}");
  }
  return out;
}

// optional group tags (LIST) { repeated group list { optional int32 element; } }
Schema list_schema() {
  return schema_of({group("tags", Repetition::OPTIONAL, 1, ConvertedType::LIST),
                    group("list", Repetition::REPEATED, 1), leaf("element", Repetition::OPTIONAL)},
                   1);
}

TEST(RecordAssemblerTest, ThreeLevelListDistinguishesNullEmptyAndNullElements) {
  const Schema schema = list_schema();
  const std::vector<int> selected{0};
  RecordAssembler assembler(schema, selected);
  ASSERT_EQ(assembler.num_fields(), 1u);
  EXPECT_EQ(assembler.flat_batch(0), -1);
  // The header's worked table.
  std::vector<ColumnBatch> batches;
  batches.push_back(
      batch_of({{0, 0, {}}, {0, 1, {}}, {0, 3, 1}, {1, 2, {}}, {1, 3, 2}, {0, 2, {}}}));
  EXPECT_EQ(
      render_rows(assembler, batches, 4),
      (std::vector<std::string>{"{tags:null}", "{tags:[]}", "{tags:[1,null,2]}", "{tags:[null]}"}));
}

TEST(RecordAssemblerTest, ListOfListsAndStructBesideIt) {
  // optional group m (LIST) { repeated group list { optional group element (LIST) {
  //   repeated group list { required int32 element; }}}}
  // required group s { optional int32 a; }
  const Schema schema =
      schema_of({group("m", Repetition::OPTIONAL, 1, ConvertedType::LIST),
                 group("list", Repetition::REPEATED, 1),
                 group("element", Repetition::OPTIONAL, 1, ConvertedType::LIST),
                 group("list", Repetition::REPEATED, 1), leaf("element", Repetition::REQUIRED),
                 group("s", Repetition::REQUIRED, 1), leaf("a", Repetition::OPTIONAL)},
                2);
  ASSERT_EQ(schema.leaves()[0].max_def, 4);
  ASSERT_EQ(schema.leaves()[0].max_rep, 2);
  const std::vector<int> selected{1, 0};  // order of first selection: s, then m
  RecordAssembler assembler(schema, selected);
  ASSERT_EQ(assembler.num_fields(), 2u);
  EXPECT_EQ(assembler.field_name(0), "s");
  EXPECT_EQ(assembler.leaves(), (std::vector<int>{1, 0}));
  std::vector<ColumnBatch> batches;
  batches.push_back(batch_of({{0, 1, 5}, {0, 0, {}}}, false));
  // [[1,2],null,[]] then [[3]]
  batches.push_back(batch_of({{0, 4, 1}, {2, 4, 2}, {1, 2, {}}, {1, 3, {}}, {0, 4, 3}}));
  EXPECT_EQ(
      render_rows(assembler, batches, 2),
      (std::vector<std::string>{"{s:{\"a\":5},m:[[1,2],null,[]]}", "{s:{\"a\":null},m:[[3]]}"}));
}

TEST(RecordAssemblerTest, MapsAndLegacyLists) {
  // optional group m (MAP) { repeated group key_value { required int32 key; optional int32 v; }}
  // repeated int32 r;   (a bare repeated field: a list)
  // optional group l (LIST) { repeated int32 array; }   (2-level)
  const Schema schema =
      schema_of({group("m", Repetition::OPTIONAL, 1, ConvertedType::MAP),
                 group("key_value", Repetition::REPEATED, 2), leaf("key", Repetition::REQUIRED),
                 leaf("v", Repetition::OPTIONAL), leaf("r", Repetition::REPEATED),
                 group("l", Repetition::OPTIONAL, 1, ConvertedType::LIST),
                 leaf("array", Repetition::REPEATED)},
                3);
  const std::vector<int> selected{0, 1, 2, 3};
  RecordAssembler assembler(schema, selected);
  std::vector<ColumnBatch> batches;
  batches.push_back(batch_of({{0, 2, 1}, {1, 2, 2}, {0, 0, {}}}));
  batches.push_back(batch_of({{0, 3, 10}, {1, 2, {}}, {0, 0, {}}}));
  batches.push_back(batch_of({{0, 0, {}}, {0, 1, 7}}));
  batches.push_back(batch_of({{0, 2, 4}, {0, 1, {}}}));
  EXPECT_EQ(
      render_rows(assembler, batches, 2),
      (std::vector<std::string>{R"({m:[{"key":1,"value":10},{"key":2,"value":null}],r:[],l:[4]})",
                                R"({m:null,r:[7],l:[]})"}));
}

TEST(RecordAssemblerTest, RowWriterMixesFlatAndNestedFieldsFromAnyFirstRow) {
  // required int32 id; optional group tags (LIST) { repeated group list { optional int32 e; }}
  const Schema schema =
      schema_of({leaf("id", Repetition::REQUIRED),
                 group("tags", Repetition::OPTIONAL, 1, ConvertedType::LIST),
                 group("list", Repetition::REPEATED, 1), leaf("e", Repetition::OPTIONAL)},
                2);
  const std::vector<int> selected{0, 1};
  RecordAssembler assembler(schema, selected);
  EXPECT_EQ(assembler.flat_batch(0), 0);
  EXPECT_EQ(assembler.flat_batch(1), -1);
  std::vector<ColumnBatch> batches;
  batches.push_back(batch_of({{0, 0, 1}, {0, 0, 2}, {0, 0, 3}}, false, false));
  batches.push_back(batch_of({{0, 3, 7}, {1, 3, 8}, {0, 0, {}}, {0, 1, {}}}));
  StringSink jsonl;
  RowWriter json_writer(Format::JSONL, assembler, jsonl);
  json_writer.write(std::span<const ColumnBatch>(batches), 1, 2);
  json_writer.finish();
  EXPECT_EQ(jsonl.text(), "{\"id\":2,\"tags\":null}\n{\"id\":3,\"tags\":[]}\n");

  StringSink csv;
  RowWriter csv_writer(Format::CSV, assembler, csv);
  csv_writer.write(std::span<const ColumnBatch>(batches), 0, 3);
  csv_writer.finish();
  EXPECT_EQ(csv.text(), "id,tags\n1,\"[7,8]\"\n2,\n3,[]\n");

  StringSink table;
  RowWriter table_writer(Format::TABLE, assembler, table);
  table_writer.write(std::span<const ColumnBatch>(batches), 0, 3);
  table_writer.finish();
  EXPECT_EQ(table.text(), "id  tags\n--  -----\n 1  [7,8]\n 2  null\n 3  []\n(3 rows)\n");
}

TEST(RecordAssemblerTest, InconsistentLevelsThrowFormatError) {
  const Schema schema = list_schema();
  const std::vector<int> selected{0};
  RecordAssembler assembler(schema, selected);
  std::vector<ColumnBatch> batches;
  // The row ends at an entry with repetition level 1 (a list element without a row start).
  batches.push_back(batch_of({{1, 3, 1}}));
  std::vector<const ColumnBatch*> pointers{&batches[0]};
  assembler.start(pointers);
  std::string out;
  // The first entry has rep 1, but as the row's first entry it is read as the row start; the
  // batch then ends, so the row is [1]. A second row has no entries left.
  assembler.append_json(0, out);
  EXPECT_EQ(out, "[1]");
  EXPECT_THROW(assembler.append_json(0, out), FormatError);
  // Fewer values than defined entries.
  batches[0] = batch_of({{0, 3, {}}});
  EXPECT_THROW(assembler.start(pointers), FormatError);
}

// DuckDB writes a null fixed-size ARRAY (INTEGER[3]) as a null LIST with one entry per element:
// the first starts the row, the others continue it at the null list's definition level. DuckDB,
// polars and arrow read the null list; so does kbdata (found by tests/random).
TEST(RecordAssemblerTest, NullFixedSizeArraysWithRedundantEntries) {
  {
    const Schema schema = list_schema();
    RecordAssembler assembler(schema, std::vector<int>{0});
    std::vector<ColumnBatch> batches;
    batches.push_back(batch_of({{0, 3, 1},
                                {1, 3, 2},
                                {1, 3, 3},  // [1,2,3]
                                {0, 0, {}},
                                {1, 0, {}},
                                {1, 0, {}},  // null
                                {0, 3, 4},
                                {1, 2, {}},
                                {1, 3, 6}}));  // [4,null,6]
    EXPECT_EQ(render_rows(assembler, batches, 3),
              (std::vector<std::string>{"{tags:[1,2,3]}", "{tags:null}", "{tags:[4,null,6]}"}));
  }
  {
    // A null array inside a list: [[1,2],null] with INTEGER[2][] (see ListOfListsAndStructBesideIt
    // for the schema).
    const Schema schema =
        schema_of({group("m", Repetition::OPTIONAL, 1, ConvertedType::LIST),
                   group("list", Repetition::REPEATED, 1),
                   group("element", Repetition::OPTIONAL, 1, ConvertedType::LIST),
                   group("list", Repetition::REPEATED, 1), leaf("element", Repetition::REQUIRED)},
                  1);
    RecordAssembler assembler(schema, std::vector<int>{0});
    std::vector<ColumnBatch> batches;
    batches.push_back(batch_of({{0, 4, 1}, {2, 4, 2}, {1, 2, {}}, {2, 2, {}}, {0, 0, {}}}));
    EXPECT_EQ(render_rows(assembler, batches, 2),
              (std::vector<std::string>{"{m:[[1,2],null]}", "{m:null}"}));
  }
  {
    // A null struct holding an array and an int: the array's leaf has three entries for it.
    // optional group s { optional group a (LIST) { repeated group list { optional int32 e; }}
    //                    optional int32 b; }
    const Schema schema =
        schema_of({group("s", Repetition::OPTIONAL, 2),
                   group("a", Repetition::OPTIONAL, 1, ConvertedType::LIST),
                   group("list", Repetition::REPEATED, 1), leaf("e", Repetition::OPTIONAL),
                   leaf("b", Repetition::OPTIONAL)},
                  1);
    RecordAssembler assembler(schema, std::vector<int>{0, 1});
    std::vector<ColumnBatch> batches;
    batches.push_back(batch_of({{0, 0, {}}, {1, 0, {}}, {1, 0, {}}, {0, 4, 7}}));
    batches.push_back(batch_of({{0, 0, {}}, {0, 2, 8}}, false));
    EXPECT_EQ(render_rows(assembler, batches, 2),
              (std::vector<std::string>{"{s:null}", R"({s:{"a":[7],"b":8}})"}));
  }
  {
    // An entry continuing a null list that defines a value contradicts it: an error.
    const Schema schema = list_schema();
    RecordAssembler assembler(schema, std::vector<int>{0});
    std::vector<ColumnBatch> batches;
    batches.push_back(batch_of({{0, 0, {}}, {1, 3, 5}}));
    std::vector<const ColumnBatch*> pointers{&batches[0]};
    assembler.start(pointers);
    std::string out;
    EXPECT_THROW(assembler.append_json(0, out), FormatError);
  }
}

TEST(RecordAssemblerTest, EmptySelectionIsAUsageError) {
  const Schema schema = list_schema();
  EXPECT_THROW(RecordAssembler(schema, std::vector<int>{}), UsageError);
  EXPECT_THROW(RecordAssembler(schema, std::vector<int>{3}), UsageError);
}

}  // namespace
}  // namespace kbdata::tabular
