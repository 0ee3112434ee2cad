// Valid corpus files without an oracle (DuckDB cannot read them and hyparquet has no copy), checked
// against the values their authors published. conformance_test decodes them too, but can only
// check that they decode cleanly; here each file is printed by the built binary
// (`kbdata cat FILE`, JSON lines) and compared with hand-written expectations:
//
//   file                                          expectations from
//   parquet-testing/hadoop_lz4_compressed         apache/arrow cpp/src/parquet/reader_test.cc
//   parquet-testing/non_hadoop_lz4_compressed       (TestCodec, LegacyLZ4Hadoop/NonHadoop) and
//   parquet-testing/hadoop_lz4_compressed_larger    apache/arrow-rs test_read_lz4_hadoop_*
//   duckdb/byte_stream_split                      duckdb/byte_stream_split.csv (every row)
//   parquet-testing/map_no_value                  parquet-testing/map_no_value.md
//   duckdb/empty-group/empty_group_test           the parquet-go program that wrote it
//   parquet-testing/large_string_map.brotli       parquet-testing/README.md ("Large string map")
//
// large_string_map holds two keys of 1 GiB each; it is read through the library
// (parquet::ColumnReader), not printed, so the test stays fast and small.
// (parquet-testing/README.md lists map_no_value.parquet but does not describe the LZ4 files; the
// LZ4 values are those that Arrow's own tests assert for these files.) duckdb/invalid*.parquet are
// covered by tests/hostile/invalid_utf8_test.cc. docs/conformance.md describes this test.
//
// Environment: KBDATA_CORPUS overrides the corpus location (default
// ${KBDATA_SOURCE_DIR}/../shared/parquet-corpus); a missing corpus skips, or fails when CI is set.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "parquet/column_reader.h"
#include "parquet/file_reader.h"
#include "parquet/schema.h"

namespace kbdata {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

bool env_flag(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return false;
  const std::string text = value;
  return !text.empty() && text != "0" && text != "false";
}

fs::path corpus_location() {
  const char* value = std::getenv("KBDATA_CORPUS");
  if (value != nullptr && *value != '\0') return value;
  return fs::path(KBDATA_SOURCE_DIR) / ".." / "shared" / "parquet-corpus";
}

std::optional<fs::path> corpus_root() {
  std::error_code ec;
  const fs::path root = corpus_location();
  if (!fs::is_directory(root, ec)) return std::nullopt;
  return fs::weakly_canonical(root, ec);
}

// Declares `root` (the corpus directory) or leaves the test: FAIL under CI, else GTEST_SKIP.
#define REQUIRE_CORPUS(root)                                                                       \
  const auto root = corpus_root();                                                                 \
  if (!root) {                                                                                     \
    if (env_flag("CI"))                                                                            \
      FAIL() << "the corpus must be present in CI; not found at " << corpus_location();            \
    GTEST_SKIP() << "Parquet corpus not found at " << corpus_location() << " (set KBDATA_CORPUS)"; \
  }

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (const char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out.push_back(c);
    }
  }
  return out + "'";
}

struct CatOutput {
  int exit_code = -1;
  std::vector<Json> rows;
};

// `kbdata cat FILE`: one JSON object per line.
CatOutput cat(const fs::path& file) {
  CatOutput result;
  const std::string command = shell_quote(KBDATA_BINARY) + " cat " + shell_quote(file.string());
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  std::string out;
  char buffer[65536];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
  const int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    if (!line.empty()) result.rows.push_back(Json::parse(line));
  }
  return result;
}

// Reads `relative` from the corpus with `kbdata cat`; asserts that it exists and exits 0.
#define CAT_CORPUS_FILE(out, root, relative)                                \
  const fs::path out##_path = *(root) / (relative);                         \
  ASSERT_TRUE(fs::is_regular_file(out##_path)) << out##_path << " missing"; \
  const CatOutput out = cat(out##_path);                                    \
  ASSERT_EQ(out.exit_code, 0) << "kbdata cat " << out##_path;

std::string base64(std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t v = (static_cast<uint8_t>(bytes[i]) << 16) |
                       (static_cast<uint8_t>(bytes[i + 1]) << 8) |
                       static_cast<uint8_t>(bytes[i + 2]);
    for (int shift = 18; shift >= 0; shift -= 6) out.push_back(kAlphabet[(v >> shift) & 63]);
  }
  const size_t rest = bytes.size() - i;
  if (rest > 0) {
    uint32_t v = static_cast<uint32_t>(static_cast<uint8_t>(bytes[i])) << 16;
    if (rest == 2) v |= static_cast<uint32_t>(static_cast<uint8_t>(bytes[i + 1])) << 8;
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(rest == 2 ? kAlphabet[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

std::vector<std::string> keys(const Json& object) {
  std::vector<std::string> out;
  for (const auto& item : object.items()) out.push_back(item.key());
  return out;
}

template <typename T>
T parse_number(std::string_view text) {
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  EXPECT_TRUE(ec == std::errc() && end == text.data() + text.size()) << "bad number " << text;
  return value;
}

// ----------------------------------------------------------------------------------------------
// Deprecated LZ4 codec (Hadoop framing from parquet-mr, raw LZ4 blocks from old parquet-cpp).
// Arrow's TestCodec.SmallFileMetadataAndValues (and arrow-rs test_read_lz4_hadoop_fallback) assert
// for both small files: 4 rows; c0 INT64 1593604800, 1593604800, 1593604801, 1593604801; c1
// BYTE_ARRAY "abc", "def", "abc", "def"; v11 DOUBLE 42.0, 7.7, 42.125, 7.7.

void check_small_lz4_file(const CatOutput& out) {
  ASSERT_EQ(out.rows.size(), 4u);
  const int64_t c0[] = {1593604800, 1593604800, 1593604801, 1593604801};
  const char* c1[] = {"abc", "def", "abc", "def"};
  const double v11[] = {42.0, 7.7, 42.125, 7.7};
  for (size_t i = 0; i < 4; ++i) {
    SCOPED_TRACE("row " + std::to_string(i) + ": " + out.rows[i].dump());
    const Json& row = out.rows[i];
    EXPECT_EQ(keys(row), (std::vector<std::string>{"c0", "c1", "v11"}));
    ASSERT_TRUE(row["c0"].is_number_integer());
    EXPECT_EQ(row["c0"].get<int64_t>(), c0[i]);
    // Unannotated BYTE_ARRAY: kbdata prints base64.
    EXPECT_EQ(row["c1"], base64(c1[i]));
    ASSERT_TRUE(row["v11"].is_number());
    EXPECT_EQ(row["v11"].get<double>(), v11[i]);
  }
}

TEST(DescribedFiles, HadoopLz4Compressed) {
  REQUIRE_CORPUS(root);
  CAT_CORPUS_FILE(out, root, "parquet-testing/hadoop_lz4_compressed.parquet");
  check_small_lz4_file(out);
}

TEST(DescribedFiles, NonHadoopLz4Compressed) {
  REQUIRE_CORPUS(root);
  CAT_CORPUS_FILE(out, root, "parquet-testing/non_hadoop_lz4_compressed.parquet");
  check_small_lz4_file(out);
}

// TestCodec.LargeFileValues / test_read_lz4_hadoop_large: one row group, 10000 rows, one column
// "a" (strings; a page compressed in several Hadoop frames, ARROW-9177); values 0, 1, 9998, 9999.
TEST(DescribedFiles, HadoopLz4CompressedLarger) {
  REQUIRE_CORPUS(root);
  CAT_CORPUS_FILE(out, root, "parquet-testing/hadoop_lz4_compressed_larger.parquet");
  const auto reader = parquet::FileReader::open(out_path.string());
  EXPECT_EQ(reader->num_rows(), 10000);
  EXPECT_EQ(reader->num_row_groups(), 1);
  ASSERT_EQ(out.rows.size(), 10000u);
  for (const Json& row : out.rows) {
    ASSERT_EQ(keys(row), std::vector<std::string>{"a"}) << row.dump();
    ASSERT_TRUE(row["a"].is_string()) << row.dump();
  }
  EXPECT_EQ(out.rows[0]["a"], "c7ce6bef-d5b0-4863-b199-8ea8c7fb117b");
  EXPECT_EQ(out.rows[1]["a"], "e8fb9197-cb9f-4118-b67f-fbfa65f61843");
  EXPECT_EQ(out.rows[9998]["a"], "ab52a0cc-c6bb-4d61-8a8f-166dc4b8b13c");
  EXPECT_EQ(out.rows[9999]["a"], "85440778-460a-41ac-aa2e-ac3ee41696bf");
}

// ----------------------------------------------------------------------------------------------
// BYTE_STREAM_SPLIT on FLOAT, DOUBLE, INT32 and INT64 (DuckDB refuses the integer columns). The
// CSV beside it: '|'-separated, quoted header, NULL for null. Floats are compared exactly after
// parsing the CSV text as the column's type (kbdata's shortest float text read back as float).

std::vector<std::string> split(const std::string& line, char separator) {
  std::vector<std::string> out;
  std::string field;
  for (const char c : line) {
    if (c == separator) {
      out.push_back(field);
      field.clear();
    } else if (c != '\r') {
      field.push_back(c);
    }
  }
  out.push_back(field);
  return out;
}

TEST(DescribedFiles, ByteStreamSplitMatchesCsv) {
  REQUIRE_CORPUS(root);
  CAT_CORPUS_FILE(out, root, "duckdb/byte_stream_split.parquet");
  std::ifstream csv(*root / "duckdb/byte_stream_split.csv");
  ASSERT_TRUE(csv) << "duckdb/byte_stream_split.csv missing";
  std::string line;
  ASSERT_TRUE(std::getline(csv, line));
  ASSERT_EQ(split(line, '|'), (std::vector<std::string>{"\"floats\"", "\"doubles\"", "\"ints\"",
                                                        "\"longs\"", "\"nullable_floats\""}));
  std::vector<std::vector<std::string>> records;
  while (std::getline(csv, line)) {
    if (!line.empty()) records.push_back(split(line, '|'));
  }
  ASSERT_EQ(records.size(), 100u);
  ASSERT_EQ(out.rows.size(), records.size());

  int nulls = 0;
  for (size_t i = 0; i < records.size(); ++i) {
    const auto& record = records[i];
    const Json& row = out.rows[i];
    SCOPED_TRACE("row " + std::to_string(i) + ": " + row.dump());
    ASSERT_EQ(record.size(), 5u);
    ASSERT_EQ(keys(row),
              (std::vector<std::string>{"floats", "doubles", "ints", "longs", "nullable_floats"}));
    ASSERT_TRUE(row["floats"].is_number());
    EXPECT_EQ(static_cast<float>(row["floats"].get<double>()), parse_number<float>(record[0]));
    ASSERT_TRUE(row["doubles"].is_number());
    EXPECT_EQ(row["doubles"].get<double>(), parse_number<double>(record[1]));
    ASSERT_TRUE(row["ints"].is_number_integer());
    EXPECT_EQ(row["ints"].get<int64_t>(), parse_number<int32_t>(record[2]));
    ASSERT_TRUE(row["longs"].is_number_integer());
    EXPECT_EQ(row["longs"].get<int64_t>(), parse_number<int64_t>(record[3]));
    if (record[4] == "NULL") {
      ++nulls;
      EXPECT_TRUE(row["nullable_floats"].is_null());
    } else {
      ASSERT_TRUE(row["nullable_floats"].is_number());
      EXPECT_EQ(static_cast<float>(row["nullable_floats"].get<double>()),
                parse_number<float>(record[4]));
    }
  }
  EXPECT_GT(nulls, 0) << "the CSV should hold nulls in nullable_floats";
}

// ----------------------------------------------------------------------------------------------
// map_no_value.md: my_map (MAP, OPTIONAL INT32 value, all null) is 3 rows {1 -> null, 2 -> null,
// 3 -> null}, {4..6}, {7..9}; my_map_no_v (MAP whose key_value has only the key) and my_list
// (LIST<INT32>) are [1, 2, 3], [4, 5, 6], [7, 8, 9]. kbdata prints a map as an array of
// {"key": k, "value": v}; an entry group without a second field has no "value".
TEST(DescribedFiles, MapNoValue) {
  REQUIRE_CORPUS(root);
  CAT_CORPUS_FILE(out, root, "parquet-testing/map_no_value.parquet");
  ASSERT_EQ(out.rows.size(), 3u);
  for (int r = 0; r < 3; ++r) {
    const Json& row = out.rows[static_cast<size_t>(r)];
    SCOPED_TRACE("row " + std::to_string(r) + ": " + row.dump());
    ASSERT_EQ(keys(row), (std::vector<std::string>{"my_map", "my_map_no_v", "my_list"}));
    Json map = Json::array();
    Json map_no_v = Json::array();
    Json list = Json::array();
    for (int k = 3 * r + 1; k <= 3 * r + 3; ++k) {
      map.push_back(Json{{"key", k}, {"value", nullptr}});
      map_no_v.push_back(Json{{"key", k}});
      list.push_back(k);
    }
    EXPECT_EQ(row["my_map"], map);
    EXPECT_EQ(row["my_map_no_v"], map_no_v);
    EXPECT_EQ(row["my_list"], list);
  }
}

// ----------------------------------------------------------------------------------------------
// empty_group_test.parquet, written by parquet-go from
//   message root { optional int64 id; optional group nested { optional group inner { } }
//                  optional int32 optional_data; }
// with one row {ID: 1, Nested: {Inner: {}}, OptionalData: 100}. A group with no leaves stores no
// data (no column chunk holds it), so kbdata leaves `nested` out of the output.
TEST(DescribedFiles, EmptyGroup) {
  REQUIRE_CORPUS(root);
  CAT_CORPUS_FILE(out, root, "duckdb/empty-group/empty_group_test.parquet");

  const auto reader = parquet::FileReader::open(out_path.string());
  EXPECT_EQ(reader->num_rows(), 1);
  const parquet::SchemaNode& schema = reader->schema().root();
  ASSERT_EQ(schema.children.size(), 3u);
  EXPECT_EQ(schema.children[0].name, "id");
  EXPECT_TRUE(schema.children[0].is_leaf);
  const parquet::SchemaNode& nested = schema.children[1];
  EXPECT_EQ(nested.name, "nested");
  EXPECT_FALSE(nested.is_leaf);
  EXPECT_EQ(nested.repetition, parquet::Repetition::OPTIONAL);
  ASSERT_EQ(nested.children.size(), 1u);
  EXPECT_EQ(nested.children[0].name, "inner");
  EXPECT_FALSE(nested.children[0].is_leaf);
  EXPECT_EQ(nested.children[0].repetition, parquet::Repetition::OPTIONAL);
  EXPECT_TRUE(nested.children[0].children.empty());
  EXPECT_EQ(schema.children[2].name, "optional_data");
  EXPECT_TRUE(schema.children[2].is_leaf);
  ASSERT_EQ(reader->schema().leaves().size(), 2u);
  EXPECT_EQ(reader->schema().leaves()[0].dotted_path, "id");
  EXPECT_EQ(reader->schema().leaves()[1].dotted_path, "optional_data");

  ASSERT_EQ(out.rows.size(), 1u);
  EXPECT_EQ(out.rows[0], Json::parse(R"({"id":1,"optional_data":100})"));
}

// ----------------------------------------------------------------------------------------------
// large_string_map.brotli.parquet, written by pyarrow (parquet-testing/README.md, "Large string
// map") from
//   arr = pa.array([[("a" * 2**30, 1)]], type = pa.map_(pa.string(), pa.int32()))
//   tab = pa.table({"arr": pa.chunked_array([arr, arr])})
// with BROTLI: two rows, each a map of one entry whose key is 2^30 bytes 'a' and whose value is
// 1. The key column's dictionary page holds that key once (1073741828 bytes with its length
// prefix); together the two keys make a column chunk of more than 2 GiB uncompressed.
TEST(DescribedFiles, LargeStringMap) {
  REQUIRE_CORPUS(root);
  const fs::path path = *root / "parquet-testing/large_string_map.brotli.parquet";
  ASSERT_TRUE(fs::is_regular_file(path)) << path << " missing";
  const auto reader = parquet::FileReader::open(path.string());
  EXPECT_EQ(reader->num_rows(), 2);
  const auto& leaves = reader->schema().leaves();
  ASSERT_EQ(leaves.size(), 2u);
  EXPECT_EQ(leaves[0].dotted_path, "arr.key_value.key");
  EXPECT_EQ(leaves[0].physical, parquet::PhysicalType::BYTE_ARRAY);
  EXPECT_EQ(leaves[1].dotted_path, "arr.key_value.value");
  EXPECT_EQ(leaves[1].physical, parquet::PhysicalType::INT32);

  constexpr size_t kKeyBytes = size_t{1} << 30;
  const std::string chunk_of_a(size_t{1} << 20, 'a');
  std::vector<int32_t> values;
  size_t keys = 0;
  parquet::ColumnBatch batch;
  for (int g = 0; g < reader->num_row_groups(); ++g) {
    auto key_column = reader->column(g, 0);
    // Asked for many records, the reader returns one at a time: a second 1 GiB key would take
    // the batch past the 1 GiB cap on values gathered from a dictionary.
    while (size_t records = key_column->read_records(16, batch)) {
      ASSERT_EQ(records, 1u);
      ASSERT_EQ(batch.num_levels, 1u);
      EXPECT_EQ(batch.rep_levels[0], 0);
      EXPECT_EQ(batch.def_levels[0], leaves[0].max_def);
      ASSERT_EQ(batch.values.count, 1u);
      const std::string_view key = batch.values.string(0);
      ASSERT_EQ(key.size(), kKeyBytes) << "key " << keys;
      EXPECT_EQ(key.front(), 'a');
      EXPECT_EQ(key.back(), 'a');
      bool all_a = true;
      for (size_t at = 0; at < key.size() && all_a; at += chunk_of_a.size()) {
        all_a = key.substr(at, chunk_of_a.size()) == chunk_of_a;
      }
      EXPECT_TRUE(all_a) << "key " << keys << " holds a byte other than 'a'";
      ++keys;
    }
    auto value_column = reader->column(g, 1);
    while (value_column->read_records(16, batch) > 0) {
      for (size_t i = 0; i < batch.values.count; ++i)
        values.push_back(batch.values.get<int32_t>(i));
    }
  }
  EXPECT_EQ(keys, 2u);
  EXPECT_EQ(values, (std::vector<int32_t>{1, 1}));
}

}  // namespace
}  // namespace kbdata
