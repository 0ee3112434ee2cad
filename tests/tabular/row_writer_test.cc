#include "tabular/row_writer.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "common/error.h"

namespace kbdata::tabular {
namespace {

using parquet::ColumnBatch;
using parquet::ColumnDescriptor;
using parquet::LogicalType;
using parquet::PhysicalType;
using parquet::ValueBuffer;

ColumnDescriptor column(std::string name, PhysicalType physical, LogicalType::Kind kind,
                        int max_def) {
  ColumnDescriptor descriptor;
  descriptor.path = {name};
  descriptor.dotted_path = std::move(name);
  descriptor.physical = physical;
  descriptor.logical.kind = kind;
  descriptor.max_def = max_def;
  descriptor.repetition =
      max_def > 0 ? parquet::Repetition::OPTIONAL : parquet::Repetition::REQUIRED;
  return descriptor;
}

ColumnDescriptor int64_column(std::string name, int max_def = 0) {
  return column(std::move(name), PhysicalType::INT64, LogicalType::Kind::NONE, max_def);
}

ColumnDescriptor string_column(std::string name, int max_def = 1) {
  return column(std::move(name), PhysicalType::BYTE_ARRAY, LogicalType::Kind::STRING, max_def);
}

ColumnDescriptor double_column(std::string name, int max_def = 1) {
  return column(std::move(name), PhysicalType::DOUBLE, LogicalType::Kind::NONE, max_def);
}

// A batch of a flat column; entries that are nullopt are null (def level 0).
template <typename T>
ColumnBatch fixed_batch(PhysicalType type, const std::vector<std::optional<T>>& entries,
                        bool with_levels = true) {
  ColumnBatch batch;
  batch.num_levels = entries.size();
  batch.values.type = type;
  batch.values.width = sizeof(T);
  for (const auto& entry : entries) {
    if (with_levels) batch.def_levels.push_back(entry ? 1 : 0);
    if (!entry) continue;
    const auto* bytes = reinterpret_cast<const uint8_t*>(&*entry);
    batch.values.data.insert(batch.values.data.end(), bytes, bytes + sizeof(T));
    ++batch.values.count;
  }
  return batch;
}

ColumnBatch int64_batch(const std::vector<std::optional<int64_t>>& entries,
                        bool with_levels = false) {
  return fixed_batch<int64_t>(PhysicalType::INT64, entries, with_levels);
}

ColumnBatch double_batch(const std::vector<std::optional<double>>& entries) {
  return fixed_batch<double>(PhysicalType::DOUBLE, entries);
}

ColumnBatch string_batch(const std::vector<std::optional<std::string>>& entries) {
  ColumnBatch batch;
  batch.num_levels = entries.size();
  batch.values.type = PhysicalType::BYTE_ARRAY;
  batch.values.width = 0;
  for (const auto& entry : entries) {
    batch.def_levels.push_back(entry ? 1 : 0);
    if (entry) {
      batch.values.append_binary({reinterpret_cast<const uint8_t*>(entry->data()), entry->size()});
    }
  }
  return batch;
}

struct Fixture {
  ColumnDescriptor id = int64_column("id");
  ColumnDescriptor name = string_column("name");
  ColumnDescriptor score = double_column("score");
  std::vector<ColumnBatch> batches;

  Fixture() {
    batches.push_back(int64_batch({1, 2, 3}));
    batches.push_back(string_batch({"alice", std::nullopt, "c\"d"}));
    batches.push_back(double_batch({4.5, -1.0, std::nullopt}));
  }

  std::vector<const ColumnDescriptor*> columns() const { return {&id, &name, &score}; }

  std::string render(Format format, size_t first = 0, size_t count = 3) const {
    StringSink sink;
    RowWriter writer(format, columns(), sink);
    writer.write(batches, first, count);
    writer.finish();
    return sink.text();
  }
};

// ---- JSON Lines

TEST(RowWriter, JsonLines) {
  EXPECT_EQ(Fixture().render(Format::JSONL),
            "{\"id\":1,\"name\":\"alice\",\"score\":4.5}\n"
            "{\"id\":2,\"name\":null,\"score\":-1}\n"
            "{\"id\":3,\"name\":\"c\\\"d\",\"score\":null}\n");
}

TEST(RowWriter, SubRangeSkipsValuesOfEarlierRows) {
  Fixture fixture;
  EXPECT_EQ(fixture.render(Format::JSONL, 2, 1), "{\"id\":3,\"name\":\"c\\\"d\",\"score\":null}\n");
  EXPECT_EQ(fixture.render(Format::JSONL, 1, 1), "{\"id\":2,\"name\":null,\"score\":-1}\n");
  EXPECT_EQ(fixture.render(Format::JSONL, 1, 0), "");
}

TEST(RowWriter, SuccessiveBatchesAppend) {
  ColumnDescriptor id = int64_column("id", 1);
  StringSink sink;
  RowWriter writer(Format::JSONL, {&id}, sink);
  std::vector<ColumnBatch> first;
  first.push_back(int64_batch({1, std::nullopt}, true));
  writer.write(first, 0, 2);
  std::vector<ColumnBatch> second;
  second.push_back(int64_batch({std::nullopt, 4, 5}, true));
  writer.write(second, 1, 1);
  const ColumnBatch* pointers[] = {&second[0]};
  writer.write(pointers, 2, 1);
  writer.finish();
  EXPECT_EQ(sink.text(), "{\"id\":1}\n{\"id\":null}\n{\"id\":4}\n{\"id\":5}\n");
  EXPECT_EQ(writer.rows_written(), 4u);
}

TEST(RowWriter, MissingDefinitionLevelsMeanEveryEntryHasAValue) {
  ColumnDescriptor id = int64_column("id", 1);
  StringSink sink;
  RowWriter writer(Format::JSONL, {&id}, sink);
  std::vector<ColumnBatch> batches;
  batches.push_back(int64_batch({7, 8}, false));
  writer.write(batches, 0, 2);
  writer.finish();
  EXPECT_EQ(sink.text(), "{\"id\":7}\n{\"id\":8}\n");
}

TEST(RowWriter, JsonKeysAreEscapedAndRepaired) {
  ColumnDescriptor odd = int64_column("a\"b\n\xFF");
  StringSink sink;
  RowWriter writer(Format::JSONL, {&odd}, sink);
  std::vector<ColumnBatch> batches;
  batches.push_back(int64_batch({1}));
  writer.write(batches, 0, 1);
  writer.finish();
  EXPECT_EQ(sink.text(), "{\"a\\\"b\\n\xEF\xBF\xBD\":1}\n");
}

TEST(RowWriter, UnknownTypeColumnsAreNull) {
  ColumnDescriptor nothing = column("nothing", PhysicalType::INT32, LogicalType::Kind::UNKNOWN, 1);
  ColumnDescriptor id = int64_column("id");
  std::vector<ColumnBatch> batches;
  batches.push_back(fixed_batch<int32_t>(PhysicalType::INT32, {std::nullopt, 9}));
  batches.push_back(int64_batch({1, 2}));
  const auto render = [&](Format format) {
    StringSink sink;
    RowWriter writer(format, {&nothing, &id}, sink);
    writer.write(batches, 0, 2);
    writer.finish();
    return sink.text();
  };
  EXPECT_EQ(render(Format::JSONL), "{\"nothing\":null,\"id\":1}\n{\"nothing\":null,\"id\":2}\n");
  EXPECT_EQ(render(Format::CSV), "nothing,id\n,1\n,2\n");
  EXPECT_EQ(render(Format::TABLE),
            "nothing  id\n"
            "-------  --\n"
            "null      1\n"
            "null      2\n"
            "(2 rows)\n");
}

TEST(RowWriter, NoColumns) {
  StringSink sink;
  RowWriter writer(Format::JSONL, {}, sink);
  writer.write(std::span<const ColumnBatch>(), 0, 0);
  writer.finish();
  EXPECT_EQ(sink.text(), "");
}

// ---- CSV

TEST(RowWriter, Csv) {
  EXPECT_EQ(Fixture().render(Format::CSV),
            "id,name,score\n"
            "1,alice,4.5\n"
            "2,,-1\n"
            "3,\"c\"\"d\",\n");
}

TEST(RowWriter, CsvQuotesOnlyFieldsThatNeedIt) {
  ColumnDescriptor text = string_column("a,b");
  ColumnDescriptor plain = string_column("plain");
  std::vector<ColumnBatch> batches;
  batches.push_back(
      string_batch({"x,y", "line\nbreak", "cr\rhere", "say \"hi\"", "plain text", "", "'single'"}));
  batches.push_back(string_batch({"a", "b", "c", "d", "e", "f", std::nullopt}));
  StringSink sink;
  RowWriter writer(Format::CSV, {&text, &plain}, sink);
  writer.write(batches, 0, 7);
  writer.finish();
  EXPECT_EQ(sink.text(),
            "\"a,b\",plain\n"
            "\"x,y\",a\n"
            "\"line\nbreak\",b\n"
            "\"cr\rhere\",c\n"
            "\"say \"\"hi\"\"\",d\n"
            "plain text,e\n"
            "\"\",f\n"
            "'single',\n");
}

TEST(RowWriter, CsvWithoutRowsHasAHeader) {
  Fixture fixture;
  EXPECT_EQ(fixture.render(Format::CSV, 0, 0), "id,name,score\n");
}

// ---- Table

TEST(RowWriter, Table) {
  EXPECT_EQ(Fixture().render(Format::TABLE),
            "id  name   score\n"
            "--  -----  -----\n"
            " 1  alice    4.5\n"
            " 2  null      -1\n"
            " 3  c\"d     null\n"
            "(3 rows)\n");
}

TEST(RowWriter, TableCountsCodePointsAndTruncates) {
  ColumnDescriptor text = string_column("text");
  ColumnDescriptor n = int64_column("n");
  std::vector<ColumnBatch> batches;
  const std::string forty(40, 'x');
  const std::string long_text = std::string(39, 'y') + "zz";
  const std::string accents = "\xC3\xA9\xC3\xA9";  // two code points, four bytes
  std::string long_accents;
  for (int k = 0; k < 45; ++k) long_accents += "\xC3\xA9";
  batches.push_back(string_batch({forty, long_text, accents, long_accents}));
  batches.push_back(int64_batch({1, 22, 333, 4}));
  StringSink sink;
  RowWriter writer(Format::TABLE, {&text, &n}, sink);
  writer.write(batches, 0, 4);
  writer.finish();
  std::string accents_39;
  for (int k = 0; k < 39; ++k) accents_39 += "\xC3\xA9";
  const std::string pad38(38, ' ');
  EXPECT_EQ(sink.text(), "text" + std::string(36, ' ') + "    n\n" +              //
                             std::string(40, '-') + "  ---\n" +                   //
                             forty + "    1\n" +                                  //
                             std::string(39, 'y') + "\xE2\x80\xA6" + "   22\n" +  //
                             accents + pad38 + "  333\n" +                        //
                             accents_39 + "\xE2\x80\xA6" + "    4\n" +            //
                             "(4 rows)\n");
}

TEST(RowWriter, TableEscapesControlCharacters) {
  ColumnDescriptor text = string_column("t\tx");
  std::vector<ColumnBatch> batches;
  batches.push_back(string_batch({"a\nb", std::string("\x01\x7f", 2), "\xC2\x85"}));
  StringSink sink;
  RowWriter writer(Format::TABLE, {&text}, sink);
  writer.write(batches, 0, 3);
  writer.finish();
  EXPECT_EQ(sink.text(),
            "t\\tx\n"
            "--------\n"
            "a\\nb\n"
            "\\x01\\x7f\n"
            "\\u0085\n"
            "(3 rows)\n");
}

TEST(RowWriter, TableTruncationKeepsEscapesWhole) {
  ColumnDescriptor text = string_column("t");
  std::vector<ColumnBatch> batches;
  batches.push_back(string_batch({std::string(38, 'a') + "\n" + "b"}));
  StringSink sink;
  RowWriter writer(Format::TABLE, {&text}, sink);
  writer.write(batches, 0, 1);
  writer.finish();
  // 38 + 2 ("\n") = 40 code points, then more: the escape does not fit before the "…".
  EXPECT_EQ(sink.text(),
            "t\n" + std::string(39, '-') + "\n" + std::string(38, 'a') + "\xE2\x80\xA6\n(1 row)\n");
}

TEST(RowWriter, EmptyTableShowsHeader) {
  Fixture fixture;
  EXPECT_EQ(fixture.render(Format::TABLE, 0, 0),
            "id  name  score\n"
            "--  ----  -----\n"
            "(0 rows)\n");
}

TEST(RowWriter, TableIsLaidOutInBlocks) {
  ColumnDescriptor id = int64_column("id");
  std::vector<int64_t> ids(RowWriter::kTableBlockRows + 5);
  std::vector<std::optional<int64_t>> entries;
  for (size_t k = 0; k < ids.size(); ++k) entries.push_back(static_cast<int64_t>(k));
  std::vector<ColumnBatch> batches;
  batches.push_back(int64_batch(entries));
  StringSink sink;
  RowWriter writer(Format::TABLE, {&id}, sink);
  writer.write(batches, 0, entries.size());
  writer.finish();
  const std::string& out = sink.text();
  // The first block is as wide as "999", the second as wide as "1004", each with its header.
  EXPECT_EQ(out.substr(0, 16), " id\n---\n  0\n  1\n");
  const std::string second_block = "\n  id\n----\n1000\n1001\n1002\n1003\n1004\n(1005 rows)\n";
  ASSERT_GE(out.size(), second_block.size());
  EXPECT_EQ(out.substr(out.size() - second_block.size()), second_block);
  EXPECT_NE(out.find("\n999\n\n  id\n"), std::string::npos);
}

// ---- Errors, sinks and buffering

TEST(RowWriter, RejectsRepeatedColumns) {
  ColumnDescriptor tags = string_column("tags.list.element", 3);
  tags.max_rep = 1;
  StringSink sink;
  try {
    RowWriter writer(Format::JSONL, {&tags}, sink);
    FAIL() << "expected UnsupportedError";
  } catch (const UnsupportedError& error) {
    EXPECT_STREQ(error.what(),
                 "column 'tags.list.element' is nested (repeated); nested columns are not "
                 "supported yet");
  }
}

TEST(RowWriter, RejectsBatchesWithTooFewValues) {
  ColumnDescriptor id = int64_column("id", 1);
  std::vector<ColumnBatch> batches;
  batches.push_back(int64_batch({1, 2, 3}, true));
  batches[0].values.count = 2;
  batches[0].values.data.resize(16);
  StringSink sink;
  RowWriter writer(Format::JSONL, {&id}, sink);
  EXPECT_THROW(writer.write(batches, 0, 3), FormatError);
  // The rows before the missing value are fine.
  EXPECT_NO_THROW(writer.write(batches, 0, 2));
}

TEST(RowWriter, RejectsBatchesOfAnotherType) {
  ColumnDescriptor id = int64_column("id");
  std::vector<ColumnBatch> batches;
  batches.push_back(fixed_batch<int32_t>(PhysicalType::INT32, {1}, false));
  StringSink sink;
  RowWriter writer(Format::JSONL, {&id}, sink);
  try {
    writer.write(batches, 0, 1);
    FAIL() << "expected FormatError";
  } catch (const FormatError& error) {
    EXPECT_EQ(error.location().column, "id");
  }
}

// Records the size of every write.
class RecordingSink final : public Sink {
 public:
  void write(std::string_view bytes) override {
    sizes.push_back(bytes.size());
    text.append(bytes);
  }
  void flush() override { ++flushes; }

  std::vector<size_t> sizes;
  std::string text;
  int flushes = 0;
};

TEST(RowWriter, WritesInLargeBlocks) {
  for (Format format : {Format::JSONL, Format::CSV, Format::TABLE}) {
    Fixture fixture;
    RecordingSink sink;
    RowWriter writer(format, fixture.columns(), sink);
    for (int k = 0; k < 20000; ++k) writer.write(fixture.batches, 0, 3);
    EXPECT_FALSE(sink.sizes.empty());
    writer.finish();
    ASSERT_GE(sink.sizes.size(), 2u);
    for (size_t k = 0; k + 1 < sink.sizes.size(); ++k) {
      EXPECT_GE(sink.sizes[k], RowWriter::kFlushBytes);
    }
    EXPECT_EQ(sink.flushes, 1);
    EXPECT_EQ(writer.rows_written(), 60000u);
  }
}

TEST(RowWriter, FinishIsIdempotent) {
  Fixture fixture;
  RecordingSink sink;
  RowWriter writer(Format::TABLE, fixture.columns(), sink);
  writer.finish();
  writer.finish();
  EXPECT_EQ(sink.flushes, 1);
  EXPECT_EQ(sink.text, "id  name  score\n--  ----  -----\n(0 rows)\n");
}

TEST(FileSink, WritesToTheStream) {
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  {
    Fixture fixture;
    FileSink sink(file, "tmp");
    RowWriter writer(Format::CSV, fixture.columns(), sink);
    writer.write(fixture.batches, 0, 1);
    writer.finish();
  }
  std::rewind(file);
  char buffer[64] = {};
  const size_t n = std::fread(buffer, 1, sizeof(buffer) - 1, file);
  std::fclose(file);
  EXPECT_EQ(std::string(buffer, n), "id,name,score\n1,alice,4.5\n");
}

TEST(FileSink, ReportsWriteErrorsNamingTheOutput) {
  std::FILE* file = std::fopen("/dev/null", "r");  // writing to a read-only stream fails
  ASSERT_NE(file, nullptr);
  FileSink sink(file, "<stdout>");
  try {
    sink.write("hello");
    FAIL() << "expected IoError";
  } catch (const IoError& error) {
    EXPECT_EQ(error.location().file, "<stdout>");
    EXPECT_EQ(std::string(error.what()).rfind("<stdout>: cannot write", 0), 0u) << error.what();
  }
  std::fclose(file);
}

TEST(FileSink, ReportsFlushErrors) {
  std::FILE* file = std::fopen("/dev/full", "w");
  if (file == nullptr) GTEST_SKIP() << "no /dev/full";
  Fixture fixture;
  FileSink sink(file, "<stdout>");
  RowWriter writer(Format::JSONL, fixture.columns(), sink);
  writer.write(fixture.batches, 0, 3);
  try {
    writer.finish();
    FAIL() << "expected IoError";
  } catch (const IoError& error) {
    EXPECT_EQ(error.location().file, "<stdout>");
    EXPECT_NE(std::string(error.what()).find("No space left on device"), std::string::npos)
        << error.what();
  }
  std::fclose(file);
}

}  // namespace
}  // namespace kbdata::tabular
