// arrow::export_stream read by a consumer written by others: DuckDB's C API (duckdb_arrow_scan,
// in the libduckdb.so of the npm peers) registers the stream as a view, and reads the same rows,
// with the same types, as the table's --format json rendering by report::Writer; for a table of
// every type, and for the answer of `kbdata top` on the bundled sample (its query's table),
// compared with what the command itself prints with -f json.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "arrow/export.h"
#include "bench/duckdb_c_api.h"
#include "common/calendar.h"
#include "dataset/data_dir.h"
#include "dataset/loader.h"
#include "query/top.h"
#include "report/writer.h"
#include "support/run_kbdata.h"
#include "tests/arrow/release_counter.h"

namespace kbdata::arrow {
namespace {

using result::Cell;
using result::Column;
using result::ColumnType;
using result::List;
using result::ResultTable;
using result::Value;

bench::DuckDb& duckdb() {
  static bench::DuckDb db(bench::duckdb_library(KBDATA_SOURCE_DIR));
  return db;
}

// The table rendered as --format json renders it.
nlohmann::json json_of(ResultTable& table) {
  std::FILE* out = std::tmpfile();
  std::FILE* notes = std::tmpfile();
  {
    report::Writer writer(report::Format::JSON, table.columns(), out, notes, std::nullopt,
                          table.rule());
    writer.write(table);
    writer.finish();
  }
  std::string text;
  std::rewind(out);
  char buf[4096];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, out)) > 0) text.append(buf, n);
  std::fclose(out);
  std::fclose(notes);
  return nlohmann::json::parse(text);
}

// "2025-10-09T08:53:20.000001Z" as µs since the epoch.
int64_t micros_of(const std::string& iso) {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, micros = 0;
  EXPECT_EQ(std::sscanf(iso.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d.%6dZ", &year, &month, &day, &hour,
                        &minute, &second, &micros),
            7)
      << iso;
  return days_from_civil(year, month, day) * kMicrosPerDay +
         ((hour * 60 + minute) * 60 + second) * int64_t{1'000'000} + micros;
}

// A stream handed to DuckDB through a wrapper that watches every schema and array it gives out.
// DuckDB's duckdb_arrow_scan asks the stream for its schema several times and never calls those
// schemas' release (it sets the root's release to NULL itself: its C API expects a stream of its
// own duckdb_arrow_array_scan, whose schemas are borrowed). So the wrapper lends it schemas as
// that function does: DuckDB gets a copy whose release only marks it released, and the wrapper
// releases the schemas themselves with the stream. Arrays are DuckDB's to release, and counted.
struct WatchedStream {
  ArrowArrayStream inner{};
  testing::ReleaseCounter* counter = nullptr;
  std::vector<std::unique_ptr<ArrowSchema>> lent;

  static WatchedStream& of(ArrowArrayStream* s) {
    return *static_cast<WatchedStream*>(s->private_data);
  }
  static void release_borrowed(ArrowSchema* schema) { schema->release = nullptr; }
  static int get_schema(ArrowArrayStream* s, ArrowSchema* out) {
    WatchedStream& w = of(s);
    auto held = std::make_unique<ArrowSchema>();
    const int rc = w.inner.get_schema(&w.inner, held.get());
    if (rc != 0) return rc;
    w.counter->watch(held.get());
    *out = *held;
    out->release = &release_borrowed;
    w.lent.push_back(std::move(held));
    return 0;
  }
  static int get_next(ArrowArrayStream* s, ArrowArray* out) {
    WatchedStream& w = of(s);
    const int rc = w.inner.get_next(&w.inner, out);
    if (rc == 0 && out->release != nullptr) w.counter->watch(out);
    return rc;
  }
  static const char* get_last_error(ArrowArrayStream* s) {
    WatchedStream& w = of(s);
    return w.inner.get_last_error(&w.inner);
  }
  static void release(ArrowArrayStream* s) {
    WatchedStream& w = of(s);
    for (const auto& schema : w.lent) {
      if (schema->release != nullptr) schema->release(schema.get());
    }
    w.inner.release(&w.inner);
    s->release = nullptr;
  }
};

// The DuckDB type names of `columns`, as DESCRIBE names them.
std::string duckdb_type(const Column& c) {
  std::string type;
  switch (c.type) {
    case ColumnType::INT64:
      type = "BIGINT";
      break;
    case ColumnType::SCORE:
    case ColumnType::FACTOR:
    case ColumnType::DOUBLE:
      type = "DOUBLE";
      break;
    case ColumnType::BOOL:
      type = "BOOLEAN";
      break;
    case ColumnType::STRING:
    case ColumnType::JSON:
      type = "VARCHAR";
      break;
    case ColumnType::TIMESTAMP:
      type = "TIMESTAMP WITH TIME ZONE";
      break;
  }
  return c.list ? type + "[]" : type;
}

// Registers `table`'s stream as view `name` in DuckDB, reads it back (each value as text DuckDB
// gives: timestamps as epoch µs, lists as JSON) and checks it against the table's JSON rendering,
// the types against the columns', and every release.
void check_duckdb_reads(ResultTable& table, const std::string& name) {
  const nlohmann::json expected = json_of(table);
  testing::ReleaseCounter counter;
  WatchedStream watched;
  export_stream(table, &watched.inner);
  watched.counter = &counter;
  ArrowArrayStream stream{&WatchedStream::get_schema, &WatchedStream::get_next,
                          &WatchedStream::get_last_error, &WatchedStream::release, &watched};
  duckdb().arrow_scan(name, &stream);

  const std::vector<Column>& columns = table.columns();
  std::string select;
  for (const Column& c : columns) {
    const std::string q = "\"" + c.name + "\"";
    if (!select.empty()) select += ", ";
    if (c.type == ColumnType::TIMESTAMP) {
      select +=
          c.list ? "to_json(list_transform(" + q + ", x -> epoch_us(x)))" : "epoch_us(" + q + ")";
    } else {
      select += c.list ? "to_json(" + q + ")" : q;
    }
  }
  const auto rows = duckdb().rows("SELECT " + select + " FROM " + name);
  const auto described =
      duckdb().rows("SELECT column_name, column_type FROM (DESCRIBE " + name + ")");
  EXPECT_EQ(described.size(), columns.size());
  for (size_t c = 0; c < std::min(described.size(), columns.size()); ++c) {
    EXPECT_EQ(described[c][0], columns[c].name);
    EXPECT_EQ(described[c][1], duckdb_type(columns[c])) << columns[c].name;
  }
  // The view reads the stream whenever a query names it: dropped before the stream is released.
  duckdb().run("DROP VIEW " + name);
  stream.release(&stream);
  EXPECT_EQ(counter.released_once(), counter.watched())
      << "every structure DuckDB was given is released once: " << counter.summary();
  EXPECT_TRUE(counter.problems().empty());

  ASSERT_EQ(rows.size(), expected.size());
  for (size_t r = 0; r < rows.size(); ++r) {
    for (size_t c = 0; c < columns.size(); ++c) {
      const nlohmann::json& want = expected[r][columns[c].name];
      const std::optional<std::string>& got = rows[r][c];
      const std::string where = name + " row " + std::to_string(r) + " " + columns[c].name;
      if (want.is_null()) {
        EXPECT_FALSE(got.has_value()) << where;
        continue;
      }
      ASSERT_TRUE(got.has_value()) << where;
      const Column& col = columns[c];
      if (col.list) {
        nlohmann::json got_list = nlohmann::json::parse(*got);
        if (col.type == ColumnType::TIMESTAMP) {
          nlohmann::json want_list = nlohmann::json::array();
          for (const auto& item : want) {
            want_list.push_back(item.is_null() ? nlohmann::json()
                                               : nlohmann::json(micros_of(item)));
          }
          EXPECT_EQ(got_list, want_list) << where;
        } else {
          EXPECT_EQ(got_list, want) << where;
        }
      } else if (col.type == ColumnType::TIMESTAMP) {
        EXPECT_EQ(std::stoll(*got), micros_of(want.get<std::string>())) << where;
      } else if (col.type == ColumnType::SCORE || col.type == ColumnType::FACTOR ||
                 col.type == ColumnType::DOUBLE) {
        EXPECT_EQ(std::strtod(got->c_str(), nullptr), want.get<double>()) << where;
      } else if (want.is_number()) {
        EXPECT_EQ(*got, std::to_string(want.get<int64_t>())) << where;
      } else if (want.is_boolean()) {
        EXPECT_EQ(*got, want.get<bool>() ? "true" : "false") << where;
      } else if (col.type == ColumnType::JSON) {
        EXPECT_EQ(nlohmann::json::parse(*got), want) << where;
      } else {
        EXPECT_EQ(*got, want.get<std::string>()) << where;
      }
    }
  }
}

TEST(ArrowDuckDb, ReadsEveryTypeAsTheJsonRendering) {
  const std::vector<Column> columns = {
      {"id", ColumnType::INT64},
      {"name", ColumnType::STRING},
      {"score", ColumnType::SCORE},
      {"speedup", ColumnType::FACTOR},
      {"passed", ColumnType::BOOL},
      {"at", ColumnType::TIMESTAMP},
      {"extra", ColumnType::JSON},
      {"tags", ColumnType::STRING, false, true},
      {"scores", ColumnType::SCORE, false, true},
      {"times", ColumnType::TIMESTAMP, false, true},
      {"flags", ColumnType::BOOL, false, true},
      {"ranks", ColumnType::INT64, false, true},
  };
  ResultTable table(columns, "every type", 3);  // 10 rows: four batches
  for (int64_t i = 0; i < 10; ++i) {
    const bool null = i % 4 == 2;
    auto maybe = [&](Cell c) { return null ? Cell{} : c; };
    table.add_row({i, maybe("naïve \"quoted\" " + std::to_string(i)), maybe(1.25e-6 * (i + 1)),
                   maybe(0.5 * i), maybe(i % 3 == 0), maybe(int64_t{1'760'000'000'123'456} + i),
                   maybe(std::string("{\"k\":[") + std::to_string(i) + "]}"),
                   maybe(List{std::string("tma"), Value{}, std::string("wgmma")}),
                   maybe(List{1e-5, 2.5e-5}), maybe(List{int64_t{1'700'000'000'000'001}, Value{}}),
                   maybe(List{true, false, true}), i % 2 == 0 ? Cell{List{}} : Cell{List{i}}});
  }
  check_duckdb_reads(table, "every_type");
}

// The answer of `kbdata top` on the sample, from its query (query::TopQuery fed by the loader, as
// the command feeds it), read by DuckDB; and the same rows as the command prints with -f json.
TEST(ArrowDuckDb, ReadsTopsAnswerAsTheCommandPrintsIt) {
  const std::string sample = std::string(KBDATA_SOURCE_DIR) + "/data/sample";
  const dataset::DataDir dir = dataset::scan_data_dir(sample);
  dataset::LoadOptions load;
  load.filter.problem = "nvfp4_dual_gemm";
  load.filter.scored_only = true;
  load.filter.passed_only = true;
  query::TopQuery top({.limit = 10, .uncertainty = false});
  dataset::LoadStats stats;
  dataset::load_dir(
      dir, load, [&](dataset::Submission&& s) { top.add(s); }, stats);
  ResultTable table = top.finish({});
  ASSERT_GT(table.rows(), 4);
  const kbdata::testing::Result printed =
      kbdata::testing::run("top -p nvfp4_dual_gemm -f json --data " + sample);
  ASSERT_EQ(printed.exit_code, 0) << printed.err;
  EXPECT_EQ(json_of(table), nlohmann::json::parse(printed.out))
      << "the query's table holds the rows the command prints";
  check_duckdb_reads(table, "top_dual_gemm");
}

}  // namespace
}  // namespace kbdata::arrow
