#include "parquet/page_index.h"

#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/file.h"
#include "parquet/page_reader.h"

namespace kbdata::parquet {
namespace {

[[noreturn]] void fail(const std::string& message, int64_t offset) {
  FormatError error(message);
  error.locate_offset(offset);
  throw error;
}

// Reads [offset, offset + length) of the file after checking it is a plausible index range.
std::vector<uint8_t> read_index_bytes(RandomAccessFile& file, int64_t offset, int32_t length,
                                      const char* what) {
  uint64_t size = file.size();
  if (offset < 0 || length <= 0 || length > kMaxPageIndexBytes ||
      static_cast<uint64_t>(offset) > size ||
      static_cast<uint64_t>(length) > size - static_cast<uint64_t>(offset)) {
    fail(std::string(what) + " [" + std::to_string(offset) + ", +" + std::to_string(length) +
             ") lies outside the file of " + std::to_string(size) + " bytes",
         offset);
  }
  std::vector<uint8_t> bytes(static_cast<size_t>(length));
  file.read_at(static_cast<uint64_t>(offset), bytes);
  return bytes;
}

}  // namespace

int64_t chunk_length(const ColumnMetaData& meta, int64_t padding, uint64_t file_size) {
  const int64_t start = chunk_start(meta);
  int64_t length = meta.total_compressed_size;
  if (padding > 0 && start >= 0 && length >= 0 &&
      static_cast<uint64_t>(start) + static_cast<uint64_t>(length) < file_size) {
    const uint64_t room = file_size - static_cast<uint64_t>(start) - static_cast<uint64_t>(length);
    length += static_cast<int64_t>(std::min<uint64_t>(room, static_cast<uint64_t>(padding)));
  }
  return length;
}

int64_t chunk_start(const ColumnMetaData& meta) {
  constexpr int64_t kFirstPageOffset = 4;  // after the magic
  if (meta.dictionary_page_offset && *meta.dictionary_page_offset >= kFirstPageOffset &&
      (*meta.dictionary_page_offset < meta.data_page_offset ||
       meta.data_page_offset < kFirstPageOffset)) {
    return *meta.dictionary_page_offset;
  }
  return meta.data_page_offset;
}

RowRanges intersect(const RowRanges& a, const RowRanges& b) {
  RowRanges out;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    int64_t begin = std::max(a[i].begin, b[j].begin);
    int64_t end = std::min(a[i].end, b[j].end);
    if (begin < end) out.push_back({begin, end});
    if (a[i].end < b[j].end)
      ++i;
    else
      ++j;
  }
  return out;
}

void append_range(RowRanges& ranges, int64_t begin, int64_t end) {
  if (begin >= end) return;
  if (!ranges.empty() && ranges.back().end == begin) {
    ranges.back().end = end;
  } else {
    ranges.push_back({begin, end});
  }
}

std::optional<OffsetIndex> read_offset_index(RandomAccessFile& file, const ColumnChunk& chunk,
                                             int64_t group_rows) {
  if (!chunk.offset_index_offset || !chunk.offset_index_length) return std::nullopt;
  const int64_t at = *chunk.offset_index_offset;
  std::vector<uint8_t> bytes =
      read_index_bytes(file, at, *chunk.offset_index_length, "offset index");
  OffsetIndex index = decode_offset_index(bytes, at);
  if (!chunk.meta_data) fail("offset index of a column chunk without metadata", at);
  const ColumnMetaData& meta = *chunk.meta_data;
  const int64_t start = chunk_start(meta);
  const int64_t end = start + meta.total_compressed_size;
  const auto& pages = index.page_locations;
  if (pages.empty() && group_rows > 0) fail("offset index lists no pages", at);
  for (size_t i = 0; i < pages.size(); ++i) {
    const PageLocation& p = pages[i];
    std::string where = "offset index page " + std::to_string(i);
    if (p.compressed_page_size <= 0 || p.offset < start || p.offset > end ||
        p.compressed_page_size > end - p.offset) {
      fail(where + " [" + std::to_string(p.offset) + ", +" +
               std::to_string(p.compressed_page_size) + ") lies outside its column chunk [" +
               std::to_string(start) + ", " + std::to_string(end) + ")",
           at);
    }
    if (i == 0 && p.first_row_index != 0) {
      fail(where + " starts at row " + std::to_string(p.first_row_index) + ", not 0", at);
    }
    if (i > 0 && (p.first_row_index <= pages[i - 1].first_row_index ||
                  p.offset < pages[i - 1].offset + pages[i - 1].compressed_page_size)) {
      fail(where + " does not follow page " + std::to_string(i - 1) +
               " (first rows and offsets must increase)",
           at);
    }
    if (p.first_row_index >= group_rows && !(i == 0 && group_rows == 0)) {
      fail(where + " starts at row " + std::to_string(p.first_row_index) +
               ", past the row group's " + std::to_string(group_rows) + " rows",
           at);
    }
  }
  if (!index.unencoded_byte_array_data_bytes.empty() &&
      index.unencoded_byte_array_data_bytes.size() != pages.size()) {
    fail("offset index has " + std::to_string(index.unencoded_byte_array_data_bytes.size()) +
             " unencoded sizes for " + std::to_string(pages.size()) + " pages",
         at);
  }
  return index;
}

std::optional<ColumnIndex> read_column_index(RandomAccessFile& file, const ColumnChunk& chunk) {
  if (!chunk.column_index_offset || !chunk.column_index_length) return std::nullopt;
  const int64_t at = *chunk.column_index_offset;
  std::vector<uint8_t> bytes =
      read_index_bytes(file, at, *chunk.column_index_length, "column index");
  ColumnIndex index = decode_column_index(bytes, at);
  size_t n = index.null_pages.size();
  if (index.min_values.size() != n || index.max_values.size() != n ||
      (index.null_counts && index.null_counts->size() != n)) {
    fail("column index lists differ in length (" + std::to_string(n) + " null_pages, " +
             std::to_string(index.min_values.size()) + " min_values, " +
             std::to_string(index.max_values.size()) + " max_values" +
             (index.null_counts ? ", " + std::to_string(index.null_counts->size()) + " null_counts"
                                : std::string()) +
             ")",
         at);
  }
  return index;
}

std::optional<OffsetIndex> walk_page_locations(RandomAccessFile& file, const ColumnChunk& chunk,
                                               int max_rep, int64_t group_rows,
                                               int64_t chunk_padding) {
  // The first read of a header: real headers without statistics take 20-40 bytes, and writers
  // truncate the statistics they put in headers.
  constexpr size_t kFirstHeaderRead = 1024;
  if (!chunk.meta_data) fail("column chunk has no metadata", chunk.file_offset);
  const ColumnMetaData& meta = *chunk.meta_data;
  const int64_t start = chunk_start(meta);
  const uint64_t size = file.size();
  const int64_t length = chunk_length(meta, chunk_padding, size);
  PageReader::check_chunk_range(start, length, size);
  const int64_t end = start + length;

  OffsetIndex index;
  std::vector<uint8_t> bytes;
  int64_t rows = 0;
  int64_t levels = 0;
  int64_t position = start;
  while (position < end) {
    if (chunk_padding > 0 && levels >= meta.num_values) break;
    PageHeader header;
    size_t header_size = 0;
    for (size_t want = kFirstHeaderRead;; want *= 2) {
      const size_t available =
          static_cast<size_t>(std::min<int64_t>(static_cast<int64_t>(want), end - position));
      bytes.resize(available);
      file.read_at(static_cast<uint64_t>(position), bytes);
      try {
        header = decode_page_header(bytes, position, header_size);
        break;
      } catch (const TruncatedError&) {
        if (position + static_cast<int64_t>(available) >= end) {
          fail("page header runs past the end of the column chunk", position);
        }
        if (want >= PageReader::kMaxHeaderBytes) fail("page header larger than 64 MB", position);
      }
    }
    // decode_page_header() has refused negative sizes.
    const int64_t body_start = position + static_cast<int64_t>(header_size);
    if (header.compressed_page_size > end - body_start) {
      fail("page of " + std::to_string(header.compressed_page_size) +
               " bytes runs past the end of the column chunk (" + std::to_string(end - body_start) +
               " bytes left)",
           position);
    }
    const int64_t page_size = static_cast<int64_t>(header_size) + header.compressed_page_size;
    if (page_size > INT32_MAX) {
      fail("page of " + std::to_string(page_size) +
               " bytes with its header does not fit an offset index (at most 2^31 - 1)",
           position);
    }
    std::optional<int64_t> page_rows;
    if (header.type == PageType::DATA_PAGE) {
      if (!header.data_page_header) fail("DATA_PAGE without its header", position);
      if (max_rep > 0) return std::nullopt;
      const int32_t n = header.data_page_header->num_values;
      if (n < 0) fail("data page has a negative number of values", position);
      page_rows = n;
      levels += n;
    } else if (header.type == PageType::DATA_PAGE_V2) {
      if (!header.data_page_header_v2) fail("DATA_PAGE_V2 without its header", position);
      const DataPageHeaderV2& v2 = *header.data_page_header_v2;
      if (v2.num_rows < 0 || v2.num_values < 0) {
        fail("DATA_PAGE_V2 has a negative number of rows or values", position);
      }
      page_rows = v2.num_rows;
      levels += v2.num_values;
    }
    if (page_rows) {
      if (*page_rows > group_rows - rows) {
        fail("the chunk's data pages hold more rows than the row group's " +
                 std::to_string(group_rows),
             position);
      }
      index.page_locations.push_back(PageLocation{position, static_cast<int32_t>(page_size), rows});
      rows += *page_rows;
    }
    position = body_start + header.compressed_page_size;
  }
  if (rows != group_rows) {
    fail("the chunk's data pages hold " + std::to_string(rows) + " rows but the row group has " +
             std::to_string(group_rows),
         start);
  }
  return index;
}

void check_page_counts(const OffsetIndex& offsets, const ColumnIndex& columns, int64_t offset) {
  if (offsets.page_locations.size() != columns.null_pages.size()) {
    fail("column index describes " + std::to_string(columns.null_pages.size()) +
             " pages but the offset index " + std::to_string(offsets.page_locations.size()),
         offset);
  }
}

int64_t page_row_count(const OffsetIndex& index, size_t page, int64_t group_rows) {
  const auto& pages = index.page_locations;
  int64_t end = page + 1 < pages.size() ? pages[page + 1].first_row_index : group_rows;
  return end - pages[page].first_row_index;
}

}  // namespace kbdata::parquet
