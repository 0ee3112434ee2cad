// Peak memory of reading every column of a large file: shows that the reader's memory is bounded
// by its pages and batches, not by the size of a row group or of the file.
//
//   memory_bench [--columns] [--batch N] [FILE]
//
// FILE defaults to $KBDATA_BENCH_LARGE_FILE, else build/bench-data/bench_flat_large.parquet in the
// source tree (made by `node bench/make-bench-data.mjs --large`: one row group of ~1.1 GB).
//
// By default the columns of a row group are read in lockstep, one batch of each column in turn,
// as a row-oriented consumer (the CLI's row writer) reads them: every column's reader holds its
// current page at once. --columns reads one whole column chunk after the other instead.
//
// Prints the file's size and layout, its largest pages (from the page headers, read after the
// measurement), and the peak resident set size (getrusage ru_maxrss). Expected: the peak is about
// the baseline plus, per column, one compressed and one decompressed page plus a batch, however
// large the row group. DuckDB writes pages of up to ~105 MB, so for its files that is a few hundred
// MB; for writers with 1 MB pages (pyarrow's default), tens of MB.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/file.h"
#include "parquet/column_reader.h"
#include "parquet/file_reader.h"
#include "parquet/metadata.h"
#include "parquet/page_index.h"

namespace {

using kbdata::parquet::ColumnBatch;
using kbdata::parquet::ColumnMetaData;
using kbdata::parquet::ColumnReader;
using kbdata::parquet::FileReader;

double megabytes(double bytes) { return bytes / 1e6; }

// Peak resident set size of this process so far, in bytes (Linux reports ru_maxrss in KiB).
double peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) * 1024.0;
}

struct LargestPage {
  int64_t compressed = 0;
  int64_t uncompressed = 0;
  std::string column;
};

// The page with the largest uncompressed size, found by reading only the page headers.
LargestPage find_largest_page(FileReader& reader) {
  LargestPage largest;
  kbdata::RandomAccessFile& file = reader.file();
  std::vector<uint8_t> buffer;
  for (const auto& row_group : reader.metadata().row_groups) {
    for (const auto& chunk : row_group.columns) {
      if (!chunk.meta_data) continue;
      const ColumnMetaData& meta = *chunk.meta_data;
      int64_t position = kbdata::parquet::chunk_start(meta);
      const int64_t end = position + meta.total_compressed_size;
      while (position < end) {
        // Page headers are small; read more only if one does not fit.
        size_t want = 1 << 16;
        for (;;) {
          const size_t length = static_cast<size_t>(std::min<int64_t>(want, end - position));
          buffer.resize(length);
          file.read_at(static_cast<uint64_t>(position), buffer);
          try {
            size_t header_size = 0;
            const auto header = kbdata::parquet::decode_page_header(buffer, position, header_size);
            if (header.uncompressed_page_size > largest.uncompressed) {
              largest = {header.compressed_page_size, header.uncompressed_page_size,
                         meta.path_in_schema.empty() ? "?" : meta.path_in_schema.back()};
            }
            position += static_cast<int64_t>(header_size) + header.compressed_page_size;
            break;
          } catch (const kbdata::TruncatedError&) {
            if (static_cast<int64_t>(length) >= end - position || want >= (16u << 20)) throw;
            want *= 4;
          }
        }
      }
    }
  }
  return largest;
}

struct ReadTotals {
  int64_t levels = 0;
  int64_t values = 0;
  int64_t value_bytes = 0;
};

void add_batch(const ColumnBatch& batch, ReadTotals& totals) {
  totals.levels += static_cast<int64_t>(batch.num_levels);
  totals.values += static_cast<int64_t>(batch.values.count);
  totals.value_bytes += static_cast<int64_t>(batch.values.data.size());
}

// Reads the columns of each row group one batch of each in turn.
ReadTotals read_in_lockstep(FileReader& reader, size_t batch_levels) {
  ReadTotals totals;
  const int leaves = static_cast<int>(reader.schema().leaves().size());
  for (int row_group = 0; row_group < reader.num_row_groups(); ++row_group) {
    std::vector<std::unique_ptr<ColumnReader>> columns;
    std::vector<ColumnBatch> batches(static_cast<size_t>(leaves));
    for (int leaf = 0; leaf < leaves; ++leaf) columns.push_back(reader.column(row_group, leaf));
    for (bool any = true; any;) {
      any = false;
      for (int leaf = 0; leaf < leaves; ++leaf) {
        auto& column = columns[static_cast<size_t>(leaf)];
        if (!column) continue;
        auto& batch = batches[static_cast<size_t>(leaf)];
        if (column->read_batch(batch_levels, batch) == 0) {
          column.reset();  // release its buffers as soon as the chunk is done
          continue;
        }
        add_batch(batch, totals);
        any = true;
      }
    }
  }
  return totals;
}

// Reads one whole column chunk after the other.
ReadTotals read_column_by_column(FileReader& reader, size_t batch_levels) {
  ReadTotals totals;
  const int leaves = static_cast<int>(reader.schema().leaves().size());
  for (int row_group = 0; row_group < reader.num_row_groups(); ++row_group) {
    for (int leaf = 0; leaf < leaves; ++leaf) {
      auto column = reader.column(row_group, leaf);
      ColumnBatch batch;
      while (column->read_batch(batch_levels, batch) > 0) add_batch(batch, totals);
    }
  }
  return totals;
}

int usage() {
  std::fprintf(stderr, "usage: memory_bench [--columns] [--batch N] [FILE]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  bool by_column = false;
  size_t batch_levels = 4096;
  std::string path;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--columns") {
      by_column = true;
    } else if (arg == "--batch" && i + 1 < argc) {
      batch_levels = static_cast<size_t>(std::strtoull(argv[++i], nullptr, 10));
      if (batch_levels == 0) return usage();
    } else if (!arg.empty() && arg[0] == '-') {
      return usage();
    } else if (path.empty()) {
      path = arg;
    } else {
      return usage();
    }
  }
  if (path.empty()) {
    const char* env = std::getenv("KBDATA_BENCH_LARGE_FILE");
    path = env != nullptr && *env != '\0'
               ? env
               : std::string(KBDATA_SOURCE_DIR) + "/build/bench-data/bench_flat_large.parquet";
  }
  if (!std::filesystem::exists(path)) {
    std::fprintf(stderr,
                 "memory_bench: %s does not exist.\n"
                 "Generate it with `node bench/make-bench-data.mjs --large` (from the source "
                 "tree), or pass a Parquet file.\n",
                 path.c_str());
    return 2;
  }

  try {
    auto reader = FileReader::open(path);
    const double baseline = peak_rss_bytes();

    const auto started = std::chrono::steady_clock::now();
    const ReadTotals totals = by_column ? read_column_by_column(*reader, batch_levels)
                                        : read_in_lockstep(*reader, batch_levels);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const double peak = peak_rss_bytes();  // before anything else allocates

    int64_t uncompressed = 0;
    int64_t largest_group_compressed = 0;
    int64_t largest_group_uncompressed = 0;
    for (const auto& row_group : reader->metadata().row_groups) {
      int64_t group_compressed = 0;
      int64_t group_uncompressed = 0;
      for (const auto& chunk : row_group.columns) {
        if (!chunk.meta_data) continue;
        group_compressed += chunk.meta_data->total_compressed_size;
        group_uncompressed += chunk.meta_data->total_uncompressed_size;
      }
      uncompressed += group_uncompressed;
      largest_group_compressed = std::max(largest_group_compressed, group_compressed);
      largest_group_uncompressed = std::max(largest_group_uncompressed, group_uncompressed);
    }
    const LargestPage page = find_largest_page(*reader);
    const double file_size = static_cast<double>(reader->file().size());

    std::printf("file                %s\n", path.c_str());
    std::printf("file size           %.1f MB\n", megabytes(file_size));
    std::printf("row groups          %d (largest: %.1f MB compressed, %.1f MB uncompressed)\n",
                reader->num_row_groups(), megabytes(static_cast<double>(largest_group_compressed)),
                megabytes(static_cast<double>(largest_group_uncompressed)));
    std::printf("largest page        %.1f MB compressed, %.1f MB uncompressed (column %s)\n",
                megabytes(static_cast<double>(page.compressed)),
                megabytes(static_cast<double>(page.uncompressed)), page.column.c_str());
    std::printf(
        "read                %lld rows, %lld values, %.1f MB of values, %s, batches of "
        "%zu\n",
        static_cast<long long>(reader->num_rows()), static_cast<long long>(totals.values),
        megabytes(static_cast<double>(totals.value_bytes)),
        by_column ? "column by column" : "columns in lockstep", batch_levels);
    std::printf("time                %.2f s (%.0f MB/s of uncompressed chunk bytes)\n", seconds,
                megabytes(static_cast<double>(uncompressed)) / seconds);
    std::printf("peak RSS            %.1f MB (%.1f MB after opening the file)\n", megabytes(peak),
                megabytes(baseline));
    std::printf("peak RSS / file     %.3f\n", peak / file_size);
  } catch (const kbdata::Error& error) {
    std::fprintf(stderr, "memory_bench: %s\n", error.what());
    return 1;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "memory_bench: %s\n", error.what());
    return 1;
  }
  return 0;
}
