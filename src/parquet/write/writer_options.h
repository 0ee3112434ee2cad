// What the Parquet writer is asked to produce, with the defaults of docs/parquet.md ("Writing").
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "parquet/metadata.h"
#include "parquet/types.h"

namespace kbdata::parquet {

// How values are encoded.
//   AUTO   RLE_DICTIONARY while the chunk's dictionary stays within dictionary_page_bytes, then
//          PLAIN for the rest of the chunk (BOOLEAN: always PLAIN in v1 pages, RLE in v2 pages).
//   PLAIN  PLAIN (BOOLEAN in v2 pages: RLE).
//   DELTA  DELTA_BINARY_PACKED for INT32 and INT64, DELTA_LENGTH_BYTE_ARRAY for BYTE_ARRAY; other
//          types as AUTO.
enum class ValueEncoding { AUTO, PLAIN, DELTA };

struct WriterOptions {
  // LZ4_RAW: as small as SNAPPY on KernelBot code and twice as fast to decompress (DuckDB,
  // pyarrow, polars and hyparquet read it; docs/BENCHMARKS.md). SNAPPY for older readers.
  Codec codec = Codec::LZ4_RAW;
  // Compression level for codecs that take one; nullopt: the codec's default
  // (compression_levels()).
  std::optional<int> level;
  int page_version = 1;  // 1: DATA_PAGE, 2: DATA_PAGE_V2
  ValueEncoding encoding = ValueEncoding::AUTO;

  // A data page is closed once its values and levels reach page_bytes (uncompressed, PLAIN
  // size) or it holds page_rows rows, at the next row boundary. A single value larger than
  // page_bytes makes a page of its own.
  size_t page_bytes = size_t{1} << 20;
  size_t page_rows = 20'000;
  // A chunk's dictionary may grow to this many bytes (PLAIN size) before the column falls back to
  // PLAIN for the rest of the row group.
  size_t dictionary_page_bytes = size_t{1} << 20;

  // A row group is closed once its buffered, encoded data reaches row_group_bytes or it holds
  // row_group_rows rows. The writer holds one row group's encoded pages in memory.
  size_t row_group_bytes = size_t{64} << 20;
  int64_t row_group_rows = 100'000;

  // Threads compressing the pages (a FileWriter's pool, shared by its columns) while the calling
  // thread encodes the next ones: 1 (or less) compresses on the calling thread; the caller decides
  // how many (the command line: cli/threads.h). The file is the same bytes whatever the threads.
  int threads = 1;

  // Store a CRC-32 of every page (PageHeader.crc).
  bool page_checksums = false;

  // Write a ColumnIndex and OffsetIndex for every chunk (docs/parquet.md, "Page index, always").
  // false writes none, as the hub's published files (kbdata synth --layout published): only for
  // reproducing that layout, since readers then cannot skip pages.
  bool page_index = true;

  // Written to FileMetaData.key_value_metadata, in this order. kbdata's writers set both from a
  // Provenance (provenance.h).
  std::vector<KeyValue> key_value_metadata;
  std::string created_by = "kbdata";
};

// The defaults above, the pages compressed on `threads` threads.
[[nodiscard]] inline WriterOptions writer_options_on(int threads) {
  WriterOptions options;
  options.threads = threads;
  return options;
}

}  // namespace kbdata::parquet
