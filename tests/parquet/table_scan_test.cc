// TableScan against the plain reading of every column chunk: the same rows and values for every
// thread count and every way of cutting row groups (resident and streamed columns, units, the
// fallback), filters that drop exactly the failing rows, row restrictions, early stops, and
// errors that are the same whatever the threads.
#include "parquet/table_scan.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/file.h"
#include "parquet/row_filter.h"
#include "support/tables.h"

namespace kbdata::parquet {
namespace {

// How a scan cuts its row groups, and the work it puts on the pool (parallel_bytes 0: every step
// and unit, so that the small files of these tests reach the pool's paths).
struct Cuts {
  const char* name;
  int64_t stream_bytes;
  int64_t unit_bytes;
  size_t unit_rows;
  size_t resident_bytes;
  size_t batch_rows;
  uint64_t parallel_bytes = 0;
};

const Cuts kCuts[] = {
    {"defaults", int64_t{8} << 20, int64_t{4} << 20, 32768, size_t{512} << 20, 4096,
     ScanOptions{}.parallel_bytes},
    {"all_streamed_small_units", 1, 2000, 100, size_t{512} << 20, 97},
    {"some_streamed", 6000, 3000, 50, size_t{512} << 20, 33},
    {"resident_small_units", int64_t{1} << 40, 1, 7, size_t{512} << 20, 5},
    {"fallback", int64_t{1} << 40, 1, 64, 10, 61},
    {"defaults_on_the_pool", int64_t{8} << 20, int64_t{4} << 20, 32768, size_t{512} << 20, 4096},
};

ScanOptions options_for(const Cuts& cuts, std::vector<int> columns, int threads) {
  ScanOptions o;
  o.columns = std::move(columns);
  o.threads = threads;
  o.stream_bytes = cuts.stream_bytes;
  o.unit_bytes = cuts.unit_bytes;
  o.unit_rows = cuts.unit_rows;
  o.resident_bytes = cuts.resident_bytes;
  o.batch_rows = cuts.batch_rows;
  o.parallel_bytes = cuts.parallel_bytes;
  return o;
}

std::vector<int> every_leaf(const FileReader& reader) {
  std::vector<int> out;
  for (size_t i = 0; i < reader.schema().leaves().size(); ++i) out.push_back(static_cast<int>(i));
  return out;
}

// What a scan delivered: the batches' shapes, their rows, and the columns concatenated.
struct Scanned {
  std::vector<size_t> batch_rows;
  std::vector<int64_t> file_rows;
  std::vector<ColumnBatch> columns;
  ScanStats stats;
};

void append(ColumnBatch& all, const ColumnBatch& batch) {
  all.num_levels += batch.num_levels;
  all.def_levels.insert(all.def_levels.end(), batch.def_levels.begin(), batch.def_levels.end());
  all.rep_levels.insert(all.rep_levels.end(), batch.rep_levels.begin(), batch.rep_levels.end());
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

Scanned scan(FileReader& reader, const ScanOptions& options, size_t stop_after = SIZE_MAX) {
  Scanned out;
  for (int leaf : options.columns) {
    out.columns.push_back(batch_for(reader.schema().leaves()[static_cast<size_t>(leaf)]));
  }
  TableScan scan(reader, options);
  scan.run([](ScanBatch& batch) { batch.result = batch.num_rows; },
           [&](ScanBatch& batch) {
             EXPECT_EQ(std::any_cast<size_t>(batch.result), batch.num_rows);
             out.batch_rows.push_back(batch.num_rows);
             for (size_t i = 0; i < batch.num_rows; ++i) out.file_rows.push_back(batch.file_row(i));
             for (size_t c = 0; c < batch.columns.size(); ++c)
               append(out.columns[c], batch.columns[c]);
             return out.batch_rows.size() < stop_after;
           });
  out.stats = scan.stats();
  return out;
}

// Every column, with `filter` deciding the rows (filter_rows).
Scanned scan_filtered(FileReader& reader, const Cuts& cuts, int threads, const RowFilter& filter) {
  ScanOptions o = options_for(cuts, every_leaf(reader), threads);
  o.filter = &filter;
  o.filter_rows = true;
  return scan(reader, o);
}

// `dictionary_page_bytes`: the writer's limit, past which a chunk's pages fall back to PLAIN.
std::vector<uint8_t> flat_file(size_t rows, bool page_index, int page_version,
                               size_t dictionary_page_bytes = WriterOptions{}.dictionary_page_bytes,
                               uint32_t seed = 1) {
  WriterOptions w;
  w.page_rows = 173;
  w.page_bytes = 4096;
  w.row_group_rows = 1500;
  w.page_index = page_index;
  w.page_version = page_version;
  w.dictionary_page_bytes = dictionary_page_bytes;
  return write_table(flat_table(rows, seed), w, 400);
}

TEST(ScanBatch, FileRowsWalkTheRangesOnce) {
  ScanBatch batch;
  batch.group_first_row = 100;
  batch.rows = {{2, 4}, {7, 8}};
  batch.num_rows = 3;
  EXPECT_EQ(batch.file_rows(), (std::vector<int64_t>{102, 103, 107}));
  for (size_t i = 0; i < batch.num_rows; ++i) EXPECT_EQ(batch.file_rows()[i], batch.file_row(i));
}

TEST(TableScan, EveryCutAndThreadCountReadsWhatTheColumnsHold) {
  for (bool page_index : {true, false}) {
    for (int version : {1, 2}) {
      auto reader = open_bytes(flat_file(4000, page_index, version));
      const std::vector<ColumnBatch> expected = read_table(*reader);
      for (const Cuts& cuts : kCuts) {
        std::vector<size_t> shapes;
        for (int threads : {1, 2, 3, 8}) {
          const std::string what = std::string(cuts.name) + " threads " + std::to_string(threads) +
                                   " index " + std::to_string(page_index) + " v" +
                                   std::to_string(version);
          Scanned s = scan(*reader, options_for(cuts, every_leaf(*reader), threads));
          expect_same(expected, s.columns, what);
          ASSERT_EQ(s.file_rows.size(), 4000u) << what;
          for (size_t i = 0; i < s.file_rows.size(); ++i) {
            ASSERT_EQ(s.file_rows[i], static_cast<int64_t>(i)) << what;
          }
          if (threads == 1) {
            shapes = s.batch_rows;
          } else {
            EXPECT_EQ(s.batch_rows, shapes) << what << ": batches differ from one thread's";
          }
          if (std::string(cuts.name) == "fallback") {
            EXPECT_EQ(s.stats.row_groups_fallback, s.stats.row_groups) << what;
          }
        }
      }
    }
  }
}

// A scan reading less than parallel_bytes starts no thread whatever --threads says (they would
// cost more than they save); with more work, or parallel_bytes 0, it starts the pool.
TEST(TableScan, ThreadsStartOnlyForWorkEnough) {
  auto reader = open_bytes(flat_file(4000, true, 1));
  const std::vector<ColumnBatch> expected = read_table(*reader);
  const uint64_t file_bytes = reader->file().size();
  for (uint64_t parallel_bytes : {ScanOptions{}.parallel_bytes, file_bytes, uint64_t{0}}) {
    for (int threads : {1, 4}) {
      ScanOptions o = options_for(kCuts[0], every_leaf(*reader), threads);
      o.parallel_bytes = parallel_bytes;
      const Scanned s = scan(*reader, o);
      const std::string what = "parallel_bytes " + std::to_string(parallel_bytes) + " threads " +
                               std::to_string(threads);
      expect_same(expected, s.columns, what);
      EXPECT_EQ(s.stats.threads_started, threads > 1 && parallel_bytes == 0 ? 4u : 0u) << what;
    }
  }
  // Work enough: a step reading at least parallel_bytes.
  ScanOptions o = options_for(kCuts[0], every_leaf(*reader), 3);
  o.parallel_bytes = file_bytes / 8;
  EXPECT_EQ(scan(*reader, o).stats.threads_started, 3u);
}

// A column the map step releases is delivered empty, and the batches after it (decoded into the
// storage it handed back) hold the same values as a scan that keeps every column; released in the
// deliver step it is freed.
TEST(TableScan, AColumnReleasedInTheMapStepIsDeliveredEmptyAndTheNextBatchesWhole) {
  auto reader = open_bytes(flat_file(4000, true, 2));
  const std::vector<ColumnBatch> expected = read_table(*reader);
  const std::vector<int> columns = every_leaf(*reader);
  for (const Cuts& cuts : kCuts) {
    for (int threads : {1, 2, 8}) {
      const std::string what = std::string(cuts.name) + " threads " + std::to_string(threads);
      for (size_t released = 0; released < columns.size(); ++released) {
        std::vector<ColumnBatch> taken;
        for (int leaf : columns) {
          taken.push_back(batch_for(reader->schema().leaves()[static_cast<size_t>(leaf)]));
        }
        TableScan scan(*reader, options_for(cuts, columns, threads));
        scan.run(
            [&](ScanBatch& batch) {
              ColumnBatch copy =
                  batch_for(reader->schema().leaves()[static_cast<size_t>(columns[released])]);
              append(copy, batch.columns[released]);
              batch.result = std::move(copy);
              batch.release(released);
            },
            [&](ScanBatch& batch) {
              const ColumnBatch& left = batch.columns[released];
              EXPECT_EQ(left.num_levels, 0u) << what;
              EXPECT_EQ(left.values.count, 0u) << what;
              EXPECT_TRUE(left.def_levels.empty() && left.values.data.empty()) << what;
              for (size_t c = 0; c < batch.columns.size(); ++c) {
                append(taken[c], c == released ? std::any_cast<ColumnBatch&>(batch.result)
                                               : batch.columns[c]);
              }
              batch.release(0);  // outside the map step: freed
              EXPECT_EQ(batch.columns[0].values.data.capacity(), 0u) << what;
              return true;
            });
        expect_same(expected, taken, what + " released " + std::to_string(released));
      }
    }
  }
}

TEST(TableScan, NestedColumnsInWholeRecords) {
  WriterOptions w;
  w.page_rows = 37;
  w.page_bytes = 2048;
  w.row_group_rows = 700;
  auto reader = open_bytes(write_table(nested_table(2500), w, 300));
  const std::vector<ColumnBatch> expected = read_table(*reader);
  for (const Cuts& cuts : kCuts) {
    for (int threads : {1, 4}) {
      Scanned s = scan(*reader, options_for(cuts, every_leaf(*reader), threads));
      expect_same(expected, s.columns,
                  std::string(cuts.name) + " threads " + std::to_string(threads));
      EXPECT_EQ(s.file_rows.size(), 2500u);
    }
  }
}

TEST(TableScan, ColumnsInTheOrderAsked) {
  auto reader = open_bytes(flat_file(1000, true, 1));
  const std::vector<ColumnBatch> all = read_table(*reader);
  Scanned s = scan(*reader, options_for(kCuts[1], {3, 0}, 2));
  expect_same({all[3], all[0]}, s.columns, "name, id");
  EXPECT_THROW(TableScan(*reader, options_for(kCuts[0], {0, 0}, 1)), UsageError);
  EXPECT_THROW(TableScan(*reader, options_for(kCuts[0], {6}, 1)), UsageError);
}

// The rows of a flat table where `keep(row)` holds, as a table of the same columns.
template <typename Keep>
std::vector<ColumnBatch> rows_where(const FileReader& reader, const std::vector<ColumnBatch>& all,
                                    Keep keep, std::vector<int64_t>& rows) {
  std::vector<ColumnBatch> out;
  const auto& leaves = reader.schema().leaves();
  for (const ColumnDescriptor& d : leaves) out.push_back(batch_for(d));
  std::vector<size_t> value(all.size(), 0);
  for (size_t r = 0; r < all[0].num_levels; ++r) {
    const bool wanted = keep(r);
    if (wanted) rows.push_back(static_cast<int64_t>(r));
    for (size_t c = 0; c < all.size(); ++c) {
      const ColumnDescriptor& d = leaves[c];
      const bool present = d.max_def == 0 || all[c].def_levels[r] == d.max_def;
      if (wanted) {
        ColumnBatch one = batch_for(d);
        one.num_levels = 1;
        if (d.max_def > 0) one.def_levels.push_back(all[c].def_levels[r]);
        if (present) {
          auto bytes = all[c].values.bytes(value[c]);
          if (one.values.is_binary()) {
            one.values.append_binary(bytes);
          } else {
            one.values.data.insert(one.values.data.end(), bytes.begin(), bytes.end());
            one.values.count = 1;
          }
        }
        append(out[c], one);
      }
      if (present) ++value[c];
    }
  }
  return out;
}

// Value i of column c as T, for the expected rows.
template <typename T>
std::optional<T> value_at(const FileReader& reader, const std::vector<ColumnBatch>& all, size_t c,
                          size_t row) {
  const ColumnDescriptor& d = reader.schema().leaves()[c];
  size_t value = 0;
  for (size_t r = 0; r < row; ++r) {
    if (d.max_def == 0 || all[c].def_levels[r] == d.max_def) ++value;
  }
  if (d.max_def > 0 && all[c].def_levels[row] != d.max_def) return std::nullopt;
  if constexpr (std::is_same_v<T, std::string>) {
    return std::string(all[c].values.string(value));
  } else {
    return all[c].values.get<T>(value);
  }
}

TEST(TableScan, FilterRowsKeepsExactlyTheRowsWherePredicatesHold) {
  for (bool page_index : {true, false}) {
    auto reader = open_bytes(flat_file(4000, page_index, 1));
    const std::vector<ColumnBatch> all = read_table(*reader);
    // small = 5 AND name IS NOT NULL AND id between two values: pages outside are pruned, rows
    // inside are tested one by one.
    const int64_t low = 300 * int64_t{1'000'003} - 5'000'000'000LL;
    const int64_t high = 3200 * int64_t{1'000'003} - 5'000'000'000LL;
    RowFilter filter(reader->schema(), {{"small", CompareOp::EQ, int64_t{5}, {}},
                                        {"name", CompareOp::IS_NOT_NULL, {}, {}},
                                        {"id", CompareOp::BETWEEN, low, high}});
    std::vector<int64_t> rows;
    const std::vector<ColumnBatch> expected = rows_where(
        *reader, all,
        [&](size_t r) {
          return value_at<int32_t>(*reader, all, 1, r) == 5 &&
                 value_at<std::string>(*reader, all, 3, r).has_value() && r >= 300 && r <= 3200;
        },
        rows);
    ASSERT_GT(rows.size(), 20u);
    for (const Cuts& cuts : kCuts) {
      for (int threads : {1, 2, 5}) {
        Scanned s = scan_filtered(*reader, cuts, threads, filter);
        const std::string what = std::string(cuts.name) + " threads " + std::to_string(threads);
        expect_same(expected, s.columns, what);
        EXPECT_EQ(s.file_rows, rows) << what;
        EXPECT_EQ(s.stats.rows_delivered, rows.size()) << what;
        EXPECT_EQ(s.stats.rows_selected - s.stats.rows_dropped, rows.size()) << what;
        if (page_index) {
          EXPECT_LT(s.stats.rows_selected, 4000u) << what;
        }
      }
    }
    // Without filter_rows, pruning alone: every delivered row lies in a page that may match.
    ScanOptions o = options_for(kCuts[0], every_leaf(*reader), 2);
    o.filter = &filter;
    Scanned pruned = scan(*reader, o);
    EXPECT_GE(pruned.file_rows.size(), rows.size());
    EXPECT_EQ(pruned.stats.rows_dropped, 0u);
  }
}

TEST(TableScan, FilterOnDictionaryPagesThatFallBackToPlain) {
  // A dictionary that outgrows its limit mid-chunk: `name` has dictionary pages then PLAIN ones,
  // and the filter decides dictionary entries once and PLAIN values one by one; `passed` is a
  // boolean, `score` tested for nulls alone (levels only).
  for (bool page_index : {true, false}) {
    auto reader = open_bytes(flat_file(4000, page_index, 1, 900, 7));
    const std::vector<ColumnBatch> all = read_table(*reader);
    {  // the file is what the test is about: `name` pages of both kinds in the first row group
      auto column = reader->column(0, 3);
      column->set_value_form(ValueForm::INDICES);
      ColumnBatch batch;
      bool indexed = false, plain = false;
      while (column->read_batch(4096, batch) > 0) {
        indexed = indexed || batch.dictionary != nullptr;
        plain = plain || batch.values.count > 0;
      }
      ASSERT_TRUE(indexed && plain);
    }
    for (const std::string& name : {std::string("user-17"), std::string("")}) {
      RowFilter filter(reader->schema(), {{"name", CompareOp::GE, name, {}},
                                          {"name", CompareOp::LT, std::string("user-5"), {}},
                                          {"passed", CompareOp::EQ, true, {}},
                                          {"score", CompareOp::IS_NULL, {}, {}}});
      std::vector<int64_t> rows;
      const std::vector<ColumnBatch> expected = rows_where(
          *reader, all,
          [&](size_t r) {
            const std::optional<std::string> v = value_at<std::string>(*reader, all, 3, r);
            return v && *v >= name && *v < "user-5" && value_at<uint8_t>(*reader, all, 4, r) == 1 &&
                   !value_at<double>(*reader, all, 2, r).has_value();
          },
          rows);
      ASSERT_GT(rows.size(), 10u);
      for (const Cuts& cuts : kCuts) {
        for (int threads : {1, 3}) {
          Scanned s = scan_filtered(*reader, cuts, threads, filter);
          const std::string what = std::string(cuts.name) + " threads " + std::to_string(threads);
          expect_same(expected, s.columns, what);
          EXPECT_EQ(s.file_rows, rows) << what;
        }
      }
    }
  }
}

TEST(TableScan, FilteredScanReadsFewerBytesWithAPageIndex) {
  auto bytes = flat_file(4000, true, 1);
  MemoryFile memory("indexed.parquet", bytes);
  // Bytes a scan of every column reads after the footer, with and without a filter on the first
  // ten rows.
  auto read_bytes = [&](bool filtered, std::vector<ByteRange>* ranges) {
    auto recording = std::make_unique<RecordingFile>(memory);
    RecordingFile* recorder = recording.get();
    auto reader = FileReader::open(std::move(recording));
    const size_t footer_reads = recorder->ranges().size();
    RowFilter filter(reader->schema(), {{"id", CompareOp::LT, int64_t{-4'990'000'000LL}, {}}});
    ScanOptions o = options_for(kCuts[0], every_leaf(*reader), 2);
    if (filtered) {
      o.filter = &filter;
      o.filter_rows = true;
    }
    EXPECT_EQ(scan(*reader, o).file_rows.size(), filtered ? 10u : 4000u);
    uint64_t total = 0;
    for (size_t i = footer_reads; i < recorder->ranges().size(); ++i) {
      total += recorder->ranges()[i].length;
      if (ranges) ranges->push_back(recorder->ranges()[i]);
    }
    return total;
  };
  std::vector<ByteRange> ranges;
  const uint64_t filtered = read_bytes(true, &ranges);
  const uint64_t whole = read_bytes(false, nullptr);
  EXPECT_LT(filtered, whole / 2);
  // Nothing of row groups 1 and 2 (pruned by their statistics) was read.
  auto reader = open_bytes(bytes);
  const int64_t group1 = chunk_start(*reader->metadata().row_groups[1].columns[0].meta_data);
  const int64_t index_start = *reader->metadata().row_groups[0].columns[0].column_index_offset;
  for (const ByteRange& r : ranges) {
    const bool data_of_later_groups =
        static_cast<int64_t>(r.offset) >= group1 && static_cast<int64_t>(r.offset) < index_start;
    EXPECT_FALSE(data_of_later_groups) << r.offset << " +" << r.length;
  }
}

// Whether row r lies in one of `ranges`.
bool in_ranges(size_t r, const RowRanges& ranges) {
  for (const RowRange& w : ranges) {
    if (static_cast<int64_t>(r) >= w.begin && static_cast<int64_t>(r) < w.end) return true;
  }
  return false;
}

TEST(TableScan, RowsRestrictTheScan) {
  auto reader = open_bytes(flat_file(4000, false, 2));
  const std::vector<ColumnBatch> all = read_table(*reader);
  const RowRanges wanted = {{5, 9}, {1490, 1510}, {3990, 4100}};
  std::vector<int64_t> rows;
  const auto expected = rows_where(
      *reader, all, [&](size_t r) { return in_ranges(r, wanted); }, rows);
  for (int threads : {1, 3}) {
    ScanOptions o = options_for(kCuts[2], every_leaf(*reader), threads);
    o.rows = wanted;
    Scanned s = scan(*reader, o);
    expect_same(expected, s.columns, "threads " + std::to_string(threads));
    EXPECT_EQ(s.file_rows, rows);
    EXPECT_EQ(s.stats.row_groups, 3u);  // the groups holding rows 0-1499, 1500-2999, 3000-3999
  }
}

// A measure of a value that tells values apart: its size and a hash of its bytes.
uint64_t size_and_hash(std::span<const uint8_t> value) {
  uint64_t h = 1469598103934665603ull;
  for (uint8_t b : value) h = (h ^ b) * 1099511628211ull;
  return (h << 20) ^ value.size();
}

// `all` with column `c`'s values replaced by their measures.
std::vector<ColumnBatch> measured(std::vector<ColumnBatch> all, size_t c) {
  ValueBuffer measures = ValueBuffer::for_type(PhysicalType::BYTE_ARRAY, 0);
  for (size_t i = 0; i < all[c].values.count; ++i) {
    measures.append_measure(size_and_hash(all[c].values.bytes(i)));
  }
  all[c].values = std::move(measures);
  return all;
}

TEST(TableScan, AMeasuredColumnDeliversEachValuesMeasure) {
  // `name` (leaf 3): nulls, dictionary pages then PLAIN ones (measured in place), every cut and
  // thread count, the whole file, a filter on the measured column itself (which reads its values)
  // and rows picked out (the ones between them skipped).
  for (int version : {1, 2}) {
    auto reader = open_bytes(flat_file(4000, version == 1, version, 900, 7));
    const std::vector<ColumnBatch> all = read_table(*reader);
    const std::vector<ColumnBatch> expected = measured(all, 3);
    for (const Cuts& cuts : kCuts) {
      for (int threads : {1, 3}) {
        const std::string what = std::string(cuts.name) + " threads " + std::to_string(threads) +
                                 " v" + std::to_string(version);
        ScanOptions o = options_for(cuts, every_leaf(*reader), threads);
        o.measures = {nullptr, nullptr, nullptr, &size_and_hash, nullptr, nullptr};
        Scanned s = scan(*reader, o);
        expect_same(expected, s.columns, what);

        RowFilter filter(reader->schema(), {{"name", CompareOp::GE, std::string("user-17"), {}},
                                            {"passed", CompareOp::EQ, true, {}}});
        o.filter = &filter;
        o.filter_rows = true;
        std::vector<int64_t> rows;
        const std::vector<ColumnBatch> kept = rows_where(
            *reader, expected,
            [&](size_t r) {
              const std::optional<std::string> v = value_at<std::string>(*reader, all, 3, r);
              return v && *v >= "user-17" && value_at<uint8_t>(*reader, all, 4, r) == 1;
            },
            rows);
        ASSERT_GT(rows.size(), 10u);
        s = scan(*reader, o);
        expect_same(kept, s.columns, what + " filtered");
        EXPECT_EQ(s.file_rows, rows) << what;

        o.filter = nullptr;
        o.filter_rows = false;
        o.rows = RowRanges{{5, 9}, {1490, 1510}, {3990, 4000}};
        rows.clear();
        const std::vector<ColumnBatch> picked = rows_where(
            *reader, expected, [&](size_t r) { return in_ranges(r, *o.rows); }, rows);
        s = scan(*reader, o);
        expect_same(picked, s.columns, what + " rows");
        EXPECT_EQ(s.file_rows, rows) << what;
      }
    }
  }
}

TEST(TableScan, AMeasureNeedsOneEntryPerColumnAndAByteArrayColumn) {
  auto reader = open_bytes(flat_file(100, true, 1));
  ScanOptions o = options_for(kCuts[0], {0, 3}, 1);
  o.measures = {&size_and_hash};
  EXPECT_THROW(TableScan(*reader, o), UsageError);
  o.measures = {&size_and_hash, nullptr};  // leaf 0 is an INT64
  EXPECT_THROW(TableScan(*reader, o), UsageError);
  o.measures = {nullptr, &size_and_hash};
  EXPECT_NO_THROW(TableScan(*reader, o));
  auto column = reader->column(0, 0);
  EXPECT_THROW(column->set_measure(&size_and_hash), UsageError);
  EXPECT_THROW(column->set_value_form(ValueForm::MEASURES), UsageError);
}

// Rows picked out of files DuckDB wrote (its RLE and bit-packed levels, v1 and v2 pages, nulls,
// dictionaries, several pages and row groups): the levels of the rows between them are counted
// past, not decoded, and the rows kept hold what a full read gives for them. With every
// BYTE_ARRAY column measured, each delivers the measure of the values a full read gives.
TEST(TableScan, RowsPickedOutOfFilesDuckDbWrote) {
  for (const char* name : {"kernelbot_sample.parquet", "multi_page.parquet", "data_page_v2.parquet",
                           "dictionary.parquet", "v2_dictionary.parquet", "all_null.parquet",
                           "row_groups.parquet", "plain_strings.parquet", "types.parquet"}) {
    auto reader = FileReader::open(std::string(KBDATA_TEST_DATA) + "/" + name);
    bool flat = true;
    for (const ColumnDescriptor& d : reader->schema().leaves()) flat = flat && d.max_rep == 0;
    ASSERT_TRUE(flat) << name;
    const std::vector<ColumnBatch> all = read_table(*reader);
    const auto n = static_cast<int64_t>(all[0].num_levels);
    ASSERT_GT(n, 6) << name;
    // Every third row, then a run across the middle, then the last row.
    RowRanges wanted;
    for (int64_t r = 1; r < n / 2; r += 3) wanted.push_back({r, r + 1});
    wanted.push_back({n / 2 + 1, n / 2 + 1 + std::max<int64_t>(1, n / 8)});
    wanted.push_back({n - 1, n});
    std::vector<int64_t> rows;
    const auto expected = rows_where(
        *reader, all, [&](size_t r) { return in_ranges(r, wanted); }, rows);
    std::vector<ValueMeasure> measures;
    std::vector<ColumnBatch> all_measured = all;
    for (size_t c = 0; c < all.size(); ++c) {
      const bool binary = reader->schema().leaves()[c].physical == PhysicalType::BYTE_ARRAY;
      measures.push_back(binary ? &size_and_hash : nullptr);
      if (binary) all_measured = measured(std::move(all_measured), c);
    }
    std::vector<int64_t> measured_rows;
    const auto expected_measured = rows_where(
        *reader, all_measured, [&](size_t r) { return in_ranges(r, wanted); }, measured_rows);
    for (int threads : {1, 3}) {
      ScanOptions o = options_for(kCuts[0], every_leaf(*reader), threads);
      o.rows = wanted;
      const Scanned s = scan(*reader, o);
      const std::string what = std::string(name) + " threads " + std::to_string(threads);
      expect_same(expected, s.columns, what);
      EXPECT_EQ(s.file_rows, rows) << what;
      o.measures = measures;
      expect_same(expected_measured, scan(*reader, o).columns, what + " measured");
      o.rows.reset();
      expect_same(all_measured, scan(*reader, o).columns, what + " measured, every row");
      // Every snappy PLAIN page of a BYTE_ARRAY column decoded a piece at a time: the same rows.
      o.streamed_page_bytes = 0;
      expect_same(all_measured, scan(*reader, o).columns, what + " measured, streamed");
      o.measures.clear();
      o.rows = wanted;
      expect_same(expected, scan(*reader, o).columns, what + " streamed");
    }
  }
}

TEST(TableScan, DeliverCanStopTheScan) {
  auto reader = open_bytes(flat_file(4000, true, 1));
  for (int threads : {1, 2, 8}) {
    Scanned s = scan(*reader, options_for(kCuts[1], every_leaf(*reader), threads), 3);
    EXPECT_EQ(s.batch_rows.size(), 3u) << threads;
    EXPECT_EQ(s.file_rows.size(), 3 * 97u) << threads;
  }
}

TEST(TableScan, AnErrorInMapIsTheEarliestBatchsWhateverTheThreads) {
  auto reader = open_bytes(flat_file(4000, true, 1));
  std::string first_message;
  size_t first_delivered = 0;
  for (int threads : {1, 2, 8}) {
    ScanOptions o = options_for(kCuts[1], every_leaf(*reader), threads);
    TableScan scan(*reader, o);
    size_t delivered = 0;
    std::string message;
    try {
      scan.run(
          [](ScanBatch& batch) {
            if (batch.file_row(0) >= 1000) {
              throw FormatError("bad row " + std::to_string(batch.file_row(0)));
            }
          },
          [&](ScanBatch& batch) {
            EXPECT_LT(batch.file_row(0), 1000);
            ++delivered;
            return true;
          });
      ADD_FAILURE() << "no error";
    } catch (const FormatError& e) {
      message = e.what();
    }
    EXPECT_NE(message.find("bad row 10"), std::string::npos) << message;
    EXPECT_NE(message.find("row group 0"), std::string::npos) << message;
    if (threads == 1) {
      first_message = message;
      first_delivered = delivered;
      EXPECT_GT(delivered, 5u);
    } else {
      EXPECT_EQ(message, first_message) << threads;
      EXPECT_EQ(delivered, first_delivered) << threads;
    }
  }
}

TEST(TableScan, ACorruptPageIsTheSameErrorWhateverTheThreads) {
  std::vector<uint8_t> bytes = flat_file(4000, true, 1);
  auto clean = open_bytes(bytes);
  // Garble the middle of a data page of the `name` column in the last row group.
  const auto& chunk = *clean->metadata().row_groups.back().columns[3].meta_data;
  const size_t at = static_cast<size_t>(chunk.data_page_offset);
  for (size_t i = at; i < at + 40 && i < bytes.size(); ++i) bytes[i] = 0xff;
  std::string first;
  // Rows delivered before the error, per way of cutting, with one thread: the earlier row groups
  // whole, whatever the threads (their units may still be in progress when the last group's
  // resident columns are read).
  std::map<std::string, size_t> delivered_alone;
  for (int threads : {1, 2, 8}) {
    for (const Cuts& cuts : kCuts) {
      auto reader = open_bytes(bytes);
      size_t delivered = 0;
      try {
        TableScan scan(*reader, options_for(cuts, every_leaf(*reader), threads));
        scan.run({}, [&](ScanBatch& batch) {
          delivered += batch.num_rows;
          return true;
        });
        ADD_FAILURE() << "no error";
      } catch (const Error& e) {
        if (threads == 1) delivered_alone[cuts.name] = delivered;
        EXPECT_EQ(delivered, delivered_alone[cuts.name]) << cuts.name << " threads " << threads;
        EXPECT_GE(delivered, 3000u) << cuts.name << " threads " << threads;
        EXPECT_NE(std::string(e.what()).find("row group 2"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("name"), std::string::npos) << e.what();
        if (threads == 1 && first.empty()) first = e.what();
        if (std::string(cuts.name) == "defaults") {
          EXPECT_EQ(e.what(), first) << threads;
        }
      }
    }
  }
}

}  // namespace
}  // namespace kbdata::parquet
