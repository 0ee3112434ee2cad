// The page index of a column chunk (PageIndex.md in the Parquet format), read lazily and checked.
//
// A chunk's ColumnChunk may point at an OffsetIndex (where each data page starts and the index of
// its first row) and a ColumnIndex (per page: all-null flag, min, max, null count). Both live
// outside the chunk, usually just before the footer; nothing here is read until asked for.
// Validation: an OffsetIndex's pages must lie inside the chunk's byte range, in increasing offsets,
// with first_row_index starting at 0, strictly increasing and below the row group's row count; a
// ColumnIndex's lists must have equal lengths, and the same length as the OffsetIndex when both
// are read together. Anything else is a FormatError located at the index's byte offset.
//
// Without a page index, walk_page_locations() finds the same page locations by reading the
// chunk's page headers only (never a page body), so that a chunk can still be split into ranges
// of pages and read with ColumnReader::select_rows().
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "parquet/metadata.h"

namespace kbdata {
class RandomAccessFile;
}

namespace kbdata::parquet {

// Rows [begin, end) of one row group.
struct RowRange {
  int64_t begin = 0;
  int64_t end = 0;
  bool operator==(const RowRange&) const = default;
};
// Sorted, disjoint, non-empty ranges.
using RowRanges = std::vector<RowRange>;

// Ranges of rows in both `a` and `b`.
[[nodiscard]] RowRanges intersect(const RowRanges& a, const RowRanges& b);
// Adds [begin, end) to `ranges` whose ranges all end at or before `begin` (merging if adjacent).
void append_range(RowRanges& ranges, int64_t begin, int64_t end);

// An index larger than this is refused as hostile.
inline constexpr int64_t kMaxPageIndexBytes = 64ll << 20;

// The chunk's OffsetIndex, or nullopt when it has none. `group_rows` is the row group's num_rows.
// Reads only the index's bytes from `file` (borrowed).
[[nodiscard]] std::optional<OffsetIndex> read_offset_index(RandomAccessFile& file,
                                                           const ColumnChunk& chunk,
                                                           int64_t group_rows);
// The chunk's ColumnIndex, or nullopt when it has none.
[[nodiscard]] std::optional<ColumnIndex> read_column_index(RandomAccessFile& file,
                                                           const ColumnChunk& chunk);

// The locations of the chunk's data pages (DATA_PAGE and DATA_PAGE_V2, in file order) found by
// walking its page headers, as the OffsetIndex would list them: the offset of each page header,
// compressed_page_size with the header included, and first_row_index, the sum of the rows of the
// pages before it. unencoded_byte_array_data_bytes is left empty. Dictionary, index and unknown
// pages are stepped over and not listed; a data page of 0 rows is listed (its first_row_index then
// equals the next page's). Each header is decoded from a small read (1 KiB, doubled while the
// header is cut off, at most 64 MiB as in PageReader) and the page's bytes are skipped unread, so
// the walk reads a few KiB per page however large the pages are. `chunk_padding` is FileReader's
// legacy padding (see ColumnReader): the range is extended and the walk stops after the chunk's
// num_values level entries.
//
// A page's rows are known from its header when the column has no repetition (`max_rep` 0: a v1
// page's num_values counts rows, nulls included) and for DATA_PAGE_V2 (num_rows). Returns nullopt
// when the column is repeated and a data page is a v1 page: its rows cannot be known without
// decoding its repetition levels.
//
// Throws FormatError located at the page header's byte offset if the chunk lies outside the file,
// a header is malformed, cut off by the chunk's end or larger than 64 MiB, a size is negative, a
// page runs past the chunk's end or is larger than an int32 with its header, or the pages hold more
// rows than `group_rows` (the row group's num_rows); located at the chunk's start if they hold
// fewer. Reads only header bytes from `file` (borrowed).
[[nodiscard]] std::optional<OffsetIndex> walk_page_locations(RandomAccessFile& file,
                                                             const ColumnChunk& chunk, int max_rep,
                                                             int64_t group_rows,
                                                             int64_t chunk_padding = 0);

// Throws FormatError unless the two indexes of one chunk describe the same number of pages.
void check_page_counts(const OffsetIndex& offsets, const ColumnIndex& columns, int64_t offset);

// Number of rows of page `page` of `index` (the last page ends at `group_rows`).
[[nodiscard]] int64_t page_row_count(const OffsetIndex& index, size_t page, int64_t group_rows);

// Where a chunk's pages start: the dictionary page when there is one. Some writers store 0 for
// "no dictionary page", so only an offset inside the file's body counts; some (parquet-cpp 1.5,
// Arrow on empty chunks) store a data_page_offset of 0 beside a valid dictionary offset.
[[nodiscard]] int64_t chunk_start(const ColumnMetaData& meta);

// A chunk's length in bytes: total_compressed_size, with up to `padding` bytes added (FileReader's
// legacy padding, see ColumnReader) but never past the end of a file of `file_size` bytes. A chunk
// whose range is already invalid is returned unpadded, for the caller's range check to refuse.
[[nodiscard]] int64_t chunk_length(const ColumnMetaData& meta, int64_t padding, uint64_t file_size);

}  // namespace kbdata::parquet
