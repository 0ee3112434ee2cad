// arrow::export_stream read by a consumer written by others: DuckDB's C API (duckdb_arrow_scan,
// in the libduckdb.so of the npm peers) registers the stream as a view, and reads the same rows,
// with the same types, as the table's --format json rendering by report::Writer; for a table of
// every type, for the answer of `kbdata top` on the bundled sample (its query's table), and for
// every command whose answer is a result table, run in this process (cli::run_command_line) with
// each table it writes taken as it is written (report::set_table_observer), compared with what
// the command printed with -f json (extract: its manifest.jsonl); the summaries of dedup, pairs
// and extract too.
#include <gtest/gtest.h>
#include <unistd.h>

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
#include "cli/app.h"
#include "common/calendar.h"
#include "dataset/data_dir.h"
#include "dataset/loader.h"
#include "query/dedup.h"
#include "query/extract.h"
#include "query/pairs.h"
#include "query/top.h"
#include "report/writer.h"
#include "support/run_kbdata.h"
#include "support/temp_dir.h"
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
                          table.rule(), 1);
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

// Registers `source` (a stream of a table of `columns`, taken over: released here) as view `name`
// in DuckDB, reads it back (each value as text DuckDB gives: timestamps as epoch µs, lists as
// JSON) and checks it against `expected` (the rows as --format json renders them), the types
// against the columns', and every release.
void check_stream_reads(ArrowArrayStream source, const std::vector<Column>& columns,
                        const nlohmann::json& expected, const std::string& name) {
  testing::ReleaseCounter counter;
  WatchedStream watched;
  watched.inner = source;
  watched.counter = &counter;
  ArrowArrayStream stream{&WatchedStream::get_schema, &WatchedStream::get_next,
                          &WatchedStream::get_last_error, &WatchedStream::release, &watched};
  duckdb().arrow_scan(name, &stream);

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

// The same for `table`'s own stream against its own JSON rendering.
void check_duckdb_reads(ResultTable& table, const std::string& name) {
  ArrowArrayStream stream{};
  export_stream(table, &stream);
  check_stream_reads(stream, table.columns(), json_of(table), name);
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

// What one run of `kbdata ARGS` in this process printed, and the answer of every result table it
// wrote (report::Writer::write shows each to the table observer): its columns, its rows' count,
// and its stream, exported as it was written.
struct Answered {
  struct Table {
    std::vector<Column> columns;
    int64_t rows = 0;
    ArrowArrayStream stream{};
  };
  int exit_code = 0;
  std::string out;
  std::vector<Table> tables;
};

Answered run_in_process(const std::vector<std::string>& args) {
  Answered answered;
  std::vector<std::string> words = {"kbdata"};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  report::set_table_observer([&](ResultTable& table) {
    Answered::Table t{table.columns(), table.rows(), {}};
    export_stream(table, &t.stream);
    answered.tables.push_back(std::move(t));
  });
  // The command prints to stdout: into a temporary file for the run.
  std::fflush(stdout);
  std::FILE* captured = std::tmpfile();
  const int saved = ::dup(1);
  ::dup2(::fileno(captured), 1);
  answered.exit_code = cli::run_command_line(static_cast<int>(argv.size()), argv.data());
  std::fflush(stdout);
  ::dup2(saved, 1);
  ::close(saved);
  report::set_table_observer(nullptr);
  std::rewind(captured);
  char buf[4096];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, captured)) > 0) answered.out.append(buf, n);
  std::fclose(captured);
  return answered;
}

// The rows each of `answered`'s tables printed: a JSON array is the tables' rows one table
// after another; a JSON document (configs) holds each table as one of its array members, in order.
std::vector<nlohmann::json> printed_rows(const Answered& answered, const std::string& text) {
  std::vector<nlohmann::json> rows;
  const nlohmann::ordered_json document = nlohmann::ordered_json::parse(text);
  if (document.is_object()) {
    for (const auto& [key, value] : document.items()) {  // in the order printed
      if (value.is_array()) rows.push_back(nlohmann::json::parse(value.dump()));
    }
    return rows;
  }
  const nlohmann::json printed = nlohmann::json::parse(text);
  size_t at = 0;
  for (const Answered::Table& t : answered.tables) {
    nlohmann::json part = nlohmann::json::array();
    for (int64_t r = 0; r < t.rows && at < printed.size(); ++r) part.push_back(printed[at++]);
    rows.push_back(std::move(part));
  }
  EXPECT_EQ(at, printed.size()) << "every printed row belongs to a table the command wrote";
  return rows;
}

// Every command whose answer is a query's result table, on the sample, printed with -f json:
// DuckDB reads the stream of each table the command wrote and gives the rows it printed.
// (submissions and show stream their rows through report/submissions.h, tested with the Python
// module.)
TEST(ArrowDuckDb, ReadsEveryCommandsAnswerAsTheCommandPrintsIt) {
  const std::string sample = std::string(KBDATA_SOURCE_DIR) + "/data/sample";
  const std::vector<std::vector<std::string>> commands = {
      {"top", "-p", "nvfp4_dual_gemm"},
      {"top", "-p", "nvfp4_dual_gemm", "--uncertainty", "-n", "5"},
      {"top", "-p", "amd-fp8-mm", "-n", "0"},
      {"records", "-p", "trimul", "--runner", "H100"},
      {"progression", "--user", "tonda", "-p", "nvfp4_dual_gemm"},
      {"fastest", "-p", "nvfp4_gemm"},
      {"stats"},
      {"noise"},
      {"tasks", "-p", "nvfp4_gemm", "-p", "trimul", "--after", "2025-07-20"},
      {"place", "-p", "nvfp4_gemm", "--runner", "NVIDIA", "--label", "m", "20us", "12us", "35us"},
      {"audit", "-p", "nvfp4_gemm", "--with-evidence"},
      {"techniques", "-p", "trimul"},
      {"techniques", "--winners", "-p", "nvfp4_gemm"},
      {"techniques", "--trend", "-p", "nvfp4_gemm"},
      {"show", "30000856", "--near-duplicates"},
      {"configs"},
  };
  int view = 0;
  for (std::vector<std::string> args : commands) {
    std::string line;
    for (const std::string& a : args) line += " " + a;
    SCOPED_TRACE("kbdata" + line);
    args.insert(args.end(), {"--format", "json", "--data", sample});
    Answered answered = run_in_process(args);
    ASSERT_EQ(answered.exit_code, 0);
    ASSERT_FALSE(answered.tables.empty()) << "the command wrote no result table";
    const std::vector<nlohmann::json> rows = printed_rows(answered, answered.out);
    ASSERT_EQ(rows.size(), answered.tables.size());
    for (size_t t = 0; t < answered.tables.size(); ++t) {
      const Answered::Table& table = answered.tables[t];
      check_stream_reads(table.stream, table.columns, rows[t], "answer_" + std::to_string(view++));
    }
  }
}

// extract's manifest (written by the one writer as JSON Lines): DuckDB reads its table's stream
// and gives the rows of manifest.jsonl.
TEST(ArrowDuckDb, ReadsExtractsManifestAsTheFileHoldsIt) {
  const std::string sample = std::string(KBDATA_SOURCE_DIR) + "/data/sample";
  const kbdata::testing::TempDir tmp("manifest");
  const std::string out = tmp.file("extract");
  Answered answered = run_in_process({"extract", "-p", "nvfp4_gemm", "--top", "3", "--dedup",
                                      "exact", "--out", out, "--data", sample});
  ASSERT_EQ(answered.exit_code, 0);
  ASSERT_EQ(answered.tables.size(), 1u);
  nlohmann::json manifest = nlohmann::json::array();
  for (const std::string& line :
       kbdata::testing::lines(kbdata::testing::read_file(out + "/manifest.jsonl"))) {
    if (!line.empty()) manifest.push_back(nlohmann::json::parse(line));
  }
  ASSERT_GT(manifest.size(), 2u);
  check_stream_reads(answered.tables[0].stream, answered.tables[0].columns, manifest,
                     "extract_manifest");
}

// The summaries of the commands that write files (dedup, pairs, extract): one row each, the counts
// a run does not make null.
TEST(ArrowDuckDb, ReadsTheSummariesOfDedupPairsAndExtract) {
  dedup::DedupSummary d;
  d.rows_in = 197;
  d.exact_duplicates = 3;
  d.rows_out = 190;
  d.signatures = 148;
  d.lsh = {157, 13};
  d.metadata_seconds = 0.25;
  d.write_seconds = 0.5;
  ResultTable fuzzy = query::dedup_summary(d, {.fuzzy = true, .emit_all = false, .seconds = 1.5});
  check_duckdb_reads(fuzzy, "dedup_fuzzy");
  ResultTable exact = query::dedup_summary(d, {.fuzzy = false, .emit_all = true, .seconds = 1.5});
  check_duckdb_reads(exact, "dedup_exact");

  pairs::PairsSummary p;
  p.rows = 197;
  p.versions = 31;
  p.candidates = 3;
  p.written = 1;
  p.bytes = 27'000;
  ResultTable pairs = query::pairs_summary(p, {.trajectories = false,
                                               .significant = true,
                                               .decontaminate = false,
                                               .out = "p.jsonl",
                                               .card = "p.jsonl.card.md"});
  check_duckdb_reads(pairs, "pairs_summary");
  ResultTable trajectories = query::pairs_summary(p, {.trajectories = true,
                                                      .significant = false,
                                                      .decontaminate = true,
                                                      .out = "t.jsonl",
                                                      .card = "t.jsonl.card.md"});
  check_duckdb_reads(trajectories, "trajectories_summary");

  ResultTable extract = query::extract_summary({.files = 3,
                                                .bytes = 4096,
                                                .skipped = 1,
                                                .dedup = false,
                                                .duplicates_dropped = 0,
                                                .folder = "out"},
                                               {});
  check_duckdb_reads(extract, "extract_summary");
}

}  // namespace
}  // namespace kbdata::arrow
