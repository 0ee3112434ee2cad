// The full scan of a string column as a whole process, kbdata's side of duckdb_compare's `code
// scan` task: reads every value of COLUMN (default `code`) with the Parquet reader, sums their
// lengths in bytes and combines a 64-bit hash of each (XXH3, folded by XOR, so the order of the
// values does not matter), then prints one CSV line:
//
//   values,bytes,hash       (non-null values, their total length in bytes, the hash in hex)
//
//   code_scan FILE [COLUMN]
//
// DuckDB's side is `SELECT count(code), sum(strlen(code)), bit_xor(hash(code))`: the same values
// and byte sum (strlen counts bytes), a hash of each value folded the same way. The hash functions
// differ (DuckDB's own against XXH3), so only the first two fields can be compared; both sides
// read and hash every byte. Like DuckDB, it uses every core: one worker per core takes row groups
// in turn, each with a FileReader of its own (a file of one row group is read by one worker).
// Batches are of kBatch values, so a worker holds about one page and kBatch values (~14 KB each
// in the NVFP4 data). Exit status 0, 1 with a message on stderr.
#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "parquet/column_reader.h"
#include "parquet/file_reader.h"

namespace {

constexpr size_t kBatch = 256;

struct Totals {
  uint64_t values = 0;
  uint64_t bytes = 0;
  uint64_t hash = 0;
};

// Scans the row groups that `next` hands out, adding to `totals`. Throws as the reader does.
void scan(const std::string& path, int leaf, std::atomic<int>& next, Totals& totals) {
  auto reader = kbdata::parquet::FileReader::open(path);
  kbdata::parquet::ColumnBatch batch;
  for (int row_group = next++; row_group < reader->num_row_groups(); row_group = next++) {
    auto column = reader->column(row_group, leaf);
    while (column->read_batch(kBatch, batch) > 0) {
      const kbdata::parquet::ValueBuffer& v = batch.values;
      for (size_t i = 0; i < v.count; ++i) {
        const auto value = v.bytes(i);
        totals.bytes += value.size();
        totals.hash ^= XXH3_64bits(value.data(), value.size());
      }
      totals.values += v.count;
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: code_scan FILE [COLUMN]\n");
    return 2;
  }
  const std::string path = argv[1];
  const std::string column_name = argc == 3 ? argv[2] : "code";
  try {
    auto reader = kbdata::parquet::FileReader::open(path);
    const auto leaf = reader->schema().find_leaf(column_name);
    if (!leaf ||
        !(reader->schema().leaves()[*leaf].physical == kbdata::parquet::PhysicalType::BYTE_ARRAY)) {
      std::fprintf(stderr, "code_scan: %s has no string column %s\n", path.c_str(),
                   column_name.c_str());
      return 1;
    }
    const int workers = static_cast<int>(
        std::clamp<unsigned>(std::thread::hardware_concurrency(), 1,
                             static_cast<unsigned>(std::max(1, reader->num_row_groups()))));
    reader.reset();
    std::atomic<int> next{0};
    std::vector<Totals> totals(static_cast<size_t>(workers));
    std::vector<std::string> errors(static_cast<size_t>(workers));
    std::vector<std::thread> threads;
    for (int w = 0; w < workers; ++w) {
      threads.emplace_back([&, w] {
        try {
          scan(path, *leaf, next, totals[static_cast<size_t>(w)]);
        } catch (const std::exception& e) {
          errors[static_cast<size_t>(w)] = e.what();
          next = 1 << 30;  // the others stop after their current row group
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
