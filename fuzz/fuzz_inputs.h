// What each libFuzzer target does with its input, shared with the regression test that replays
// the findings (tests/hostile/fuzz_regression_test.cc) so that both run the same code path. Each
// function throws kbdata::Error on corrupt input and nothing else; anything else is a finding.
//
// run_read_file_input: the bytes as a whole Parquet file; open it, read every column to the end.
// run_footer_input: the bytes as a footer; decode the FileMetaData and build the schema tree.
// run_page_input: the first kPageFuzzHeader bytes choose a synthetic column; the rest are one
// column chunk's bytes (page headers and bodies) held in a MemoryFile:
//   byte 0   physical type (mod 8)
//   byte 1   codec (mod 8)
//   byte 2   bits 0-1 max_def, bits 2-3 max_rep (at most max_def), bit 4 legacy chunk padding
//            (reading stops after num_values levels), bit 5 skip() before reading, bit 6 every
//            snappy PLAIN page of a BYTE_ARRAY column streamed (ColumnReader::stream_pages_from)
//   byte 3   FIXED_LEN_BYTE_ARRAY width - 1 (mod 32)
//   byte 4   bit 0 read_records instead of read_batch; bits 1-7 the batch size - 1
//   byte 5-6 the chunk's num_values (little endian)
// The value encodings come from the page headers themselves, so every decoder is reachable.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "common/error.h"
#include "common/file.h"
#include "parquet/column_reader.h"
#include "parquet/file_reader.h"
#include "parquet/metadata.h"
#include "parquet/schema.h"

namespace kbdata::fuzz {

inline constexpr size_t kPageFuzzHeader = 7;

inline void run_read_file_input(const uint8_t* data, size_t size) {
  auto reader = parquet::FileReader::open(
      std::make_unique<MemoryFile>("fuzz", std::vector<uint8_t>(data, data + size)));
  parquet::ColumnBatch batch;
  for (int g = 0; g < reader->num_row_groups(); ++g) {
    for (size_t c = 0; c < reader->schema().leaves().size(); ++c) {
      auto column = reader->column(g, static_cast<int>(c));
      while (column->read_batch(1024, batch) > 0) {
      }
    }
  }
}

inline void run_footer_input(const uint8_t* data, size_t size) {
  parquet::FileMetaData metadata =
      parquet::decode_file_metadata(std::span<const uint8_t>(data, size), 0);
  parquet::Schema schema = parquet::Schema::from_elements(metadata.schema);
  (void)schema.is_flat();
  for (const auto& leaf : schema.leaves()) (void)schema.find_leaf(leaf.dotted_path);
}

inline void run_page_input(const uint8_t* data, size_t size) {
  if (size < kPageFuzzHeader) return;
  using namespace parquet;
  ColumnDescriptor column;
  column.path = {"v"};
  column.dotted_path = "v";
  column.physical = static_cast<PhysicalType>(data[0] % 8);
  column.type_length = column.physical == PhysicalType::FIXED_LEN_BYTE_ARRAY ? 1 + data[3] % 32 : 0;
  column.max_def = data[2] & 3;
  column.max_rep = std::min((data[2] >> 2) & 3, column.max_def);
  column.repetition = column.max_rep > 0   ? Repetition::REPEATED
                      : column.max_def > 0 ? Repetition::OPTIONAL
                                           : Repetition::REQUIRED;
  const bool padding = (data[2] & 0x10) != 0;
  const bool skip_first = (data[2] & 0x20) != 0;
  const bool records = (data[4] & 1) != 0;
  const size_t batch = 1 + (data[4] >> 1);

  std::vector<uint8_t> chunk_bytes(data + kPageFuzzHeader, data + size);
  const auto chunk_size = static_cast<int64_t>(chunk_bytes.size());
  MemoryFile file("fuzz", std::move(chunk_bytes));
  ColumnChunk chunk;
  chunk.meta_data.emplace();
  ColumnMetaData& meta = *chunk.meta_data;
  meta.type = column.physical;
  meta.codec = static_cast<Codec>(data[1] % 8);
  meta.path_in_schema = column.path;
  meta.num_values = data[5] | data[6] << 8;
  meta.data_page_offset = 0;
  meta.total_compressed_size = chunk_size;
  meta.total_uncompressed_size = chunk_size;

  ColumnReader reader(file, chunk, column, 0, padding ? 100 : 0);
  if ((data[2] & 0x40) != 0) reader.stream_pages_from(0);
  ColumnBatch out;
  if (skip_first) (void)reader.skip(batch);
  if (records) {
    while (reader.read_records(batch, out) > 0) {
    }
  } else {
    while (reader.read_batch(batch, out) > 0) {
    }
  }
}

}  // namespace kbdata::fuzz
