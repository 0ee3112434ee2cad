// Write throughput: kbdata's FileWriter against DuckDB's COPY ... TO parquet, writing the same
// in-memory table with the same codec, timed alternately in one run.
//
//   write_bench [FILE] [--rounds N]
//
// FILE defaults to $KBDATA_BENCH_FILE, else build/bench-data/bench_flat.parquet of the source tree
// (bench/make-bench-data.mjs). Both sides first load the whole table into memory (kbdata as
// column batches of 16,384 rows, DuckDB as a table), so only encoding, compression and writing
// are timed; each writes to a file in the system's temporary folder without fsync. DuckDB is
// loaded from the npm peers' libduckdb.so (bench/duckdb_c_api.h) and runs with its default thread
// count (every core) and, for reference, with one thread; kbdata's writer is single-threaded.
//
// Prints, per codec, the median time of each side over N rounds (default 3), the MB/s of the
// table's uncompressed values, the output sizes, and the ratio kbdata time / DuckDB time
// (lower is better), the median of the per-round ratios with their range.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "common/error.h"
#include "common/file.h"
#include "duckdb_c_api.h"
#include "parquet/file_reader.h"
#include "parquet/write/file_writer.h"

namespace {

namespace fs = std::filesystem;
using kbdata::parquet::Codec;
using kbdata::parquet::ColumnBatch;
using Clock = std::chrono::steady_clock;

// Output to a plain file, as DuckDB's COPY writes (no temporary, no fsync).
class PlainFileSink final : public kbdata::OutputSink {
 public:
  explicit PlainFileSink(const std::string& path)
      : fd_(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644)) {
    if (fd_ < 0) throw std::runtime_error("cannot create " + path);
  }
  ~PlainFileSink() override { ::close(fd_); }
  PlainFileSink(const PlainFileSink&) = delete;
  PlainFileSink& operator=(const PlainFileSink&) = delete;
  void write(std::span<const uint8_t> bytes) override {
    size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
      if (n < 0) throw std::runtime_error("write failed");
      done += static_cast<size_t>(n);
    }
  }

 private:
  int fd_;
};

struct Table {
  std::vector<kbdata::parquet::SchemaElement> schema;
  std::vector<std::vector<ColumnBatch>> batches;  // [batch][leaf]
  double value_bytes = 0;
  int64_t rows = 0;
};

Table load(const std::string& path) {
  auto reader = kbdata::parquet::FileReader::open(path);
  Table table;
  table.schema = reader->metadata().schema;
  table.rows = reader->num_rows();
  const size_t leaves = reader->schema().leaves().size();
  for (int g = 0; g < reader->num_row_groups(); ++g) {
    std::vector<std::unique_ptr<kbdata::parquet::ColumnReader>> columns;
    for (size_t leaf = 0; leaf < leaves; ++leaf)
      columns.push_back(reader->column(g, static_cast<int>(leaf)));
    while (true) {
      std::vector<ColumnBatch> batch(leaves);
      size_t records = 0;
      for (size_t leaf = 0; leaf < leaves; ++leaf) {
        records = columns[leaf]->read_records(16'384, batch[leaf]);
        table.value_bytes += static_cast<double>(batch[leaf].values.data.size());
      }
      if (records == 0) break;
      table.batches.push_back(std::move(batch));
    }
  }
  return table;
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double write_kbdata(const Table& table, Codec codec, const std::string& out) {
  auto start = Clock::now();
  {
    PlainFileSink sink(out);
    kbdata::parquet::WriterOptions options;
    options.codec = codec;
    options.threads = static_cast<int>(
        std::max(1u, std::thread::hardware_concurrency()));  // as the command's default
    kbdata::parquet::FileWriter writer(sink, table.schema, options);
    for (const auto& batch : table.batches) writer.write(batch);
    writer.close();
  }
  return seconds_since(start);
}

double write_duckdb(kbdata::bench::DuckDb& duckdb, const char* codec, const std::string& out) {
  auto start = Clock::now();
  duckdb.run("COPY t TO '" + out + "' (FORMAT parquet, COMPRESSION " + codec + ")");
  return seconds_since(start);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 == 1 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

double file_mb(const std::string& path) { return static_cast<double>(fs::file_size(path)) / 1e6; }

}  // namespace

int main(int argc, char** argv) {
  std::string path;
  int rounds = 3;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--rounds" && i + 1 < argc) {
      rounds = std::max(1, std::atoi(argv[++i]));
    } else {
      path = arg;
    }
  }
  if (path.empty()) {
    const char* env = std::getenv("KBDATA_BENCH_FILE");
    path = env != nullptr ? env
                          : std::string(KBDATA_SOURCE_DIR) + "/build/bench-data/bench_flat.parquet";
  }
  if (!fs::exists(path)) {
    std::fprintf(stderr, "write_bench: %s is missing; run `node bench/make-bench-data.mjs`\n",
                 path.c_str());
    return 1;
  }
  try {
    Table table = load(path);
    kbdata::bench::DuckDb duckdb(kbdata::bench::duckdb_library(KBDATA_SOURCE_DIR));
    duckdb.run("CREATE TABLE t AS SELECT * FROM read_parquet('" + path + "')");
    const std::string dir = fs::temp_directory_path().string();
    const std::string ours = dir + "/write_bench_kbdata.parquet";
    const std::string theirs = dir + "/write_bench_duckdb.parquet";
    const double mb = table.value_bytes / 1e6;
    std::printf("write_bench: %s, %lld rows, %.0f MB of values; %d rounds, alternating\n",
                path.c_str(), static_cast<long long>(table.rows), mb, rounds);
    std::printf("%-7s %-16s %9s %9s %9s  %s\n", "codec", "writer", "median s", "MB/s", "out MB",
                "kbdata/DuckDB time (median, range)");
    struct Codecs {
      Codec ours;
      const char* name;
    };
    for (Codecs codec : {Codecs{Codec::SNAPPY, "snappy"}, Codecs{Codec::ZSTD, "zstd"}}) {
      for (int threads : {0, 1}) {
        duckdb.run(threads == 0 ? "RESET threads" : "SET threads = 1");
        std::vector<double> kb;
        std::vector<double> dk;
        std::vector<double> ratios;
        for (int r = 0; r < rounds; ++r) {
          kb.push_back(write_kbdata(table, codec.ours, ours));
          dk.push_back(write_duckdb(duckdb, codec.name, theirs));
          ratios.push_back(kb.back() / dk.back());
        }
        std::string duck_name = threads == 0 ? "DuckDB (default)" : "DuckDB 1 thread";
        std::printf("%-7s %-16s %9.2f %9.0f %9.1f\n", codec.name, "kbdata", median(kb),
                    mb / median(kb), file_mb(ours));
        std::printf("%-7s %-16s %9.2f %9.0f %9.1f  %.2f (%.2f..%.2f)\n", codec.name,
                    duck_name.c_str(), median(dk), mb / median(dk), file_mb(theirs), median(ratios),
                    *std::min_element(ratios.begin(), ratios.end()),
                    *std::max_element(ratios.begin(), ratios.end()));
      }
    }
    fs::remove(ours);
    fs::remove(theirs);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "write_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
