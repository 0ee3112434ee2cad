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
//
// What one input may make the reader decode (DecodeLimits): kbdata reads every legal file, and a
// legal file may declare pages of up to 2 GiB and values as long (parquet-testing's
// large_string_map.brotli.parquet: 4 KB that decode to two 1 GiB strings; `kbdata cat` needs
// 7.3 GB and 26 s for it, DuckDB 6.3 GB and 15 s). A fuzz run cannot spend that on one input
// (make fuzz: -rss_limit_mb=2048, which also fails any one allocation above it, and -timeout=30),
// so the fuzz targets pass over an input whose pages declare more (returning -1: libFuzzer keeps
// it out of the corpus), and fuzz_seeds leaves such files out of the seeds, naming them. What
// the reader does with large declared sizes is tested elsewhere (tests/hostile/declared_size_test,
// the corpus tests); the regression test replays every kept finding whole.
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
#include "parquet/compression.h"
#include "parquet/file_reader.h"
#include "parquet/metadata.h"
#include "parquet/page_index.h"
#include "parquet/schema.h"

namespace kbdata::fuzz {

inline constexpr size_t kPageFuzzHeader = 7;

// The most one fuzz input may declare, its pages' headers read as the page reader reads them.
struct DecodeLimits {
  static constexpr uint64_t kPageBytes = uint64_t{64} << 20;    // one page, decompressed
  static constexpr uint64_t kInputBytes = uint64_t{256} << 20;  // every page, decompressed
  // Bytes of BYTE_ARRAY values a dictionary can give: each data page's values times the largest
  // value of the dictionary page before it, summed.
  static constexpr uint64_t kGatheredBytes = uint64_t{512} << 20;
  static constexpr uint64_t kValues = uint64_t{1} << 24;  // the data pages' values
};

// What the pages of some column chunks declare.
struct DeclaredSizes {
  uint64_t largest_page = 0;
  uint64_t pages = 0;
  uint64_t gathered = 0;
  uint64_t values = 0;

  // Adds the pages of the chunk [start, start + length) of `bytes`, compressed with `codec` (a
  // BYTE_ARRAY column's when `variable_width`), header after header; the walk ends at the chunk's
  // end, at a header that cannot be decoded or at a page that would pass the chunk (where the
  // reader fails too).
  void add_chunk(std::span<const uint8_t> bytes, int64_t start, int64_t length,
                 parquet::Codec codec, bool variable_width) {
    if (start < 0 || length < 0 || static_cast<uint64_t>(start) > bytes.size()) return;
    const uint64_t end = std::min<uint64_t>(
        bytes.size(), static_cast<uint64_t>(start) + static_cast<uint64_t>(length));
    uint64_t at = static_cast<uint64_t>(start);
    uint64_t dictionary = 0;
    while (at < end) {
      parquet::PageHeader header;
      size_t header_size = 0;
      try {
        header = parquet::decode_page_header(bytes.subspan(at, end - at), static_cast<int64_t>(at),
                                             header_size);
      } catch (const Error&) {
        return;
      }
      if (header.uncompressed_page_size < 0 || header.compressed_page_size < 0) return;
      const auto page = static_cast<uint64_t>(header.uncompressed_page_size);
      largest_page = std::max(largest_page, page);
      pages = saturating_add(pages, page);
      uint64_t page_values = 0;
      const uint64_t body = at + header_size;
      if (header.type == parquet::PageType::DICTIONARY_PAGE) {
        dictionary = page;
        if (variable_width && page <= DecodeLimits::kPageBytes &&
            static_cast<uint64_t>(header.compressed_page_size) <= end - body) {
          dictionary = largest_plain_value(
              bytes.subspan(body, static_cast<size_t>(header.compressed_page_size)), codec, page);
        }
      } else if (header.data_page_header) {
        page_values = static_cast<uint64_t>(std::max(header.data_page_header->num_values, 0));
      } else if (header.data_page_header_v2) {
        page_values = static_cast<uint64_t>(std::max(header.data_page_header_v2->num_values, 0));
      }
      values = saturating_add(values, page_values);
      if (variable_width) gathered = saturating_add(gathered, page_values * dictionary);
      at = body + static_cast<uint64_t>(header.compressed_page_size);
    }
  }

  [[nodiscard]] bool within_limits() const {
    return largest_page <= DecodeLimits::kPageBytes && pages <= DecodeLimits::kInputBytes &&
           gathered <= DecodeLimits::kGatheredBytes && values <= DecodeLimits::kValues;
  }

 private:
  static uint64_t saturating_add(uint64_t a, uint64_t b) {
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
  }

  // The longest value of a dictionary page of PLAIN BYTE_ARRAY values (4-byte length, bytes);
  // `size` (the page's own size, their bound) when the page cannot be decompressed.
  static uint64_t largest_plain_value(std::span<const uint8_t> stored, parquet::Codec codec,
                                      uint64_t size) {
    std::vector<uint8_t> page(static_cast<size_t>(size));
    try {
      if (codec == parquet::Codec::UNCOMPRESSED) {
        if (stored.size() != page.size()) return size;
        std::copy(stored.begin(), stored.end(), page.begin());
      } else {
        parquet::decompress(codec, stored, page);
      }
    } catch (const Error&) {
      return size;
    }
    uint64_t largest = 0;
    for (size_t at = 0; page.size() - at >= 4;) {
      const uint64_t length = static_cast<uint64_t>(page[at]) | uint64_t{page[at + 1]} << 8 |
                              uint64_t{page[at + 2]} << 16 | uint64_t{page[at + 3]} << 24;
      if (length > page.size() - at - 4) break;  // where the decoder fails
      largest = std::max(largest, length);
      at += 4 + static_cast<size_t>(length);
    }
    return largest;
  }
};

// What a whole-file input's column chunks declare (nothing for a file whose footer cannot be
// read: the reader stops at the footer too).
inline DeclaredSizes declared_sizes_of_file(const uint8_t* data, size_t size) {
  DeclaredSizes sizes;
  try {
    auto reader = parquet::FileReader::open(
        std::make_unique<MemoryFile>("fuzz", std::vector<uint8_t>(data, data + size)));
    const int64_t padding = parquet::legacy_chunk_padding(reader->metadata().created_by);
    const std::span<const uint8_t> bytes(data, size);
    for (const parquet::RowGroup& group : reader->metadata().row_groups) {
      for (size_t c = 0; c < group.columns.size() && c < reader->schema().leaves().size(); ++c) {
        if (!group.columns[c].meta_data) continue;
        const parquet::ColumnMetaData& meta = *group.columns[c].meta_data;
        sizes.add_chunk(bytes, parquet::chunk_start(meta),
                        parquet::chunk_length(meta, padding, size), meta.codec,
                        reader->schema().leaves()[c].physical == parquet::PhysicalType::BYTE_ARRAY);
      }
    }
  } catch (const Error&) {
  }
  return sizes;
}

// What a fuzz_page input's pages declare.
inline DeclaredSizes declared_sizes_of_page_input(const uint8_t* data, size_t size) {
  DeclaredSizes sizes;
  if (size < kPageFuzzHeader) return sizes;
  sizes.add_chunk(
      std::span<const uint8_t>(data + kPageFuzzHeader, size - kPageFuzzHeader), 0,
      static_cast<int64_t>(size - kPageFuzzHeader), static_cast<parquet::Codec>(data[1] % 8),
      static_cast<parquet::PhysicalType>(data[0] % 8) == parquet::PhysicalType::BYTE_ARRAY);
  return sizes;
}

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
