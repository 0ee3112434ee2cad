// Encodes one leaf column of one row group into pages: the mirror of ColumnReader.
//
// Levels and values arrive as ColumnBatch slices holding whole records. The writer keeps the
// open page's levels and values, closes a page at a record boundary once it is full
// (WriterOptions::page_bytes / page_rows), and encodes it at once and compresses it (at once, or,
// given a pool, on the pool while the next pages fill), so the memory it holds is the row group's
// encoded pages plus one open page and the pages being compressed. finish() hands the chunk to
// the FileWriter, which places it in the file and writes its page index. The chunk is the same
// bytes with a pool or without.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "parquet/column_reader.h"
#include "parquet/metadata.h"
#include "parquet/schema.h"
#include "parquet/write/writer_options.h"

namespace kbdata {
class ThreadPool;
}

namespace kbdata::parquet {

// One column chunk, encoded, with offsets relative to the start of `data_pages`.
struct EncodedChunk {
  struct Page {
    size_t offset = 0;      // of the page header within data_pages
    int32_t size = 0;       // header and body
    int64_t first_row = 0;  // within the row group
    int64_t null_count = 0;
    bool has_values = false;  // false: every entry of the page is null (a "null page")
    bool has_bounds = false;  // min and max are set (a page of only NaNs has values but none)
    std::string min;          // PLAIN bytes, ColumnIndex bounds (byte arrays truncated: see .cc)
    std::string max;
  };
  std::vector<uint8_t> dictionary_page;  // header and body; empty when no page used a dictionary
  std::vector<uint8_t> data_pages;
  std::vector<Page> pages;
  // Complete but for the offsets (data_page_offset, dictionary_page_offset), which the
  // FileWriter sets when it places the chunk.
  ColumnMetaData meta;
  // Whether a ColumnIndex can be written: false for columns without a sort order (INT96,
  // INTERVAL), whose pages have no meaningful bounds.
  bool has_column_index = false;
  BoundaryOrder boundary_order = BoundaryOrder::UNORDERED;
};

class ColumnWriter {
 public:
  // `column` is copied. With `pool` (borrowed; it must outlive the writer), closed pages are
  // compressed on it. Throws UsageError if the
  // options cannot apply to the column (a page version other than 1 or 2, a compression level out
  // of range).
  ColumnWriter(const ColumnDescriptor& column, const WriterOptions& options,
               ThreadPool* pool = nullptr);
  ~ColumnWriter();
  ColumnWriter(const ColumnWriter&) = delete;
  ColumnWriter& operator=(const ColumnWriter&) = delete;

  // Appends level entries [level_begin, level_end) of `batch` and their values, which start at
  // value index `value_begin` of batch.values. REQUIRES: the range starts a record (repetition
  // level 0) and ends where a record starts or at the end of the batch; the batch is well formed
  // for the column (FileWriter checks). Returns the value index after the last value consumed.
  size_t write(const ColumnBatch& batch, size_t level_begin, size_t level_end, size_t value_begin);

  // Bytes held for this chunk so far, as the FileWriter's row group cut counts them: the open
  // page's estimate, and the closed pages at their stored (compressed) size, but those closed
  // since the second last settle() at their uncompressed size, so that counting never waits for
  // the pages being compressed and the cuts do not depend on the threads.
  [[nodiscard]] size_t buffered_bytes() const;

  // Starts a new step of buffered_bytes()' count (the FileWriter calls it once per write()): the
  // pages closed before the last step now count at their stored size, waiting for those still
  // being compressed (they have had a step's time), and throws what compressing them threw.
  void settle();

  // Closes the open page and returns the chunk; the writer is then empty and ready for the next
  // row group. Throws UsageError if a page would exceed the format's 2 GiB page limit.
  [[nodiscard]] EncodedChunk finish();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace kbdata::parquet
