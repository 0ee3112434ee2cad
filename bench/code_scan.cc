// The full scan of a string column as a whole process, kbdata's side of duckdb_compare's `code
// scan` task: reads every value of COLUMN (default `code`) with the Parquet reader, sums their
// lengths in bytes and combines a 64-bit hash of each (XXH3, folded by XOR, so the order of the
// values does not matter), then prints one CSV line:
//
//   values,bytes,hash       (non-null values, their total length in bytes, the hash in hex)
//
//   code_scan [--workers N] FILE [COLUMN]
//
// DuckDB's side is `SELECT count(code), sum(strlen(code)), bit_xor(hash(code))`: the same values
// and byte sum (strlen counts bytes), a hash of each value folded the same way. The hash functions
// differ (DuckDB's own against XXH3), so only the first two fields can be compared; both sides
// read and hash every byte.
//
// Like DuckDB, it uses every core (--workers N: N workers instead of one per core), and splits
// row groups, so that a file of one row group (the published layout) is still read in parallel:
// each column chunk is cut into work units of consecutive pages, about kUnitBytes of compressed
// pages each, smaller when that leaves fewer than kUnitsPerWorker units per worker. Page
// locations come from the chunk's OffsetIndex or, without a page index, from a walk of its page
// headers (FileReader::page_locations; a few KiB read per page). Workers take units in file order
// from an atomic counter, each with a FileReader of its own, and read a unit with a ColumnReader
// restricted to its rows (select_rows): pages outside the unit are skipped unread, and the
// dictionary page, if any, is read by every unit. A chunk whose pages cannot be located (a
// repeated column with v1 pages and no index) is one unit. Batches are of kBatch values, so a
// worker holds about one page and kBatch values (~14 KB each in the NVFP4 data). Exit status 0,
// 1 with a message on stderr, 2 for bad arguments.
#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "common/malloc_tuning.h"
#include "parquet/column_reader.h"
#include "parquet/file_reader.h"
#include "parquet/page_index.h"

namespace {

namespace pq = kbdata::parquet;

constexpr size_t kBatch = 256;
constexpr int64_t kUnitBytes = int64_t{32} << 20;
constexpr int64_t kMinUnitBytes = int64_t{1} << 20;
constexpr int64_t kUnitsPerWorker = 4;

struct Totals {
  uint64_t values = 0;
  uint64_t bytes = 0;
  uint64_t hash = 0;
};

// Rows [rows.begin, rows.end) of one row group, or the whole chunk when `pages` is null.
struct Unit {
  int row_group = 0;
  pq::RowRange rows;
  const pq::OffsetIndex* pages = nullptr;  // points into Plan::indexes
  int64_t group_rows = 0;
};

struct Plan {
  std::vector<std::optional<pq::OffsetIndex>> indexes;  // per row group
  std::vector<Unit> units;
};

// Cuts every chunk of `leaf` into units of consecutive pages.
Plan plan_units(pq::FileReader& reader, int leaf, int workers) {
  Plan plan;
  int64_t total = 0;
  for (int g = 0; g < reader.num_row_groups(); ++g) {
    const auto& meta = reader.metadata()
                           .row_groups[static_cast<size_t>(g)]
                           .columns[static_cast<size_t>(leaf)]
                           .meta_data;
    if (meta) total += meta->total_compressed_size;
  }
  const int64_t target = std::clamp(total / (kUnitsPerWorker * workers), kMinUnitBytes, kUnitBytes);
  plan.indexes.resize(static_cast<size_t>(reader.num_row_groups()));
  for (int g = 0; g < reader.num_row_groups(); ++g) {
    const int64_t group_rows = reader.metadata().row_groups[static_cast<size_t>(g)].num_rows;
    auto& index = plan.indexes[static_cast<size_t>(g)];
    index = reader.page_locations(g, leaf);
    if (!index || index->page_locations.empty()) {
      plan.units.push_back({g, {0, group_rows}, nullptr, group_rows});
      continue;
    }
    const auto& pages = index->page_locations;
    size_t first = 0;
    int64_t bytes = 0;
    for (size_t i = 0; i < pages.size(); ++i) {
      bytes += pages[i].compressed_page_size;
      if (bytes < target && i + 1 < pages.size()) continue;
      const int64_t end = i + 1 < pages.size() ? pages[i + 1].first_row_index : group_rows;
      if (pages[first].first_row_index < end) {
        plan.units.push_back({g, {pages[first].first_row_index, end}, &*index, group_rows});
      }
      first = i + 1;
      bytes = 0;
    }
  }
  return plan;
}

// Scans the units that `next` hands out, adding to `totals`. Throws as the reader does.
void scan(const std::string& path, int leaf, const std::vector<Unit>& units,
          std::atomic<size_t>& next, Totals& totals) {
  auto reader = pq::FileReader::open(path);
  pq::ColumnBatch batch;
  for (size_t u = next++; u < units.size(); u = next++) {
    const Unit& unit = units[u];
    auto column = reader->column(unit.row_group, leaf);
    if (unit.pages) column->select_rows({unit.rows}, unit.pages, unit.group_rows);
    while (column->read_batch(kBatch, batch) > 0) {
      const pq::ValueBuffer& v = batch.values;
      for (size_t i = 0; i < v.count; ++i) {
        const auto value = v.bytes(i);
        totals.bytes += value.size();
        totals.hash ^= XXH3_64bits(value.data(), value.size());
      }
      totals.values += v.count;
    }
  }
}

[[noreturn]] void usage() {
  std::fprintf(stderr, "usage: code_scan [--workers N] FILE [COLUMN]\n");
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  kbdata::tune_malloc_for_readers();  // as the kbdata binary does
  int workers = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--workers") {
      if (i + 1 >= argc) usage();
      char* end = nullptr;
      const long n = std::strtol(argv[++i], &end, 10);
      if (*end != '\0' || n < 1 || n > 1024) usage();
      workers = static_cast<int>(n);
    } else {
      args.push_back(arg);
    }
  }
  if (args.empty() || args.size() > 2) usage();
  const std::string path = args[0];
  const std::string column_name = args.size() == 2 ? args[1] : "code";
  try {
    auto reader = pq::FileReader::open(path);
    const auto leaf = reader->schema().find_leaf(column_name);
    if (!leaf || !(reader->schema().leaves()[*leaf].physical == pq::PhysicalType::BYTE_ARRAY)) {
      std::fprintf(stderr, "code_scan: %s has no string column %s\n", path.c_str(),
                   column_name.c_str());
      return 1;
    }
    const Plan plan = plan_units(*reader, *leaf, workers);
    reader.reset();
    workers = static_cast<int>(std::clamp<size_t>(static_cast<size_t>(workers), 1,
                                                  std::max<size_t>(1, plan.units.size())));
    std::atomic<size_t> next{0};
    std::vector<Totals> totals(static_cast<size_t>(workers));
    std::vector<std::string> errors(static_cast<size_t>(workers));
    std::vector<std::thread> threads;
    for (int w = 0; w < workers; ++w) {
      threads.emplace_back([&, w] {
        try {
          scan(path, *leaf, plan.units, next, totals[static_cast<size_t>(w)]);
        } catch (const std::exception& e) {
          errors[static_cast<size_t>(w)] = e.what();
          next = plan.units.size();  // the others stop after their current unit
        }
      });
    }
    for (std::thread& t : threads) t.join();
    Totals all;
    for (size_t w = 0; w < totals.size(); ++w) {
      if (!errors[w].empty()) throw std::runtime_error(errors[w]);
      all.values += totals[w].values;
      all.bytes += totals[w].bytes;
      all.hash ^= totals[w].hash;
    }
    std::printf("%" PRIu64 ",%" PRIu64 ",%016" PRIx64 "\n", all.values, all.bytes, all.hash);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "code_scan: %s\n", e.what());
    return 1;
  }
}
