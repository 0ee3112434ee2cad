// Test-only: hand-built Parquet files with several pages per column chunk, page CRCs and a page
// index (ColumnIndex + OffsetIndex), with knobs to corrupt each part.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <string>
#include <vector>

#include "support/compact_writer.h"

namespace kbdata::testing {

struct IndexedFileSpec {
  int num_pages = 8;
  int rows_per_page = 10;  // row r holds the INT32 value r * 10
  bool write_crc = true;
  int corrupt_crc_page = -1;  // this page's stored CRC is off by one
  bool write_index = true;
  // Corruptions of the written index.
  int64_t shift_page_offset = 0;  // added to page 1's offset in the OffsetIndex
  bool repeat_first_row = false;  // page 1's first_row_index equals page 0's
  bool short_min_values = false;  // ColumnIndex lists one min value too few
};

struct IndexedFile {
  std::vector<uint8_t> bytes;
  int64_t chunk_start = 0;
  int64_t chunk_end = 0;
  std::vector<int64_t> page_offsets;
};

inline std::string le32(int32_t v) {
  std::string s(4, '\0');
  for (int i = 0; i < 4; ++i) s[static_cast<size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xff);
  return s;
}

// One REQUIRED INT32 column "v", one row group, PLAIN DATA_PAGEs, uncompressed.
inline IndexedFile build_indexed_int32_file(const IndexedFileSpec& spec) {
  IndexedFile out;
  std::vector<uint8_t>& file = out.bytes;
  file = {'P', 'A', 'R', '1'};
  out.chunk_start = static_cast<int64_t>(file.size());
  const int64_t num_rows = int64_t{spec.num_pages} * spec.rows_per_page;
  std::vector<int32_t> sizes;
  for (int p = 0; p < spec.num_pages; ++p) {
    std::vector<uint8_t> body;
    for (int r = 0; r < spec.rows_per_page; ++r) {
      int32_t v = (p * spec.rows_per_page + r) * 10;
      for (int i = 0; i < 4; ++i) body.push_back(static_cast<uint8_t>((v >> (8 * i)) & 0xff));
    }
    uint32_t crc = static_cast<uint32_t>(::crc32(0L, body.data(), static_cast<uInt>(body.size())));
    if (p == spec.corrupt_crc_page) crc += 1;
    CompactWriter h;
    h.begin()
        .i32(1, 0)
        .i32(2, static_cast<int32_t>(body.size()))
        .i32(3, static_cast<int32_t>(body.size()));
    if (spec.write_crc) h.i32(4, static_cast<int32_t>(crc));
    h.struct_field(5).i32(1, spec.rows_per_page).i32(2, 0).i32(3, 3).i32(4, 3).end();
    h.end();
    out.page_offsets.push_back(static_cast<int64_t>(file.size()));
    sizes.push_back(static_cast<int32_t>(h.bytes.size() + body.size()));
    file.insert(file.end(), h.bytes.begin(), h.bytes.end());
    file.insert(file.end(), body.begin(), body.end());
  }
  out.chunk_end = static_cast<int64_t>(file.size());
  const int64_t chunk_size = out.chunk_end - out.chunk_start;

  int64_t column_index_offset = static_cast<int64_t>(file.size());
  CompactWriter ci;
  ci.begin();
  ci.list(1, Wire::BOOL_TRUE, static_cast<uint32_t>(spec.num_pages));
  for (int p = 0; p < spec.num_pages; ++p) ci.bytes.push_back(2);  // false
  int mins = spec.short_min_values ? spec.num_pages - 1 : spec.num_pages;
  ci.list(2, Wire::BINARY, static_cast<uint32_t>(mins));
  for (int p = 0; p < mins; ++p) {
    std::string v = le32(p * spec.rows_per_page * 10);
    ci.varint(v.size());
    ci.bytes.insert(ci.bytes.end(), v.begin(), v.end());
  }
  ci.list(3, Wire::BINARY, static_cast<uint32_t>(spec.num_pages));
  for (int p = 0; p < spec.num_pages; ++p) {
    std::string v = le32(((p + 1) * spec.rows_per_page - 1) * 10);
    ci.varint(v.size());
    ci.bytes.insert(ci.bytes.end(), v.begin(), v.end());
  }
  ci.i32(4, 1);
  ci.list(5, Wire::I64, static_cast<uint32_t>(spec.num_pages));
  for (int p = 0; p < spec.num_pages; ++p) ci.zigzag(0);
  ci.end();
  if (spec.write_index) file.insert(file.end(), ci.bytes.begin(), ci.bytes.end());

  int64_t offset_index_offset = static_cast<int64_t>(file.size());
  CompactWriter oi;
  oi.begin();
  oi.list(1, Wire::STRUCT, static_cast<uint32_t>(spec.num_pages));
  for (int p = 0; p < spec.num_pages; ++p) {
    int64_t offset =
        out.page_offsets[static_cast<size_t>(p)] + (p == 1 ? spec.shift_page_offset : 0);
    int64_t first_row = int64_t{p} * spec.rows_per_page;
    if (p == 1 && spec.repeat_first_row) first_row = 0;
    oi.begin().i64(1, offset).i32(2, sizes[static_cast<size_t>(p)]).i64(3, first_row).end();
  }
  oi.end();
  if (spec.write_index) file.insert(file.end(), oi.bytes.begin(), oi.bytes.end());

  CompactWriter m;
  m.begin().i32(1, 1);
  m.list(2, Wire::STRUCT, 2);
  m.begin().str(4, "schema").i32(5, 1).end();
  m.begin().i32(1, 1).i32(3, 0).str(4, "v").end();
  m.i64(3, num_rows);
  m.list(4, Wire::STRUCT, 1);
  m.begin();
  m.list(1, Wire::STRUCT, 1);
  m.begin().i64(2, out.chunk_start);
  m.struct_field(3).i32(1, 1);
  m.list(2, Wire::I32, 1).list_i32(0);
  m.list(3, Wire::BINARY, 1).varint(1).bytes.push_back('v');
  m.i32(4, 0).i64(5, num_rows).i64(6, chunk_size).i64(7, chunk_size);
  m.i64(9, out.chunk_start);
  m.end();  // ColumnMetaData
  if (spec.write_index) {
    m.i64(4, offset_index_offset).i32(5, static_cast<int32_t>(oi.bytes.size()));
    m.i64(6, column_index_offset).i32(7, static_cast<int32_t>(ci.bytes.size()));
  }
  m.end();  // ColumnChunk
  m.i64(2, chunk_size).i64(3, num_rows);
  m.end();  // RowGroup
  m.end();  // FileMetaData
  append_footer(file, m.bytes);
  return out;
}

}  // namespace kbdata::testing
