// Runs the kbdata binary as a user would and checks its output and exit codes.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "support/run_kbdata.h"

namespace {

using kbdata::testing::data;
using kbdata::testing::read_file;
using kbdata::testing::Result;
using kbdata::testing::run;

TEST(Cat, JsonlRowsAcrossRowGroupsWithOffsetAndLimit) {
  Result r = run("cat " + data("row_groups.parquet") + " --columns id,grp --offset 2047 --limit 3");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "{\"id\":2047,\"grp\":\"d\"}\n"
            "{\"id\":2048,\"grp\":\"a\"}\n"
            "{\"id\":2049,\"grp\":\"b\"}\n");
}

TEST(Cat, OffsetPastTheEndPrintsNothing) {
  Result r = run("cat " + data("row_groups.parquet") + " --offset 100000");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(Cat, CsvHasAHeaderAndEmptyFieldsForNull) {
  Result r =
      run("cat " + data("row_groups.parquet") + " --columns id,half --limit 11 --format csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(r.out);
  std::string header;
  std::getline(lines, header);
  EXPECT_EQ(header, "id,half");
  size_t rows = 0, nulls = 0;
  for (std::string line; std::getline(lines, line);) {
    ++rows;
    if (line.back() == ',') ++nulls;
  }
  EXPECT_EQ(rows, 11u);
  EXPECT_GT(nulls, 0u);
}

TEST(Cat, TableEndsWithTheRowCount) {
  Result r = run("cat " + data("row_groups.parquet") + " --limit 4 --format table");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("id"), std::string::npos);
  EXPECT_NE(r.out.find("(4 rows)"), std::string::npos);
}

TEST(Cat, AllRowsOfEveryColumnByDefault) {
  Result r = run("cat " + data("row_groups.parquet"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  size_t lines = 0;
  for (char c : r.out) lines += c == '\n';
  EXPECT_EQ(lines, 4200u);
  auto first = nlohmann::json::parse(r.out.substr(0, r.out.find('\n')));
  EXPECT_EQ(first.size(), 3u);
  EXPECT_EQ(first["id"], 0);
}

TEST(CatNested, ProjectionKeepsTheSelectedLeafUnderItsTopLevelField) {
  Result r =
      run("cat " + data("nested_structs.parquet") + " --columns run_meta.duration --limit 3");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "{\"run_meta\":null}\n"
            "{\"run_meta\":{\"duration\":\"1.5\"}}\n"
            "{\"run_meta\":{\"duration\":\"3.0\"}}\n");
}

TEST(CatNested, GroupPathsSelectEveryLeafBelowInTheOrderOfFirstSelection) {
  Result r = run("cat " + data("nested_structs.parquet") +
                 " --columns struct_of_lists.tags,id,run_meta --limit 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "{\"struct_of_lists\":{\"tags\":[\"a\",\"b\"]},\"id\":0,\"run_meta\":null}\n"
            "{\"struct_of_lists\":{\"tags\":[]},\"id\":1,\"run_meta\":{\"duration\":\"1.5\","
            "\"name\":\"run1\",\"inner\":{\"x\":1,\"y\":null}}}\n");
}

TEST(CatNested, NullEmptyAndNullElementListsDifferAcrossRowGroups) {
  Result r = run("cat " + data("nested_lists.parquet") + " --columns ints --limit 4");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "{\"ints\":null}\n{\"ints\":[]}\n{\"ints\":[null]}\n{\"ints\":[3,null,6]}\n");
  // The offset skips rows (not level entries) and crosses the first row group (2048 rows).
  r = run("cat " + data("nested_lists.parquet") +
          " --columns ints,list_of_lists --offset 2047 --limit 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "{\"ints\":[2047,null,4094],\"list_of_lists\":[null,[\"a\"]]}\n"
            "{\"ints\":[2048,null,4096],\"list_of_lists\":[[\"x2048\",null],[],[\"y\"]]}\n");
  r = run("cat " + data("nested_lists.parquet") +
          " --columns list_of_structs.list.element.b --limit 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "{\"list_of_structs\":null}\n"
            "{\"list_of_structs\":[{\"b\":\"s1\"},null,{\"b\":null}]}\n");
}

TEST(CatNested, MapsAreArraysOfKeyValueObjectsAndCellsHoldJson) {
  Result r = run("cat " + data("nested_maps.parquet") + " --limit 3 --format csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "id,m,map_of_lists\n"
            "0,,\"[{\"\"key\"\":0,\"\"value\"\":[0,1]}]\"\n"
            "1,[],\"[{\"\"key\"\":1,\"\"value\"\":[1,2]}]\"\n"
            "2,\"[{\"\"key\"\":\"\"k2\"\",\"\"value\"\":2},"
            "{\"\"key\"\":\"\"z\"\",\"\"value\"\":null}]\","
            "\"[{\"\"key\"\":2,\"\"value\"\":[2,3]}]\"\n");
  r = run("cat " + data("nested_maps.parquet") + " --columns m --limit 2 --format table");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "m\n----\nnull\n[]\n(2 rows)\n");
}

TEST(CatNested, EveryRowMatchesTheDuckDbOracle) {
  for (const char* name :
       {"nested_structs.parquet", "nested_lists.parquet", "nested_maps.parquet"}) {
    Result r = run(std::string("cat ") + data(name));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto expected =
        nlohmann::json::parse(read_file(data(std::string("expected/") + name + ".json")));
    std::istringstream lines(r.out);
    size_t rows = 0;
    for (std::string line; std::getline(lines, line); ++rows) {
      ASSERT_LT(rows, expected.size()) << name;
      // DuckDB writes BIGINT and DECIMAL as strings; compare their texts.
      std::string ours = nlohmann::json::parse(line).dump();
      std::string theirs = expected[rows].dump();
      ours.erase(std::remove(ours.begin(), ours.end(), '"'), ours.end());
      theirs.erase(std::remove(theirs.begin(), theirs.end(), '"'), theirs.end());
      EXPECT_EQ(ours, theirs) << name << " row " << rows;
    }
    EXPECT_EQ(rows, expected.size()) << name;
  }
}

TEST(CatNested, UnknownPathListsTheTopLevelFields) {
  Result r = run("cat " + data("nested_maps.parquet") + " --columns m.nope");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no column 'm.nope' (the columns: id, m, map_of_lists)"), std::string::npos)
      << r.err;
}

TEST(Inspect, TextShowsSchemaRowGroupsAndChunks) {
  Result r = run("inspect " + data("row_groups.parquet"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("rows:        4200 in 3 row groups"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("optional byte_array grp (STRING);"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("row group 2: 104 rows"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("SNAPPY"), std::string::npos);
}

TEST(Inspect, JsonDescribesEveryChunk) {
  Result r = run("inspect --json " + data("row_groups.parquet"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["num_rows"], 4200);
  ASSERT_EQ(j["row_groups"].size(), 3u);
  const auto& chunk = j["row_groups"][0]["columns"][0];
  EXPECT_EQ(chunk["path"], "id");
  EXPECT_EQ(chunk["codec"], "SNAPPY");
  EXPECT_EQ(chunk["statistics"]["min"], "0");
  EXPECT_EQ(chunk["statistics"]["max"], "2047");
  EXPECT_EQ(j["columns"][1]["logical_type"], "STRING");
}

TEST(Errors, UnknownColumnIsAUsageErrorListingTheColumns) {
  Result r = run("cat " + data("row_groups.parquet") + " --columns nope");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("no column 'nope' (the columns: id, grp, half)"), std::string::npos)
      << r.err;
}

TEST(Errors, MissingFileNamesThePath) {
  Result r = run("cat /nonexistent/file.parquet");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "kbdata: /nonexistent/file.parquet: cannot open: No such file or directory\n");
}

TEST(Errors, NotParquetIsOneLineNamingTheFile) {
  std::string path = data("expected/types.parquet.json");
  Result r = run("inspect " + path);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "kbdata: " + path +
                ": byte 0: not a Parquet file: it does not start with the magic bytes PAR1\n");
}

TEST(Errors, TruncatedFileIsAnErrorNotACrash) {
  std::string original = read_file(data("types.parquet"));
  std::string path = std::filesystem::temp_directory_path() /
                     ("kbdata-truncated-" + std::to_string(::getpid()) + ".parquet");
  std::ofstream(path, std::ios::binary) << original.substr(0, original.size() / 2) + "PAR1";
  Result r = run("cat " + path);
  std::filesystem::remove(path);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err.rfind("kbdata: " + path + ": ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
}

TEST(Errors, BadFlagsAreUsageErrors) {
  EXPECT_EQ(run("cat " + data("types.parquet") + " --format xml").exit_code, 2);
  EXPECT_EQ(run("cat " + data("types.parquet") + " --limit -3").exit_code, 2);
  EXPECT_EQ(run("frobnicate").exit_code, 2);
}

TEST(Help, NoArgumentsPrintsTheHelpAndSucceeds) {
  // As cargo: `kbdata` alone is a request for the help (docs/cli.md).
  Result r = run("");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("Subcommands:"), std::string::npos) << r.out;
}

TEST(Help, ListsTheCommandsAndOptions) {
  Result r = run("--help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("inspect"), std::string::npos);
  EXPECT_NE(r.out.find("cat"), std::string::npos);
  Result cat = run("cat --help");
  EXPECT_NE(cat.out.find("--columns"), std::string::npos);
  EXPECT_NE(cat.out.find("--format"), std::string::npos);
}

}  // namespace
