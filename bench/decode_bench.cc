// Decode throughput of the Parquet reader, next to the bare decompression of the same pages.
//
//   BM_DecompressOnly  walks every column chunk with PageReader::next(), which reads and
//                      decompresses each page and does nothing else: the ceiling for any reader
//                      of this file.
//   BM_Decode          reads every column of every row group with ColumnReader::read_batch in
//                      batches of kBatchLevels: decompression, levels and values.
//
// Both report bytes_per_second over the same byte count, the sum of the column chunks'
// total_uncompressed_size, so their ratio (printed at the end) is the share of the decompression
// ceiling the reader reaches. Absolute MB/s depend on the machine; the ratio much less.
//
// The file comes from $KBDATA_BENCH_FILE, else build/bench-data/bench_flat.parquet in the source
// tree (made by `node bench/make-bench-data.mjs`). See bench/README.md.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/file.h"
#include "parquet/column_reader.h"
#include "parquet/file_reader.h"
#include "parquet/metadata.h"
#include "parquet/page_index.h"
#include "parquet/page_reader.h"

namespace {

using kbdata::parquet::ColumnBatch;
using kbdata::parquet::ColumnMetaData;
using kbdata::parquet::FileReader;
using kbdata::parquet::PageReader;

constexpr size_t kBatchLevels = 4096;

std::string bench_file_path() {
  if (const char* path = std::getenv("KBDATA_BENCH_FILE"); path != nullptr && *path != '\0') {
    return path;
  }
  return std::string(KBDATA_SOURCE_DIR) + "/build/bench-data/bench_flat.parquet";
}

// The byte count both benchmarks report: every chunk's total_uncompressed_size (page headers
// included, as the format counts it).
int64_t total_uncompressed_bytes(const FileReader& reader) {
  int64_t total = 0;
  for (const auto& row_group : reader.metadata().row_groups) {
    for (const auto& chunk : row_group.columns) {
      if (chunk.meta_data) total += chunk.meta_data->total_uncompressed_size;
    }
  }
  return total;
}

void BM_DecompressOnly(benchmark::State& state) {
  try {
    auto reader = FileReader::open(bench_file_path());
    const int64_t bytes = total_uncompressed_bytes(*reader);
    int64_t pages = 0;
    for (auto _ : state) {
      for (const auto& row_group : reader->metadata().row_groups) {
        for (const auto& chunk : row_group.columns) {
          if (!chunk.meta_data) continue;
          const ColumnMetaData& meta = *chunk.meta_data;
          const int64_t start = kbdata::parquet::chunk_start(meta);
          PageReader page_reader(reader->file(), start, meta.total_compressed_size, meta.codec);
          while (auto page = page_reader.next()) {
            benchmark::DoNotOptimize(page->body.data());
            ++pages;
          }
        }
      }
    }
    state.SetBytesProcessed(state.iterations() * bytes);
    state.counters["pages"] =
        benchmark::Counter(static_cast<double>(pages), benchmark::Counter::kAvgIterations);
  } catch (const std::exception& error) {
    state.SkipWithError(error.what());
  }
}

void BM_Decode(benchmark::State& state) {
  try {
    auto reader = FileReader::open(bench_file_path());
    const int64_t bytes = total_uncompressed_bytes(*reader);
    const int leaves = static_cast<int>(reader->schema().leaves().size());
    int64_t values = 0;
    // One batch for every column, as kbdata's scan hands each unit its batch's storage back: a
    // batch made afresh for each column had its buffers mapped, faulted in and unmapped again
    // (page faults were 6% of this benchmark's samples), which no command pays.
    ColumnBatch batch;
    for (auto _ : state) {
      for (int row_group = 0; row_group < reader->num_row_groups(); ++row_group) {
        for (int leaf = 0; leaf < leaves; ++leaf) {
          auto column = reader->column(row_group, leaf);
          while (column->read_batch(kBatchLevels, batch) > 0) {
            values += static_cast<int64_t>(batch.values.count);
            benchmark::DoNotOptimize(batch.values.data.data());
          }
        }
      }
    }
    state.SetBytesProcessed(state.iterations() * bytes);
    state.counters["values"] =
        benchmark::Counter(static_cast<double>(values), benchmark::Counter::kAvgIterations);
  } catch (const std::exception& error) {
    state.SkipWithError(error.what());
  }
}

// Each iteration reads the whole file (hundreds of MB), so a few iterations suffice. The warm-up
// brings the file into the page cache; rates are per CPU second (the reader is single-threaded, so
// on an idle machine that equals wall time, and on a busy one it is far less noisy).
BENCHMARK(BM_DecompressOnly)->Unit(benchmark::kMillisecond)->MinWarmUpTime(1.0)->MinTime(2.0);
BENCHMARK(BM_Decode)->Unit(benchmark::kMillisecond)->MinWarmUpTime(1.0)->MinTime(2.0);

// The console reporter, remembering each benchmark's bytes_per_second to print the ratio.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  explicit RatioReporter(OutputOptions options) : ConsoleReporter(options) {}

  void ReportRuns(const std::vector<Run>& reports) override {
    for (const Run& run : reports) {
      if (run.error_occurred || run.run_type != Run::RT_Iteration) continue;
      auto it = run.counters.find("bytes_per_second");
      if (it == run.counters.end()) continue;
      auto& [sum, count] = rates_[run.run_name.function_name];
      sum += it->second.value;
      ++count;
    }
    ConsoleReporter::ReportRuns(reports);
  }

  // Mean bytes per second of `name` over its repetitions, or 0 if it did not run.
  [[nodiscard]] double rate(const std::string& name) const {
    auto it = rates_.find(name);
    return it == rates_.end() ? 0.0 : it->second.first / it->second.second;
  }

 private:
  std::map<std::string, std::pair<double, int>> rates_;
};

}  // namespace

int main(int argc, char** argv) {
  const std::string path = bench_file_path();
  if (!std::filesystem::exists(path)) {
    std::fprintf(
        stderr,
        "decode_bench: %s does not exist.\n"
        "Generate it with `node bench/make-bench-data.mjs` (from the source tree), or set\n"
        "KBDATA_BENCH_FILE to a flat Parquet file.\n",
        path.c_str());
    return 2;
  }
  try {
    auto reader = FileReader::open(path);
    std::printf(
        "file: %s\n  %.1f MB on disk, %lld rows, %d row group(s), %zu columns, "
        "%.1f MB uncompressed\n",
        path.c_str(), static_cast<double>(reader->file().size()) / 1e6,
        static_cast<long long>(reader->num_rows()), reader->num_row_groups(),
        reader->schema().leaves().size(),
        static_cast<double>(total_uncompressed_bytes(*reader)) / 1e6);
  } catch (const kbdata::Error& error) {
    std::fprintf(stderr, "decode_bench: %s\n", error.what());
    return 1;
  }

  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  RatioReporter reporter(isatty(fileno(stdout)) != 0 ? RatioReporter::OO_ColorTabular
                                                     : RatioReporter::OO_Tabular);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();

  const double decompress = reporter.rate("BM_DecompressOnly");
  const double decode = reporter.rate("BM_Decode");
  if (decompress > 0 && decode > 0) {
    std::printf(
        "\ndecompress only: %.0f MB/s   decode: %.0f MB/s   (uncompressed bytes)\n"
        "decode / decompress-only = %.2f\n",
        decompress / 1e6, decode / 1e6, decode / decompress);
  }
  return 0;
}
