// report::Writer, the one writer of typed cells: one rule per format for every command's rows.
#include "report/writer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "common/error.h"
#include "common/text.h"
#include "report/submissions.h"
#include "result/table.h"
#include "support/run_kbdata.h"

namespace kbdata::report {
namespace {

// Runs `fill` on a Writer of `format` over a temporary stream and returns what it printed.
template <typename Fill>
std::string render(Format format, std::vector<Column> columns, Fill fill,
                   std::string* notes_out = nullptr) {
  std::FILE* out = std::tmpfile();
  std::FILE* notes = std::tmpfile();
  {
    Writer writer(format, std::move(columns), out, notes, std::nullopt, "test rows", 1);
    fill(writer);
    writer.finish();
  }
  auto slurp = [](std::FILE* f) {
    std::string text;
    std::rewind(f);
    char buf[4096];
    size_t n = 0;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
    std::fclose(f);
    return text;
  };
  std::string text = slurp(out);
  std::string notes_text = slurp(notes);
  if (notes_out != nullptr) *notes_out = notes_text;
  return text;
}

const std::vector<Column> kColumns = {{"id", ColumnType::INT64},    {"name", ColumnType::STRING},
                                      {"score", ColumnType::SCORE}, {"at", ColumnType::TIMESTAMP},
                                      {"ok", ColumnType::BOOL},     {"extra", ColumnType::JSON}};

void two_rows(Writer& w) {
  w.row({int64_t{1}, std::string("a,b"), 5.23e-5, int64_t{1'760'000'000'000'000}, true,
         std::string("[1,2]")});
  w.row({int64_t{2}, Cell{}, Cell{}, Cell{}, Cell{}, Cell{}});
}

TEST(ReportWriter, TablesShowNullAsNullAndTypedCellsForPeople) {
  const std::string text = render(Format::TABLE, kColumns, two_rows);
  EXPECT_NE(text.find("52.30 µs"), std::string::npos) << text;
  EXPECT_NE(text.find("2025-10-09 08:53:20"), std::string::npos) << text;
  EXPECT_NE(text.find("[1,2]"), std::string::npos) << text;
  // The second row: every cell but the id is null.
  EXPECT_NE(text.find("\n 2  null      null  null                 null  null\n"), std::string::npos)
      << text;
}

TEST(ReportWriter, CsvQuotesOnlyWhatNeedsItAndLeavesNullEmpty) {
  const std::string text = render(Format::CSV, kColumns, two_rows);
  EXPECT_EQ(text,
            "id,name,score,at,ok,extra\n"
            "1,\"a,b\",5.23e-05,2025-10-09T08:53:20.000000Z,true,\"[1,2]\"\n"
            "2,,,,,\n");
}

TEST(ReportWriter, JsonCarriesExactValuesAndJsonCellsAsJson) {
  const std::string text = render(Format::JSON, kColumns, two_rows);
  const nlohmann::json rows = nlohmann::json::parse(text);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["score"].get<double>(), 5.23e-5);
  EXPECT_EQ(rows[0]["extra"], nlohmann::json::parse("[1,2]"));
  EXPECT_EQ(rows[0]["at"], "2025-10-09T08:53:20.000000Z");
  EXPECT_TRUE(rows[1]["name"].is_null());
}

TEST(ReportWriter, JsonMembersFollowTheCellsInJsonFormatsOnly) {
  auto fill = [](Writer& w) { w.row({int64_t{7}}, std::nullopt, "", "\"runs\":[{\"run_id\":1}]"); };
  const std::vector<Column> one = {{"id", ColumnType::INT64}};
  EXPECT_EQ(render(Format::JSONL, one, fill), "{\"id\":7,\"runs\":[{\"run_id\":1}]}\n");
  EXPECT_EQ(render(Format::CSV, one, fill), "id\n7\n");
}

TEST(ReportWriter, ANoteIsShownOnceInTheFormatsPlace) {
  // 598 carries a reliability note in the registry.
  auto fill = [](Writer& w) {
    w.row({int64_t{1}}, 598, "nvfp4_dual_gemm");
    w.row({int64_t{2}}, 598, "nvfp4_dual_gemm");
  };
  const std::vector<Column> one = {{"id", ColumnType::INT64}};
  const std::string table = render(Format::TABLE, one, fill);
  EXPECT_EQ(table.rfind("note: nvfp4_dual_gemm (598): ", 0), 0u) << table;
  EXPECT_EQ(table.find("note:", 1), std::string::npos) << table;
  std::string notes;
  (void)render(Format::CSV, one, fill, &notes);
  EXPECT_EQ(notes.rfind("kbdata: note: nvfp4_dual_gemm (598): ", 0), 0u) << notes;
  EXPECT_EQ(notes.find("note:", 15), std::string::npos) << notes;
  const std::string jsonl = render(Format::JSONL, one, fill);
  for (const std::string& line :
       {jsonl.substr(0, jsonl.find('\n')), jsonl.substr(jsonl.find('\n') + 1)}) {
    if (!line.empty()) {
      EXPECT_TRUE(nlohmann::json::parse(line).contains("note")) << line;
    }
  }
}

TEST(ReportWriter, ACellOfTheWrongTypeIsABug) {
  EXPECT_THROW(render(Format::CSV, kColumns,
                      [](Writer& w) {
                        w.row({std::string("1"), Cell{}, Cell{}, Cell{}, Cell{}, Cell{}});
                      }),
               std::logic_error);
  EXPECT_THROW(render(Format::CSV, kColumns, [](Writer& w) { w.row({int64_t{1}}); }),
               std::logic_error);
}

TEST(ReportWriter, TableCellsFollowTheOneRule) {
  // Control characters and a bidirectional override are escaped, and the cell is cut at 40 code
  // points of output: the same text append_table_cell gives (kbdata cat's tables use it too).
  const std::string hostile = "evil\x1b[2J\r\xe2\x80\xae" + std::string(60, 'x');
  const std::string text =
      render(Format::TABLE, {{"name", ColumnType::STRING}}, [&](Writer& w) { w.row({hostile}); });
  std::string expected;
  (void)append_table_cell(expected, hostile, kTableCellWidth);
  EXPECT_NE(text.find("\n" + expected + "\n"), std::string::npos) << text;
  EXPECT_EQ(expected.find('\x1b'), std::string::npos);
  EXPECT_NE(expected.find("…"), std::string::npos);
}

// Every format goes to an output file when one is given, atomically: nothing at the path before
// finish(), nothing at all without it; Parquet alone needs one.
TEST(ReportWriter, EveryFormatGoesToAnOutputFileAtomically) {
  EXPECT_THROW(Writer(Format::PARQUET, kColumns, stdout, stderr, std::nullopt, "r", 1), UsageError);
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("kbdata-writer-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "out.csv").string();
  {
    Writer w(Format::CSV, kColumns, stdout, stderr, path, "test rows", 1);
    two_rows(w);
    EXPECT_FALSE(std::filesystem::exists(path));
    w.finish();
  }
  std::ifstream in(path);
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  EXPECT_EQ(text, render(Format::CSV, kColumns, two_rows));
  {
    Writer w(Format::JSON, kColumns, stdout, stderr, (dir / "never.json").string(), "r", 1);
    two_rows(w);
  }  // no finish(): an error on the way
  EXPECT_FALSE(std::filesystem::exists(dir / "never.json"));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir),
                          std::filesystem::directory_iterator()),
            1);  // out.csv, no temporary
  std::filesystem::remove_all(dir);
}

const std::vector<Column> kListColumns = {{"id", ColumnType::INT64},
                                          {"names", ColumnType::STRING, false, true},
                                          {"scores", ColumnType::SCORE, false, true}};

void list_rows(Writer& w) {
  w.row({int64_t{1}, List{std::string("a"), std::string("b")}, List{5.23e-5, 0.0125}});
  w.row({int64_t{2}, List{}, Cell{}});
  w.row({int64_t{3}, List{std::string("c"), Value{}}, List{Value{}}});
}

// A list column: its items joined by "," in a table and CSV, a JSON array, a Parquet LIST.
TEST(ReportWriter, ListColumnsInEveryFormat) {
  const std::string table = render(Format::TABLE, kListColumns, list_rows);
  EXPECT_NE(table.find(" 1  a,b     52.30 µs,12.500 ms\n"), std::string::npos) << table;
  EXPECT_NE(table.find("\n 2          null\n"), std::string::npos) << table;
  EXPECT_NE(table.find("\n 3  c,null  null\n"), std::string::npos) << table;
  EXPECT_EQ(render(Format::CSV, kListColumns, list_rows),
            "id,names,scores\n"
            "1,\"a,b\",\"5.23e-05,0.0125\"\n"
            "2,\"\",\n"  // an empty list is an empty text, a null list an empty field
            "3,\"c,null\",null\n");
  EXPECT_EQ(render(Format::JSONL, kListColumns, list_rows),
            "{\"id\":1,\"names\":[\"a\",\"b\"],\"scores\":[5.23e-05,0.0125]}\n"
            "{\"id\":2,\"names\":[],\"scores\":null}\n"
            "{\"id\":3,\"names\":[\"c\",null],\"scores\":[null]}\n");
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("kbdata-writer-list-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "lists.parquet").string();
  {
    Writer w(Format::PARQUET, kListColumns, stdout, stderr, path, "test rows", 2);
    list_rows(w);
    w.finish();
  }
  // Read back by kbdata's own reader, as a user would: the same rows as the JSON Lines.
  const kbdata::testing::Result back = kbdata::testing::run("cat " + path + " -f jsonl");
  EXPECT_EQ(back.exit_code, 0) << back.err;
  EXPECT_EQ(back.out, render(Format::JSONL, kListColumns, list_rows));
  std::filesystem::remove_all(dir);
}

// A result table written whole is byte for byte what the same calls one by one write: sections
// (an empty one too), rows, the notes of the leaderboards first seen, the summary lines.
TEST(ReportWriter, AResultTableIsWrittenAsItsRowsWouldBe) {
  const std::vector<Column> columns = {{"id", ColumnType::INT64}, {"name", ColumnType::STRING}};
  auto by_calls = [](Writer& w) {
    w.row({int64_t{0}, std::string("before any section")});
    w.section("first");
    w.leaderboard_shown(598, "nvfp4_dual_gemm");
    w.row({int64_t{1}, std::string("a")}, 597, "nvfp4_gemm");
    w.section("empty");
    w.section("third");
    w.row({int64_t{2}, Cell{}}, 598, "nvfp4_dual_gemm");
    w.section("last, empty");
    w.table_footer("a summary line");
  };
  for (Format format : {Format::TABLE, Format::CSV, Format::JSON, Format::JSONL}) {
    result::ResultTable table(columns, "test rows", 2);
    table.add_row({int64_t{0}, std::string("before any section")});
    table.section("first");
    table.leaderboard_shown(598, "nvfp4_dual_gemm");
    table.add_row({int64_t{1}, std::string("a")}, 597, "nvfp4_gemm");
    table.section("empty");
    table.section("third");
    table.add_row({int64_t{2}, Cell{}}, 598, "nvfp4_dual_gemm");
    table.section("last, empty");
    table.summary("a summary line");
    std::string notes_by_calls;
    std::string notes_by_table;
    const std::string expected = render(format, columns, by_calls, &notes_by_calls);
    const std::string got = render(
        format, columns, [&](Writer& w) { w.write(table); }, &notes_by_table);
    EXPECT_EQ(got, expected) << to_string(format);
    EXPECT_EQ(notes_by_table, notes_by_calls) << to_string(format);
  }
  result::ResultTable other({{"id", ColumnType::INT64}}, "r");
  EXPECT_THROW(render(Format::CSV, columns, [&](Writer& w) { w.write(other); }), std::logic_error);
}

// json_text is what --format json prints for the table (notes in the rows' objects), whatever
// else the table holds; rendered_text keeps what went to `out`, drops the notes and passes errors.
TEST(ReportWriter, JsonTextIsTheJsonFormatOfTheTable) {
  const std::vector<Column> columns = {{"id", ColumnType::INT64}, {"score", ColumnType::SCORE}};
  result::ResultTable table(columns, "test rows");
  table.section("first");
  table.add_row({int64_t{1}, 2.5e-05}, 598, "nvfp4_dual_gemm");
  table.add_row({int64_t{2}, Cell{}});
  table.summary("a line for people only");
  const std::string expected = render(Format::JSON, columns, [](Writer& w) {
    w.section("first");
    w.row({int64_t{1}, 2.5e-05}, 598, "nvfp4_dual_gemm");
    w.row({int64_t{2}, Cell{}});
  });
  EXPECT_EQ(json_text(table), expected);
  const nlohmann::json rows = nlohmann::json::parse(expected);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_TRUE(rows[0].contains("note"));
  EXPECT_EQ(rows[1]["score"], nullptr);
  result::ResultTable empty(columns, "test rows");
  EXPECT_EQ(nlohmann::json::parse(json_text(empty)), nlohmann::json::array());

  EXPECT_EQ(rendered_text([](std::FILE* out, std::FILE* notes) {
              std::fputs("kept", out);
              std::fputs("dropped", notes);
            }),
            "kept");
  EXPECT_THROW((void)rendered_text([](std::FILE*, std::FILE*) { throw IoError("disk"); }), IoError);
}

// A time for people: seconds, UTC, as every table shows them.
TEST(PeopleTimeText, SecondsInUtc) {
  EXPECT_EQ(people_time_text(1766022224458595), "2025-12-18 01:43:44");
  EXPECT_EQ(people_time_text(0), "1970-01-01 00:00:00");
}

TEST(OutputFormat, FormatElseExtensionElseDefault) {
  EXPECT_EQ(output_format("", std::nullopt), Format::TABLE);
  EXPECT_EQ(output_format("", std::nullopt, Format::JSONL), Format::JSONL);
  EXPECT_EQ(output_format("csv", std::nullopt), Format::CSV);
  EXPECT_EQ(output_format("", std::string("a/b.parquet")), Format::PARQUET);
  EXPECT_EQ(output_format("", std::string("B.CSV")), Format::CSV);
  EXPECT_EQ(output_format("", std::string("x.json")), Format::JSON);
  EXPECT_EQ(output_format("", std::string("x.jsonl")), Format::JSONL);
  EXPECT_EQ(output_format("", std::string("x.ndjson")), Format::JSONL);
  EXPECT_EQ(output_format("", std::string("x.txt")), Format::TABLE);
  EXPECT_EQ(output_format("", std::string(".csv")), Format::TABLE);  // a hidden name, no extension
  EXPECT_EQ(output_format("", std::string("dir.csv/x")), Format::TABLE);
  EXPECT_EQ(output_format("jsonl", std::string("x.txt")), Format::JSONL);
  EXPECT_EQ(output_format("csv", std::string("x.csv")), Format::CSV);
  EXPECT_THROW((void)output_format("csv", std::string("x.parquet")), UsageError);
  EXPECT_THROW((void)output_format("table", std::string("x.json")), UsageError);
  EXPECT_THROW((void)output_format("xml", std::nullopt), UsageError);
}

}  // namespace
}  // namespace kbdata::report
