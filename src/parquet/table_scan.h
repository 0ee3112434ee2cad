// One scan of several columns of a Parquet file: the way every reading command reads (the
// submission loader, cat, cat --where, convert). It owns projection, row-group and page pruning,
// late materialisation, decoding on a pool of threads and in-order delivery.
//
// A row group goes through three steps:
//
//   1. filter    (ScanOptions::filter with filter_rows) the predicates' columns are decoded for
//                the rows their statistics and page indexes do not rule out, and every row where a
//                predicate fails is dropped; the rows left are the group's surviving rows. One
//                task per predicate column.
//   2. resident  output columns whose chunk is small (under ScanOptions::stream_bytes
//                compressed) are decoded for the surviving rows only, each whole, one task per
//                column. Pages holding no
//                surviving row are not read (their locations come from the OffsetIndex, or from a
//                walk of the page headers that reads no page body); rows between survivors inside
//                a page are skipped by the decoders without being produced.
//   3. stream    the surviving rows are cut into units: runs of the largest streamed column's
//                pages of about unit_bytes (without a streamed column, unit_rows rows). A unit is
//                one task that decodes the streamed columns for its rows batch by batch, adds the
//                resident columns' rows, and runs the caller's map step on each batch; the calling
//                thread takes the batches unit by unit, in file order, and runs the deliver step.
//
// Every cut depends on the file and the options only, never on the threads: a scan delivers the
// same batches, in the same order, with 1 thread or 8, and reports the same first error (the one
// of the earliest batch, or of the first column in options order for steps 1 and 2).
//
// A streamed column's dictionary is decoded once per chunk and shared by its units.
//
// Memory: the resident columns of one row group (their surviving rows), and per unit in progress
// at most queued_batches batches; threads + 1 units are in progress at most. A resident column
// that would pass resident_bytes (a small chunk that decodes to much more, a dictionary repeating
// large values) makes the row group fall back to one unit holding every column streamed.
//
// Reads: before each step, the byte ranges it will read are announced with
// RandomAccessFile::will_read (the chunks, or the pages holding wanted rows), so that a remote file
// can fetch them at once; on a remote file (RandomAccessFile::remote()) page headers are not
// walked (each would be a round trip): a chunk without an OffsetIndex is read whole.
#pragma once

#include <any>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "parquet/column_reader.h"
#include "parquet/page_index.h"

namespace kbdata::parquet {

class FileReader;
class RowFilter;

struct ScanOptions {
  // Leaves to deliver (indexes into the schema's leaves), in this order: batch.columns[i] holds
  // columns[i]. A leaf may be listed once.
  std::vector<int> columns;
  // Empty, or one per entry of `columns`: a column given a measure (a BYTE_ARRAY leaf without
  // repetition) delivers measure(value) of each value as an 8-byte value (ValueBuffer::measure())
  // instead of the value, worked out on the decoding thread from the page's bytes: a column read
  // only for a number per value is never copied out of its pages.
  std::vector<ValueMeasure> measures;
  // Row groups and pages whose statistics rule out a predicate are not read (borrowed; bound to
  // the same file's schema). With filter_rows, rows where a predicate fails are dropped too, and
  // the other columns are decoded for the surviving rows only; without it, the rows of pages the
  // statistics cannot rule out are delivered as they are.
  const RowFilter* filter = nullptr;
  bool filter_rows = false;
  // When set, only these rows of the file (file row numbers, sorted, disjoint) are read.
  std::optional<RowRanges> rows;
  // Rows (records) per batch; batches end early at unit and row group ends.
  size_t batch_rows = 4096;
  // Decoding threads: 1 decodes on the calling thread alone; N > 1 starts a pool of N workers
  // while the calling thread delivers, once there is work enough for them (parallel_bytes).
  int threads = 1;

  // How row groups are cut (the defaults suit KernelBot files; tests make them small to reach
  // every path). A column is streamed when its chunk holds at least stream_bytes compressed
  // bytes; a unit takes about unit_bytes of the largest streamed column's compressed pages, or
  // unit_rows rows when no column is streamed; the resident columns of a row group may hold
  // resident_bytes decoded; a unit may have queued_batches batches ready before the calling
  // thread takes them.
  int64_t stream_bytes = int64_t{8} << 20;
  int64_t unit_bytes = int64_t{4} << 20;
  size_t unit_rows = 32768;
  size_t resident_bytes = size_t{512} << 20;
  size_t queued_batches = 2;
  // Work below which threads cost more than they save: a step reading fewer compressed bytes runs
  // on the calling thread, and so do the units of a row group that has a single one reading fewer
  // (unless units of earlier groups are on the pool). The pool starts on first need.
  uint64_t parallel_bytes = uint64_t{8} << 20;
  // Snappy PLAIN pages of BYTE_ARRAY columns this large are decoded a piece at a time
  // (ColumnReader::stream_pages_from); tests lower it to stream every such page.
  size_t streamed_page_bytes = ColumnReader::kStreamedPageBytes;
};

// Rows of one row group, with one ColumnBatch per ScanOptions::columns entry holding exactly
// those rows (records).
struct ScanBatch {
  int row_group = 0;
  int64_t group_first_row = 0;  // the file row number of the group's row 0
  RowRanges rows;               // the group's rows in this batch, in order
  size_t num_rows = 0;
  std::vector<ColumnBatch> columns;
  // What the map step made of the batch (the caller's rows, say), for the deliver step.
  std::any result;

  // The file row number of batch row i (for error messages; walks `rows`).
  [[nodiscard]] int64_t file_row(size_t i) const;
  // The file row number of every batch row, in order (one walk of `rows`).
  [[nodiscard]] std::vector<int64_t> file_rows() const;

  // Empties columns[i] once the map step has taken what it needs: in the map step its storage goes
  // back to the scan for the unit's next batch (the batch then waits to be delivered without it,
  // and the next one is decoded into storage already grown), elsewhere it is freed.
  void release(size_t i);

  // Set by the scan while the map step runs: storage for the unit's next batch, per column.
  std::vector<ColumnBatch>* storage = nullptr;
};

struct ScanStats {
  uint64_t row_groups = 0;           // row groups of the file (or of options.rows)
  uint64_t row_groups_pruned = 0;    // not read: statistics or the page index ruled them out
  uint64_t rows_selected = 0;        // rows left after pruning
  uint64_t rows_dropped = 0;         // rows the filter step dropped (filter_rows)
  uint64_t rows_delivered = 0;       // rows of the batches delivered
  uint64_t units = 0;                // units of the stream step
  uint64_t row_groups_fallback = 0;  // row groups read as one unit (resident_bytes passed)
  uint64_t threads_started = 0;      // workers of the pool (0: all on the calling thread)
};

class TableScan {
 public:
  // map(batch): on a worker thread (or the calling thread with threads = 1), possibly several
  // batches at once; may change the batch (fill `result`, move columns out). deliver(batch): on
  // the calling thread, batch after batch in file order; returns false to stop the scan early.
  using MapFn = std::function<void(ScanBatch&)>;
  using DeliverFn = std::function<bool(ScanBatch&)>;

  // `reader` is borrowed and must outlive the scan. Throws UsageError for a leaf out of range or
  // listed twice.
  TableScan(FileReader& reader, ScanOptions options);

  // Reads the file. Throws what the reader, map or deliver throw (reader errors located at the
  // file, row group, column and page), after every task has stopped.
  void run(const MapFn& map, const DeliverFn& deliver);

  [[nodiscard]] const ScanStats& stats() const { return stats_; }

 private:
  FileReader& reader_;
  ScanOptions options_;
  ScanStats stats_;
};

}  // namespace kbdata::parquet
