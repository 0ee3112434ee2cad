// The model reads every column type a real writer (pyarrow, pandas, DuckDB, polars) produces for
// the flat and legacy families, and refuses anything else by name: a value it does not understand
// is an error naming the file, the column and the row, never a 0 or an "" (docs/data-model.md,
// "Accepted column types"). Each case rewrites one column of a canonical file in another type and
// checks the loaded model equals the canonical load.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <set>

#include "common/error.h"
#include "common/file.h"
#include "dataset/loader.h"
#include "dataset/run_result.h"
#include "parquet/file_reader.h"
#include "parquet/write/file_writer.h"

namespace kbdata::dataset {
namespace {

using parquet::LogicalType;
using parquet::PhysicalType;
using Kind = parquet::LogicalType::Kind;

// One column of a test file: its schema element and each row's raw value (nullopt: null). Fixed
// types hold their little-endian bytes; BYTE_ARRAY the bytes themselves.
struct TestColumn {
  parquet::SchemaElement element;
  std::vector<std::optional<std::vector<uint8_t>>> values;
};

template <typename T>
std::vector<uint8_t> raw(T v) {
  std::vector<uint8_t> out(sizeof(T));
  std::memcpy(out.data(), &v, sizeof(T));
  return out;
}

std::vector<uint8_t> raw_text(const std::string& text) {
  return std::vector<uint8_t>(text.begin(), text.end());
}

parquet::SchemaElement element(const std::string& name, PhysicalType type,
                               std::optional<LogicalType> logical = std::nullopt) {
  parquet::SchemaElement e;
  e.name = name;
  e.type = type;
  e.repetition_type = parquet::Repetition::OPTIONAL;
  e.logical_type = logical;
  if (logical && logical->kind == Kind::DECIMAL) {
    e.scale = logical->decimal_scale;
    e.precision = logical->decimal_precision;
  }
  return e;
}

LogicalType logical(Kind kind) {
  LogicalType t;
  t.kind = kind;
  return t;
}
LogicalType integer_type(int bits, bool is_signed) {
  LogicalType t = logical(Kind::INTEGER);
  t.bit_width = static_cast<int8_t>(bits);
  t.is_signed = is_signed;
  return t;
}
LogicalType decimal_type(int precision, int scale) {
  LogicalType t = logical(Kind::DECIMAL);
  t.decimal_precision = precision;
  t.decimal_scale = scale;
  return t;
}
LogicalType timestamp_type(parquet::TimeUnit unit, bool utc) {
  LogicalType t = logical(Kind::TIMESTAMP);
  t.unit = unit;
  t.is_adjusted_to_utc = utc;
  return t;
}

template <typename T, typename F>
TestColumn column(const std::string& name, PhysicalType type, std::optional<LogicalType> lt,
                  const std::vector<std::optional<T>>& values, F encode) {
  TestColumn c{element(name, type, lt), {}};
  if (type == PhysicalType::FIXED_LEN_BYTE_ARRAY) c.element.type_length = 16;
  for (const auto& v : values) {
    if (v) {
      c.values.push_back(encode(*v));
    } else {
      c.values.push_back(std::nullopt);
    }
  }
  return c;
}

TestColumn i64s(const std::string& name, const std::vector<std::optional<int64_t>>& v,
                std::optional<LogicalType> lt = std::nullopt) {
  return column(name, PhysicalType::INT64, lt, v, [](int64_t x) { return raw(x); });
}
TestColumn i32s(const std::string& name, const std::vector<std::optional<int64_t>>& v,
                std::optional<LogicalType> lt = std::nullopt) {
  return column(name, PhysicalType::INT32, lt, v,
                [](int64_t x) { return raw(static_cast<int32_t>(static_cast<uint32_t>(x))); });
}
TestColumn f64s(const std::string& name, const std::vector<std::optional<double>>& v) {
  return column(name, PhysicalType::DOUBLE, std::nullopt, v, [](double x) { return raw(x); });
}
TestColumn f32s(const std::string& name, const std::vector<std::optional<double>>& v) {
  return column(name, PhysicalType::FLOAT, std::nullopt, v,
                [](double x) { return raw(static_cast<float>(x)); });
}
TestColumn bools(const std::string& name, const std::vector<std::optional<bool>>& v) {
  return column(name, PhysicalType::BOOLEAN, std::nullopt, v,
                [](bool x) { return std::vector<uint8_t>{static_cast<uint8_t>(x ? 1 : 0)}; });
}
TestColumn strings(const std::string& name, const std::vector<std::optional<std::string>>& v,
                   std::optional<LogicalType> lt = logical(Kind::STRING)) {
  return column(name, PhysicalType::BYTE_ARRAY, lt, v,
                [](const std::string& x) { return std::vector<uint8_t>(x.begin(), x.end()); });
}
// DECIMAL(38, scale) in a 16-byte FIXED_LEN_BYTE_ARRAY (big-endian two's complement), as pyarrow
// writes decimal128: `unscaled` is the stored integer.
TestColumn decimal128s(const std::string& name, const std::vector<std::optional<int64_t>>& unscaled,
                       int scale) {
  return column(name, PhysicalType::FIXED_LEN_BYTE_ARRAY, decimal_type(38, scale), unscaled,
                [](int64_t x) {
                  std::vector<uint8_t> out(16, x < 0 ? 0xFF : 0x00);
                  for (int k = 0; k < 8; ++k) out[15 - k] = static_cast<uint8_t>(x >> (8 * k));
                  return out;
                });
}
// INT96 timestamps (nanoseconds of the day, Julian day), as Spark and old pyarrow write them.
TestColumn int96s(const std::string& name, const std::vector<std::optional<int64_t>>& micros) {
  return column(name, PhysicalType::INT96, std::nullopt, micros, [](int64_t us) {
    const int64_t day = us / 86'400'000'000LL;
    const int64_t nanos = (us % 86'400'000'000LL) * 1000;
    const uint32_t julian = static_cast<uint32_t>(day + 2440588);
    std::vector<uint8_t> out(12);
    std::memcpy(out.data(), &nanos, 8);
    std::memcpy(out.data() + 8, &julian, 4);
    return out;
  });
}

std::vector<uint8_t> write_file(const std::vector<TestColumn>& columns) {
  std::vector<parquet::SchemaElement> schema(1);
  schema[0].name = "schema";
  schema[0].num_children = static_cast<int32_t>(columns.size());
  for (const TestColumn& c : columns) schema.push_back(c.element);
  MemorySink sink;
  parquet::FileWriter writer(sink, schema, {});
  std::vector<parquet::ColumnBatch> batches;
  for (const auto& leaf : writer.schema().leaves()) {
    parquet::ColumnBatch b;
    b.values = parquet::ValueBuffer::for_type(leaf.physical, leaf.type_length);
    batches.push_back(std::move(b));
  }
  for (size_t c = 0; c < columns.size(); ++c) {
    parquet::ColumnBatch& b = batches[c];
    for (const auto& v : columns[c].values) {
      ++b.num_levels;
      b.def_levels.push_back(v ? 1 : 0);
      if (!v) continue;
      if (b.values.is_binary()) {
        b.values.append_binary({v->data(), v->size()});
      } else {
        b.values.data.insert(b.values.data.end(), v->begin(), v->end());
        ++b.values.count;
      }
    }
  }
  writer.write(batches);
  writer.close();
  return sink.take();
}

constexpr int64_t kT0 = 1'760'000'000'000'000;  // µs UTC

// The canonical flat file: the types of docs/dataset.md §4.1, four rows, a null file_name in row 1.
std::map<std::string, TestColumn> canonical_flat() {
  std::map<std::string, TestColumn> c;
  auto add = [&](TestColumn col) { c.emplace(col.element.name, std::move(col)); };
  add(i64s("submission_id", {11, 12, 13, 14}));
  add(i64s("leaderboard_id", {595, 595, 595, 597}));
  add(strings("problem_name", {"nvfp4_gemv", "nvfp4_gemv", "nvfp4_gemv", "nvfp4_gemm"}));
  add(strings("user_id", {"101", "102", "101", "103"}));
  add(strings("user_name", {"ann", "bob", "ann", std::nullopt}));
  add(i64s("code_id", {501, 502, 501, 9'007'199'254'740'993}));  // 2^53 + 1: exact
  add(strings("file_name", {"a.py", std::nullopt, "c.py", "d.cu"}));
  add(i64s("submission_time", {kT0, kT0 + 1'000'001, kT0 + 2'000'000, kT0 + 3'000'000},
           timestamp_type(parquet::TimeUnit::MICROS, true)));
  add(strings("status", {"succeeded", "succeeded", "failed", "succeeded"}));
  add(f64s("score", {0.001, 0.002, std::nullopt, 0.0015}));
  add(bools("passed", {true, true, false, true}));
  add(strings("mode", {"leaderboard", "leaderboard", std::nullopt, "leaderboard"}));
  add(strings("runner", {"B200", "B200", std::nullopt, "B200"}));
  add(strings("code", {"print(1)", "print(2)", "print(3)", "print(4)"}));
  return c;
}

const std::vector<std::string> kFlatOrder = {
    "submission_id", "leaderboard_id", "problem_name",    "user_id", "user_name",
    "code_id",       "file_name",      "submission_time", "status",  "score",
    "passed",        "mode",           "runner",          "code"};

// The canonical file with `replaced` columns swapped in and `dropped` ones left out.
std::vector<uint8_t> flat_variant(const std::vector<TestColumn>& replaced,
                                  const std::set<std::string>& dropped = {}) {
  std::map<std::string, TestColumn> c = canonical_flat();
  for (const TestColumn& r : replaced) c.insert_or_assign(r.element.name, r);
  std::vector<TestColumn> ordered;
  for (const std::string& name : kFlatOrder) {
    if (dropped.count(name) == 0) ordered.push_back(c.at(name));
  }
  return write_file(ordered);
}

std::vector<Submission> load(const std::vector<uint8_t>& bytes, SchemaFamily family,
                             LoadOptions options = {}) {
  MemoryFile memory("fixture.parquet", bytes);
  auto reader = parquet::FileReader::open(std::make_unique<MemoryFile>(memory));
  std::vector<Submission> out;
  LoadStats stats;
  load_file(
      *reader, family, options, [&](Submission&& s) { out.push_back(std::move(s)); }, stats);
  return out;
}

LoadOptions with_code() {
  LoadOptions o;
  o.with_code = true;
  return o;
}

void expect_same(const std::vector<Submission>& a, const std::vector<Submission>& b,
                 const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t i = 0; i < a.size(); ++i) {
    const Submission& x = a[i];
    const Submission& y = b[i];
    EXPECT_EQ(x.submission_id, y.submission_id) << what << " row " << i;
    EXPECT_EQ(x.leaderboard_id, y.leaderboard_id) << what << " row " << i;
    EXPECT_EQ(x.problem_name, y.problem_name) << what << " row " << i;
    EXPECT_EQ(x.user_id, y.user_id) << what << " row " << i;
    EXPECT_EQ(x.user_name, y.user_name) << what << " row " << i;
    EXPECT_EQ(x.code_id, y.code_id) << what << " row " << i;
    EXPECT_EQ(x.file_name, y.file_name) << what << " row " << i;
    EXPECT_EQ(x.submission_time, y.submission_time) << what << " row " << i;
    EXPECT_EQ(x.status, y.status) << what << " row " << i;
    EXPECT_EQ(x.score, y.score) << what << " row " << i;
    EXPECT_EQ(x.passed, y.passed) << what << " row " << i;
    EXPECT_EQ(x.mode, y.mode) << what << " row " << i;
    EXPECT_EQ(x.runner, y.runner) << what << " row " << i;
    EXPECT_EQ(x.code, y.code) << what << " row " << i;
  }
}

// The message of the error loading `bytes` throws, or "" when it loads.
std::string load_error(const std::vector<uint8_t>& bytes, SchemaFamily family = SchemaFamily::FLAT,
                       LoadOptions options = {}) {
  try {
    (void)load(bytes, family, options);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

void expect_contains(const std::string& text, const std::vector<std::string>& parts) {
  for (const std::string& p : parts) {
    EXPECT_NE(text.find(p), std::string::npos) << "'" << p << "' not in: " << text;
  }
}

TEST(FlatColumnTypes, CanonicalFileLoadsAsWritten) {
  std::vector<Submission> rows = load(flat_variant({}), SchemaFamily::FLAT, with_code());
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[3].code_id, 9'007'199'254'740'993);
  EXPECT_EQ(rows[0].file_name, "a.py");
  EXPECT_FALSE(rows[1].file_name);  // a null stays null (issue 15 item 13)
  EXPECT_EQ(rows[1].submission_time, kT0 + 1'000'001);
}

// Issue 16 §2: pandas writes an integer column holding a null as DOUBLE; it was read as code_id 0
// for every row, and dedup --exact then merged them.
TEST(FlatColumnTypes, DoubleIdsHoldingIntegersReadAsTheIntegers) {
  const auto variant = load(flat_variant({f64s("code_id", {501, 502, 501, 9.007199254740992e15}),
                                          f64s("submission_id", {11, 12, 13, 14}),
                                          f32s("leaderboard_id", {595, 595, 595, 597})}),
                            SchemaFamily::FLAT, with_code());
  ASSERT_EQ(variant.size(), 4u);
  EXPECT_EQ(variant[0].code_id, 501);
  EXPECT_EQ(variant[1].code_id, 502);
  EXPECT_EQ(variant[3].code_id, 9'007'199'254'740'992);
  EXPECT_EQ(variant[3].leaderboard_id, 597);
  EXPECT_EQ(variant[2].submission_id, 13);
}

TEST(FlatColumnTypes, IntegersOfAnyWidthAndSignedness) {
  const auto canonical = load(flat_variant({}), SchemaFamily::FLAT, with_code());
  const std::vector<std::optional<int64_t>> sids = {11, 12, 13, 14};
  const std::vector<std::optional<int64_t>> lbs = {595, 595, 595, 597};
  for (const auto& [bits, is_signed] : std::vector<std::pair<int, bool>>{
           {16, true}, {16, false}, {32, true}, {32, false}, {64, true}, {64, false}}) {
    std::vector<TestColumn> replaced;
    if (bits == 64) {
      replaced = {i64s("submission_id", sids, integer_type(bits, is_signed)),
                  i64s("leaderboard_id", lbs, integer_type(bits, is_signed))};
    } else {
      replaced = {i32s("submission_id", sids, integer_type(bits, is_signed)),
                  i32s("leaderboard_id", lbs, integer_type(bits, is_signed))};
    }
    expect_same(canonical, load(flat_variant(replaced), SchemaFamily::FLAT, with_code()),
                "INT(" + std::to_string(bits) + (is_signed ? ",signed)" : ",unsigned)"));
  }
  // UINT32 above INT32_MAX is read unsigned.
  auto big =
      load(flat_variant({i32s("code_id", {501, 502, 501, 4'000'000'000}, integer_type(32, false))}),
           SchemaFamily::FLAT);
  EXPECT_EQ(big[3].code_id, 4'000'000'000);
}

TEST(FlatColumnTypes, IdsAsStringsAndUserIdsAsIntegers) {
  const auto canonical = load(flat_variant({}), SchemaFamily::FLAT, with_code());
  expect_same(canonical,
              load(flat_variant({strings("submission_id", {"11", "12", "13", "14"}),
                                 strings("code_id", {"501", "502", "501", "9007199254740993"},
                                         std::nullopt),  // binary
                                 i64s("user_id", {101, 102, 101, 103}),
                                 f64s("leaderboard_id", {595, 595, 595, 597})}),
                   SchemaFamily::FLAT, with_code()),
              "string ids, integer user_id");
}

TEST(FlatColumnTypes, DecimalsForIdsAndScores) {
  const auto canonical = load(flat_variant({}), SchemaFamily::FLAT, with_code());
  auto rows = load(
      flat_variant(
          {i64s("code_id", {50100, 50200, 50100, 900'719'925'474'099'300}, decimal_type(18, 2)),
           decimal128s("submission_id", {11, 12, 13, 14}, 0),
           i64s("score", {1000, 2000, std::nullopt, 1500}, decimal_type(18, 6))}),
      SchemaFamily::FLAT, with_code());
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].code_id, 501);
  EXPECT_EQ(rows[3].code_id, 9'007'199'254'740'993);
  EXPECT_EQ(rows[3].submission_id, 14);
  ASSERT_TRUE(rows[0].score);
  EXPECT_DOUBLE_EQ(*rows[0].score, 0.001);
  EXPECT_FALSE(rows[2].score);
  EXPECT_EQ(rows[2].passed, canonical[2].passed);
}

// A DECIMAL score is the double nearest to its value, rounded once (found by the randomized
// DuckDB test, tests/random/README.md: scaling the unscaled integer by 10^-scale gave
// -27223674.200000003 for DECIMAL(9,1) -27223674.2, and an ulp off for wider decimals).
TEST(FlatColumnTypes, DecimalScoresRoundOnce) {
  auto rows = load(flat_variant({i64s("score", {-272236742, 2459377855765633300, 95724491145462, 0},
                                      decimal_type(18, 1)),
                                 decimal128s("code_id", {501, 502, 501, 503}, 0)}),
                   SchemaFamily::FLAT, with_code());
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].score, -27223674.2);
  EXPECT_EQ(rows[1].score, 245937785576563330.0);
  EXPECT_EQ(rows[2].score, 9572449114546.2);
  EXPECT_EQ(rows[3].score, 0.0);
  auto scaled = load(flat_variant({i64s("score", {245937785576563330, 95724491145462, 1, -1},
                                        decimal_type(18, 9))}),
                     SchemaFamily::FLAT, with_code());
  ASSERT_EQ(scaled.size(), 4u);
  EXPECT_EQ(scaled[0].score, 245937785.57656333);
  EXPECT_EQ(scaled[1].score, 95724.491145462);
  EXPECT_EQ(scaled[2].score, 1e-9);
  EXPECT_EQ(scaled[3].score, -1e-9);
}

TEST(FlatColumnTypes, StringsAsBinaryEnumAndJson) {
  const auto canonical = load(flat_variant({}), SchemaFamily::FLAT, with_code());
  expect_same(
      canonical,
      load(flat_variant(
               {strings("problem_name", {"nvfp4_gemv", "nvfp4_gemv", "nvfp4_gemv", "nvfp4_gemm"},
                        std::nullopt),
                strings("status", {"succeeded", "succeeded", "failed", "succeeded"},
                        logical(Kind::ENUM)),
                strings("runner", {"B200", "B200", std::nullopt, "B200"}, std::nullopt)}),
           SchemaFamily::FLAT, with_code()),
      "binary and enum strings");
}

TEST(FlatColumnTypes, TimestampsInEveryUnitAndInt96) {
  const auto canonical = load(flat_variant({}), SchemaFamily::FLAT, with_code());
  const std::vector<std::optional<int64_t>> us = {kT0, kT0 + 1'000'001, kT0 + 2'000'000,
                                                  kT0 + 3'000'000};
  std::vector<std::optional<int64_t>> ns;
  for (const auto& v : us) ns.push_back(*v * 1000 + 999);  // sub-µs digits are cut
  expect_same(canonical,
              load(flat_variant({i64s("submission_time", ns,
                                      timestamp_type(parquet::TimeUnit::NANOS, false))}),
                   SchemaFamily::FLAT, with_code()),
              "ns naive");
  expect_same(canonical,
              load(flat_variant({int96s("submission_time", us)}), SchemaFamily::FLAT, with_code()),
              "INT96");
  // Milliseconds lose the µs of row 1 only.
  std::vector<std::optional<int64_t>> ms;
  for (const auto& v : us) ms.push_back(*v / 1000);
  auto rows = load(
      flat_variant({i64s("submission_time", ms, timestamp_type(parquet::TimeUnit::MILLIS, true))}),
      SchemaFamily::FLAT);
  EXPECT_EQ(rows[1].submission_time, kT0 + 1'000'000);
  EXPECT_EQ(rows[3].submission_time, kT0 + 3'000'000);
}

TEST(FlatColumnTypes, PassedAsZeroOrOneIntegers) {
  const auto canonical = load(flat_variant({}), SchemaFamily::FLAT, with_code());
  expect_same(canonical,
              load(flat_variant({i32s("passed", {1, 1, 0, 1}, integer_type(8, true))}),
                   SchemaFamily::FLAT, with_code()),
              "passed INT8");
  expect_same(canonical,
              load(flat_variant({i64s("passed", {1, 1, 0, 1})}), SchemaFamily::FLAT, with_code()),
              "passed INT64");
}

TEST(FlatColumnTypes, MissingOptionalColumnsAreNull) {
  auto rows = load(flat_variant({}, {"user_name", "runner", "mode", "status"}), SchemaFamily::FLAT);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_FALSE(rows[0].user_name);
  EXPECT_FALSE(rows[0].runner);
  EXPECT_FALSE(rows[0].mode);
  // Without a status column it is derived as for legacy files: scored and passed, or failed.
  EXPECT_EQ(rows[0].status, "succeeded");
  EXPECT_EQ(rows[2].status, "failed");
}

TEST(FlatColumnTypes, AMissingRequiredColumnIsAnError) {
  for (const char* name : {"code_id", "file_name", "score", "passed"}) {
    const std::string error = load_error(flat_variant({}, {name}));
    expect_contains(error, {"fixture.parquet", std::string("no column '") + name + "'"});
  }
  expect_contains(load_error(flat_variant({}, {"code"}), SchemaFamily::FLAT, with_code()),
                  {"no column 'code'"});
}

TEST(FlatColumnTypes, ATypeItCannotReadIsAnErrorNamingFileColumnTypeAndExpectation) {
  expect_contains(
      load_error(flat_variant({strings("submission_time", {"a", "b", "c", "d"})})),
      {"fixture.parquet", "column 'submission_time'", "BYTE_ARRAY (STRING)", "a timestamp"});
  expect_contains(load_error(flat_variant({i64s("code_id", {1, 2, 3, 4},
                                                timestamp_type(parquet::TimeUnit::MICROS, true))})),
                  {"column 'code_id'", "INT64 (TIMESTAMP(MICROS,UTC))", "an integer id"});
  expect_contains(load_error(flat_variant({f64s("problem_name", {1, 2, 3, 4})})),
                  {"column 'problem_name'", "DOUBLE", "a string"});
  expect_contains(load_error(flat_variant({strings("score", {"1", "2", "3", "4"})})),
                  {"column 'score'", "a number"});
  expect_contains(load_error(flat_variant({f64s("passed", {1, 1, 0, 1})})),
                  {"column 'passed'", "DOUBLE", "a boolean"});
  expect_contains(load_error(flat_variant({i64s("submission_time", {1, 2, 3, 4})})),
                  {"column 'submission_time'", "INT64", "a timestamp"});
}

TEST(FlatColumnTypes, AValueThatDoesNotFitIsAnErrorNamingTheRow) {
  expect_contains(load_error(flat_variant({f64s("code_id", {501, 502, 501.5, 503})})),
                  {"fixture.parquet", "column 'code_id'", "row 2", "501.5 is not an integer id"});
  expect_contains(load_error(flat_variant({f64s("code_id", {501, 1e19, 501, 503})})),
                  {"column 'code_id'", "row 1", "not an integer id"});
  expect_contains(load_error(flat_variant({f64s("code_id", {501, std::nan(""), 501, 503})})),
                  {"column 'code_id'", "row 1"});
  expect_contains(
      load_error(flat_variant({i64s("code_id", {501, 502, -1, 503}, integer_type(64, false))})),
      {"column 'code_id'", "row 2", "18446744073709551615", "outside the int64 range"});
  expect_contains(load_error(flat_variant({strings("submission_id", {"11", "12", "x13", "14"})})),
                  {"column 'submission_id'", "row 2", "'x13' is not an integer id"});
  expect_contains(load_error(flat_variant({i32s("passed", {1, 2, 0, 1})})),
                  {"column 'passed'", "row 1", "2 is not a boolean"});
  expect_contains(load_error(flat_variant(
                      {i64s("code_id", {50100, 50250, 50100, 50300}, decimal_type(18, 2))})),
                  {"column 'code_id'", "row 1", "fraction"});
}

// What pandas writes for an integer column with a gap: a DOUBLE with a null. code_id may be null
// in the model (the gap stays a null, never a 0); where the model has no null (the submission's
// ids, the user, the time) it is an error naming the row.
TEST(FlatColumnTypes, ANullCodeIdIsNullAndANullIdIsAnErrorNamingTheRow) {
  const std::vector<Submission> rows =
      load(flat_variant({f64s("code_id", {501, std::nullopt, 501, 503})}), SchemaFamily::FLAT);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].code_id, 501);
  EXPECT_EQ(rows[1].code_id, std::nullopt);
  EXPECT_EQ(rows[3].code_id, 503);
  expect_contains(load_error(flat_variant({f64s("submission_id", {11, 12, std::nullopt, 14})})),
                  {"column 'submission_id'", "row 2", "null"});
  expect_contains(load_error(flat_variant({f64s("leaderboard_id", {595, std::nullopt, 595, 595})})),
                  {"column 'leaderboard_id'", "row 1", "null"});
  expect_contains(load_error(flat_variant({strings("user_id", {"1", "2", std::nullopt, "4"})})),
                  {"column 'user_id'", "row 2", "null"});
}

// ---- Legacy ----

std::map<std::string, TestColumn> canonical_legacy() {
  // Submission 10: a test run, a public and a secret leaderboard run; submission 20: a failed
  // test run only.
  std::map<std::string, TestColumn> c;
  auto add = [&](TestColumn col) { c.emplace(col.element.name, std::move(col)); };
  add(i64s("submission_id", {10, 10, 10, 20}));
  add(i64s("leaderboard_id", {399, 399, 399, 398}));
  add(i64s("user_id", {7, 7, 7, 8}));
  add(i64s("submission_time", {kT0 / 1000, kT0 / 1000, kT0 / 1000, kT0 / 1000 + 5},
           timestamp_type(parquet::TimeUnit::MILLIS, false)));
  add(strings("file_name", {"a.py", "a.py", "a.py", std::nullopt}));
  add(strings("code", {"x", "x", "x", "y"}));
  add(i64s("code_id", {100, 100, 100, 200}));
  add(i64s("run_id", {1, 2, 3, 4}));
  add(strings("run_mode", {"test", "leaderboard", "leaderboard", "test"}));
  add(f64s("run_score", {std::nullopt, 0.004, 0.003, std::nullopt}));
  add(bools("run_passed", {true, true, true, false}));
  return c;
}

const std::vector<std::string> kLegacyOrder = {
    "submission_id", "leaderboard_id", "user_id",  "submission_time", "file_name", "code",
    "code_id",       "run_id",         "run_mode", "run_score",       "run_passed"};

std::vector<uint8_t> legacy_variant(const std::vector<TestColumn>& replaced) {
  std::map<std::string, TestColumn> c = canonical_legacy();
  for (const TestColumn& r : replaced) c.insert_or_assign(r.element.name, r);
  std::vector<TestColumn> ordered;
  for (const std::string& name : kLegacyOrder) ordered.push_back(c.at(name));
  return write_file(ordered);
}

TEST(LegacyColumnTypes, VariantsLoadAsTheCanonicalFile) {
  const auto canonical = load(legacy_variant({}), SchemaFamily::LEGACY_RUNS, with_code());
  ASSERT_EQ(canonical.size(), 2u);
  EXPECT_EQ(canonical[0].score, 0.003);
  EXPECT_EQ(canonical[0].user_id, "7");
  EXPECT_FALSE(canonical[1].file_name);
  expect_same(
      canonical,
      load(legacy_variant(
               {strings("user_id", {"7", "7", "7", "8"}), f64s("code_id", {100, 100, 100, 200}),
                i32s("run_passed", {1, 1, 1, 0}),
                int96s("submission_time", {kT0, kT0, kT0, kT0 + 5000}),
                i64s("run_score", {std::nullopt, 4000, 3000, std::nullopt}, decimal_type(18, 6))}),
           SchemaFamily::LEGACY_RUNS, with_code()),
      "legacy variants");
  expect_contains(
      load_error(legacy_variant({f64s("run_id", {1, 2, 2.5, 4})}), SchemaFamily::LEGACY_RUNS),
      {"column 'run_id'", "row 2", "2.5 is not an integer id"});
}

// ---- Legacy run results (issue 16 §5) ----

// A legacy file whose run_result struct holds the tester's flat keys as strings.
std::vector<uint8_t> legacy_with_results(const std::vector<std::vector<std::string>>& means,
                                         const std::vector<std::optional<double>>& scores) {
  // One leaderboard run per entry of `means`, all of submission 10 (leaderboard 399, geom).
  const size_t n = means.size();
  std::vector<TestColumn> top = {
      i64s("submission_id", std::vector<std::optional<int64_t>>(n, 10)),
      i64s("leaderboard_id", std::vector<std::optional<int64_t>>(n, 399)),
      i64s("user_id", std::vector<std::optional<int64_t>>(n, 7)),
      i64s("submission_time", std::vector<std::optional<int64_t>>(n, kT0),
           timestamp_type(parquet::TimeUnit::MICROS, true)),
      strings("file_name", std::vector<std::optional<std::string>>(n, "a.py")),
      i64s("code_id", std::vector<std::optional<int64_t>>(n, 100))};
  std::vector<std::optional<int64_t>> run_ids;
  for (size_t i = 0; i < n; ++i) run_ids.push_back(static_cast<int64_t>(i + 1));
  top.push_back(i64s("run_id", run_ids));
  top.push_back(strings("run_mode", std::vector<std::optional<std::string>>(n, "leaderboard")));
  top.push_back(f64s("run_score", scores));
  top.push_back(bools("run_passed", std::vector<std::optional<bool>>(n, true)));
  // run_result { benchmark-count, benchmark.0.mean, .std, .err, .runs, .best, .worst,
  // benchmark.1.mean, ... } as strings; a run with fewer benchmarks has nulls.
  const size_t benchmarks = 2;
  std::vector<TestColumn> leaves;
  leaves.push_back(strings("benchmark-count", {}));
  for (size_t b = 0; b < benchmarks; ++b) {
    for (const char* k : {"mean", "std", "err", "runs", "best", "worst"}) {
      leaves.push_back(strings("benchmark." + std::to_string(b) + "." + k, {}));
    }
  }
  for (size_t r = 0; r < n; ++r) {
    leaves[0].values.push_back(raw_text(std::to_string(means[r].size())));
    for (size_t b = 0; b < benchmarks; ++b) {
      for (size_t k = 0; k < 6; ++k) {
        auto& v = leaves[1 + b * 6 + k].values;
        if (b >= means[r].size()) {
          v.push_back(std::nullopt);
        } else if (k == 0) {
          v.push_back(raw_text(means[r][b]));
        } else if (k == 3) {
          v.push_back(raw_text("100"));
        } else {
          v.push_back(raw_text(std::to_string(k) + ".5"));
        }
      }
    }
  }
  std::vector<parquet::SchemaElement> schema(1);
  schema[0].name = "schema";
  schema[0].num_children = static_cast<int32_t>(top.size() + 1);
  for (const TestColumn& c : top) schema.push_back(c.element);
  parquet::SchemaElement group;
  group.name = "run_result";
  group.repetition_type = parquet::Repetition::OPTIONAL;
  group.num_children = static_cast<int32_t>(leaves.size());
  schema.push_back(group);
  for (const TestColumn& c : leaves) schema.push_back(c.element);
  MemorySink sink;
  parquet::FileWriter writer(sink, schema, {});
  std::vector<parquet::ColumnBatch> batches;
  for (const auto& leaf : writer.schema().leaves()) {
    parquet::ColumnBatch b;
    b.values = parquet::ValueBuffer::for_type(leaf.physical, leaf.type_length);
    batches.push_back(std::move(b));
  }
  std::vector<const TestColumn*> all;
  for (const TestColumn& c : top) all.push_back(&c);
  for (const TestColumn& c : leaves) all.push_back(&c);
  for (size_t c = 0; c < all.size(); ++c) {
    const bool nested = c >= top.size();
    for (const auto& v : all[c]->values) {
      ++batches[c].num_levels;
      batches[c].def_levels.push_back(v ? (nested ? 2 : 1) : (nested ? 1 : 0));
      if (!v) continue;
      if (batches[c].values.is_binary()) {
        batches[c].values.append_binary({v->data(), v->size()});
      } else {
        batches[c].values.data.insert(batches[c].values.data.end(), v->begin(), v->end());
        ++batches[c].values.count;
      }
    }
  }
  writer.write(batches);
  writer.close();
  return sink.take();
}

TEST(LegacyRunResults, BenchmarksAreInTheModelAndRecomputeTheScore) {
  // Run 1: means 1000 ns and 4000 ns: geometric mean 2000 ns = 2e-6 s, its score. Run 2: one
  // benchmark of 1500 ns with a score that does not match (1.6e-6).
  const auto bytes = legacy_with_results({{"1000", "4000"}, {"1500.0"}}, {2e-6, 1.6e-6});
  LoadOptions options;
  options.with_runs = true;
  options.with_results = true;
  auto rows = load(bytes, SchemaFamily::LEGACY_RUNS, options);
  ASSERT_EQ(rows.size(), 1u);
  const Submission& s = rows[0];
  ASSERT_EQ(s.runs.size(), 2u);
  ASSERT_EQ(s.runs[0].benchmarks.size(), 2u);
  EXPECT_EQ(s.runs[0].benchmarks[1].mean, 4000.0);
  EXPECT_EQ(s.runs[0].benchmarks[0].std_dev, 1.5);
  EXPECT_EQ(s.runs[0].benchmarks[0].err, 2.5);
  EXPECT_EQ(s.runs[0].benchmarks[0].runs, 100);
  EXPECT_EQ(s.runs[0].benchmarks[0].best, 4.5);
  EXPECT_EQ(s.runs[0].benchmarks[0].worst, 5.5);
  ASSERT_EQ(s.runs[1].benchmarks.size(), 1u);  // benchmark.1.* null: not a benchmark
  // The score is run 2's (lower); its benchmarks are the submission's.
  ASSERT_TRUE(s.score);
  EXPECT_EQ(*s.score, 1.6e-6);
  ASSERT_TRUE(s.benchmarks);
  ASSERT_EQ(s.benchmarks->size(), 1u);
  EXPECT_EQ((*s.benchmarks)[0].mean, 1500.0);

  auto geom = score_from_benchmarks(s.runs[0].benchmarks, RankingBy::GEOM);
  ASSERT_TRUE(geom);
  EXPECT_TRUE(reproduces(2e-6, *geom));
  EXPECT_FALSE(reproduces(1.6e-6, *score_from_benchmarks(s.runs[1].benchmarks, RankingBy::GEOM)));
  EXPECT_TRUE(reproduces(2.5e-6, *score_from_benchmarks(s.runs[0].benchmarks, RankingBy::MEAN)));
  EXPECT_TRUE(reproduces(4e-6, *score_from_benchmarks(s.runs[0].benchmarks, RankingBy::LAST)));
  EXPECT_FALSE(reproduces(2e-6 * (1 + 2e-9), *geom));
  EXPECT_TRUE(reproduces(2e-6 * (1 + 1e-12), *geom));

  // Without results nothing of run_result is read.
  LoadOptions plain;
  plain.with_runs = true;
  auto bare = load(bytes, SchemaFamily::LEGACY_RUNS, plain);
  EXPECT_TRUE(bare[0].runs[0].benchmarks.empty());
  EXPECT_FALSE(bare[0].benchmarks);
}

TEST(LegacyRunResults, AValueThatIsNoNumberIsAnErrorNamingTheRow) {
  LoadOptions options;
  options.with_results = true;
  expect_contains(
      load_error(legacy_with_results({{"1000", "4000"}, {"fast"}}, {2e-6, 1e-6}),
                 SchemaFamily::LEGACY_RUNS, options),
      {"fixture.parquet", "run_result.benchmark.0.mean", "row 1", "'fast' is not a number"});
}

TEST(LegacyRunResults, ScoreFromBenchmarksNeedsEveryMean) {
  std::vector<BenchmarkResult> b(2);
  b[0].mean = 1000;
  EXPECT_FALSE(score_from_benchmarks(b, RankingBy::GEOM));
  b[1].mean = 0;
  EXPECT_FALSE(score_from_benchmarks(b, RankingBy::GEOM));  // log of 0
  EXPECT_EQ(score_from_benchmarks(b, RankingBy::MEAN), 0.5e-6);
  EXPECT_FALSE(score_from_benchmarks({}, RankingBy::LAST));
}

}  // namespace
}  // namespace kbdata::dataset
