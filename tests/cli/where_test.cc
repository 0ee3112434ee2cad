// `kbdata cat --where`, `--verify-checksums` and `inspect --pages`, run as a user would.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "support/run_kbdata.h"

namespace {

using kbdata::testing::data;
using kbdata::testing::read_file;
using kbdata::testing::Result;
using kbdata::testing::run;

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The expected rows of the fixture, as DuckDB read them.
nlohmann::json expected_rows() {
  return nlohmann::json::parse(read_file(data("expected/page_index.parquet.json")));
}

TEST(Where, RangeOnASortedColumn) {
  Result r = run("cat " + data("page_index.parquet") + " --where 'id >= 598' --where 'id < 602'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "{\"id\":598,\"name\":null,\"score\":299}\n"
            "{\"id\":599,\"name\":\"n059\",\"score\":299.5}\n"
            "{\"id\":600,\"name\":\"n060\",\"score\":300}\n"
            "{\"id\":601,\"name\":\"n060\",\"score\":300.5}\n");
}

TEST(Where, EveryOperatorAgreesWithTheExpectedRows) {
  nlohmann::json rows = expected_rows();
  struct Case {
    std::string where;
    std::function<bool(const nlohmann::json&)> keep;
  };
  auto score = [](const nlohmann::json& row) { return row["score"].get<double>(); };
  std::vector<Case> cases = {
      {"--where 'name = n042'", [](const nlohmann::json& row) { return row["name"] == "n042"; }},
      {"--where 'name != n042' --where 'id < 450'",
       [](const nlohmann::json& row) {
         return !row["name"].is_null() && row["name"] != "n042" &&
                std::stoll(row["id"].get<std::string>()) < 450;
       }},
      {"--where 'score <= 30'",
       [&](const nlohmann::json& row) { return !row["score"].is_null() && score(row) <= 30; }},
      {"--where 'score > 480.5'",
       [&](const nlohmann::json& row) { return !row["score"].is_null() && score(row) > 480.5; }},
      {"--where 'score is null' --where 'name is not null'",
       [](const nlohmann::json& row) { return row["score"].is_null() && !row["name"].is_null(); }},
      {"--where 'name IS NULL' --where 'id>=990'",
       [](const nlohmann::json& row) {
         return row["name"].is_null() && std::stoll(row["id"].get<std::string>()) >= 990;
       }},
  };
  for (const auto& c : cases) {
    Result r = run("cat " + data("page_index.parquet") + " --columns id " + c.where);
    ASSERT_EQ(r.exit_code, 0) << c.where << ": " << r.err;
    std::vector<std::string> want;
    for (const auto& row : rows) {
      if (c.keep(row)) want.push_back("{\"id\":" + row["id"].get<std::string>() + "}");
    }
    EXPECT_EQ(lines(r.out), want) << c.where;
    EXPECT_FALSE(want.empty()) << c.where;
  }
}

TEST(Where, DictionaryColumnsWrittenByDuckDB) {
  // DuckDB's dictionary pages (PLAIN_DICTIONARY in v1 pages, RLE_DICTIONARY in v2 pages, nulls
  // among them): each condition is decided on the dictionary's entries, then on the rows' indices;
  // the rows kept must be those of DuckDB's own reading that satisfy it.
  struct Case {
    std::string file;
    std::string where;
    std::function<bool(const nlohmann::json&)> keep;
  };
  auto text = [](const nlohmann::json& v) { return v.is_null() ? std::string() : v.dump(); };
  const std::vector<Case> cases = {
      {"dictionary.parquet", "--where 'problem = nvfp4_gemm'",
       [](const nlohmann::json& r) { return r["problem"] == "nvfp4_gemm"; }},
      {"dictionary.parquet", "--where \"problem = ''\" --where 'fraction is not null'",
       [](const nlohmann::json& r) { return r["problem"] == "" && !r["fraction"].is_null(); }},
      {"dictionary.parquet", "--where 'bucket >= 300' --where 'fraction < 0.25'",
       [](const nlohmann::json& r) {
         return !r["bucket"].is_null() && std::stoll(r["bucket"].get<std::string>()) >= 300 &&
                !r["fraction"].is_null() && r["fraction"].get<double>() < 0.25;
       }},
      {"v2_dictionary.parquet", "--where 'name = gemm' --where 'even = true'",
       [](const nlohmann::json& r) { return r["name"] == "gemm" && r["even"] == true; }},
      {"v2_dictionary.parquet", "--where 'big_int > 3000000000000' --where 'quarter is null'",
       [](const nlohmann::json& r) {
         return std::stoll(r["big_int"].get<std::string>()) > 3000000000000LL &&
                r["quarter"].is_null();
       }},
  };
  for (const Case& c : cases) {
    const nlohmann::json rows =
        nlohmann::json::parse(read_file(data("expected/" + c.file + ".json")));
    Result r = run("cat " + data(c.file) + " --columns " +
                   (c.file == "dictionary.parquet" ? "id" : "small_int,name") + " " + c.where);
    ASSERT_EQ(r.exit_code, 0) << c.where << ": " << r.err;
    std::vector<std::string> want, got;
    for (const auto& row : rows) {
      if (!c.keep(row)) continue;
      want.push_back(c.file == "dictionary.parquet"
                         ? text(row["id"])
                         : text(row["small_int"]) + " " + text(row["name"]));
    }
    for (const std::string& line : lines(r.out)) {
      const nlohmann::json row = nlohmann::json::parse(line);
      got.push_back(c.file == "dictionary.parquet"
                        ? text(row["id"])
                        : text(row["small_int"]) + " " + text(row["name"]));
    }
    EXPECT_FALSE(want.empty()) << c.file << " " << c.where;
    EXPECT_EQ(got, want) << c.file << " " << c.where;
  }
}

TEST(Where, OffsetAndLimitCountMatchingRows) {
  Result r = run("cat " + data("page_index.parquet") +
                 " -c id --where 'name = n061' --offset 2 --limit 3 --format csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "id\n613\n614\n615\n");  // 612 is null (612 % 7 == 3)
}

TEST(Where, FileWithoutPageIndexFiltersToo) {
  Result r = run("cat " + data("row_groups.parquet") + " --columns id,grp --where 'id = 2048'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "{\"id\":2048,\"grp\":\"a\"}\n");
}

TEST(Where, BadConditionsAreUsageErrors) {
  for (const char* where : {"'nope = 1'", "'id ~ 3'", "'id = abc'", "'id'", "'score = x'"}) {
    Result r = run("cat " + data("page_index.parquet") + " --where " + std::string(where));
    EXPECT_EQ(r.exit_code, 2) << where << ": " << r.err;
    EXPECT_EQ(r.out, "") << where;
    EXPECT_NE(r.err.find("--where"), std::string::npos) << r.err;
  }
}

TEST(VerifyChecksums, ShippedFixturePasses) {
  Result r = run("cat " + data("page_index.parquet") + " --verify-checksums -c id");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(lines(r.out).size(), 1000u);
}

TEST(VerifyChecksums, CorruptCorpusFileFailsOnlyUnderTheFlag) {
  const char* env = std::getenv("KBDATA_CORPUS");
  std::string root = env ? env : std::string(KBDATA_SOURCE_DIR) + "/../shared/parquet-corpus";
  std::string path = root + "/parquet-testing/datapage_v1-corrupt-checksum.parquet";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "corpus not found";
  Result plain = run("cat " + path + " --limit 1");
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  Result checked = run("cat " + path + " --verify-checksums");
  EXPECT_EQ(checked.exit_code, 1);
  EXPECT_NE(checked.err.find("page checksum mismatch (stored 0x"), std::string::npos)
      << checked.err;
}

TEST(InspectPages, TextShowsIndexAndPageTable) {
  Result r = run("inspect " + data("page_index.parquet"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("column+offset, 12 pages"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("pages of row group"), std::string::npos);
  Result pages = run("inspect --pages " + data("page_index.parquet"));
  ASSERT_EQ(pages.exit_code, 0) << pages.err;
  EXPECT_NE(pages.out.find("pages of row group 0, column score (boundary order ASCENDING):"),
            std::string::npos)
      << pages.out;
  EXPECT_NE(pages.out.find("page  first row  rows  offset  compressed  null page  nulls  min"),
            std::string::npos)
      << pages.out;
}

TEST(InspectPages, JsonListsThePages) {
  Result r = run("inspect --json " + data("page_index.parquet"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  const auto& score = j["row_groups"][0]["columns"][2];
  ASSERT_EQ(score["path"], "score");
  const auto& index = score["page_index"];
  EXPECT_EQ(index["column_index"], true);
  EXPECT_EQ(index["offset_index"], true);
  ASSERT_EQ(index["pages"].size(), 12u);
  const auto& page2 = index["pages"][2];
  EXPECT_EQ(page2["first_row"], 100);
  EXPECT_EQ(page2["rows"], 50);
  EXPECT_EQ(page2["null_page"], true);
  EXPECT_EQ(page2["null_count"], 50);
  EXPECT_TRUE(page2["min"].is_null());
  EXPECT_EQ(index["pages"][3]["min"], "75");
  Result plain = run("inspect --json " + data("row_groups.parquet"));
  EXPECT_FALSE(
      nlohmann::json::parse(plain.out)["row_groups"][0]["columns"][0].contains("page_index"));
}

TEST(Inspect, CorruptPageIndexIsReportedAndTheRestShown) {
  auto meta = nlohmann::json::parse(run("inspect --json " + data("page_index.parquet")).out);
  const auto& chunk = meta["row_groups"][0]["columns"][0];
  ASSERT_TRUE(chunk.contains("column_index_offset"));
  const size_t offset = chunk["column_index_offset"].get<size_t>();
  std::string bytes = read_file(data("page_index.parquet"));
  for (size_t i = offset; i < offset + 8 && i < bytes.size(); ++i) bytes[i] = '\xff';
  std::string path = std::filesystem::temp_directory_path() /
                     ("kbdata-bad-index-" + std::to_string(::getpid()) + ".parquet");
  std::ofstream(path, std::ios::binary) << bytes;
  Result text = run("inspect " + path);
  Result json = run("inspect --json " + path);
  Result rows = run("cat " + path + " --limit 2");
  std::filesystem::remove(path);
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("unreadable"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("page index of row group 0, column "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("row group 1:"), std::string::npos);  // the rest is still shown
  ASSERT_EQ(json.exit_code, 0) << json.err;
  auto j = nlohmann::json::parse(json.out);
  EXPECT_TRUE(j["row_groups"][0]["columns"][0]["page_index"].contains("error"));
  EXPECT_EQ(rows.exit_code, 0) << rows.err;  // reading rows does not need the index
}

}  // namespace
