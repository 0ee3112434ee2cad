// Writes a Parquet file, streaming: the mirror of FileReader.
//
//   "PAR1"
//   row group 0: column chunk 0 (dictionary page?, data pages), column chunk 1, ...
//   row group 1: ...
//   ColumnIndex of every chunk with one (row group by row group, column by column)
//   OffsetIndex of every chunk
//   FileMetaData, its length (4 bytes LE), "PAR1"
//
// Records arrive as one ColumnBatch per leaf column (levels and values, exactly what
// ColumnReader::read_records produces). The writer holds one row group's encoded pages in memory
// and writes the row group when it reaches WriterOptions::row_group_bytes or row_group_rows; the
// page indexes (a few bytes per page) are kept until close(). With WriterOptions::threads > 1 the
// pages are compressed on a pool and the bytes are handed, in order, to a thread of the writer's
// own that writes them to the sink (the copy into the page cache then overlaps the next row
// group); at most kMaxQueuedBytes wait for it, or one chunk alone, besides the chunk being
// written: a slow sink holds the writer back rather than letting its memory grow.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "common/file.h"
#include "parquet/column_reader.h"
#include "parquet/metadata.h"
#include "parquet/schema.h"
#include "parquet/write/writer_options.h"

namespace kbdata {
class ThreadPool;
}

namespace kbdata::parquet {

class ColumnWriter;

class FileWriter {
 public:
  static constexpr size_t kMaxQueuedBytes = size_t{8} << 20;

  // `sink` is borrowed and must outlive the writer; nothing is written to it before the first
  // write() or close(). `schema` is the footer's element list, root first (as
  // FileMetaData::schema). Throws UsageError if the schema is not a well-formed tree or the
  // options are invalid for a column.
  FileWriter(OutputSink& sink, std::vector<SchemaElement> schema, WriterOptions options);
  ~FileWriter();
  FileWriter(const FileWriter&) = delete;
  FileWriter& operator=(const FileWriter&) = delete;

  [[nodiscard]] const Schema& schema() const { return schema_; }

  // Appends whole records: leaves[i] holds leaf i's level entries and values for the same records
  // (for a column without repetition, one entry per record). Throws UsageError if the batches do
  // not match the schema or each other (count, levels out of range, values missing), before
  // anything of them is written; IoError from the sink (with the writer's own output thread:
  // from an earlier write, here or at close()).
  void write(std::span<const ColumnBatch> leaves);

  // Appends a key-value pair to the footer's metadata, after those of the options: what is known
  // only once the rows are written (counts). REQUIRES: not closed yet.
  void add_key_value(KeyValue kv) { metadata_.key_value_metadata.push_back(std::move(kv)); }

  // Writes the last row group, the page indexes and the footer. The file is complete only after
  // it; a writer destroyed without close() leaves the sink holding a partial file (use an
  // AtomicOutputFile and commit only after close()). REQUIRES: not closed yet.
  void close();

  [[nodiscard]] int64_t rows_written() const { return rows_written_; }
  [[nodiscard]] uint64_t bytes_written() const { return position_; }

 private:
  // Number of records in `batch` for leaf `leaf`, after checking the batch is well formed.
  size_t check_batch(const ColumnBatch& batch, int leaf) const;
  void write_bytes(std::span<const uint8_t> bytes);
  void write_owned(std::vector<uint8_t>&& bytes);  // as write_bytes, without a copy
  size_t buffered_bytes() const;
  void flush_row_group();

  struct ChunkIndex {
    std::optional<ColumnIndex> column_index;
    OffsetIndex offset_index;
  };

  OutputSink& sink_;
  Schema schema_;
  WriterOptions options_;
  FileMetaData metadata_;
  class Output;  // the thread writing to sink_, with a pool
  std::unique_ptr<Output> output_;
  std::unique_ptr<ThreadPool> pool_;  // compresses pages (WriterOptions::threads > 1); before
                                      // columns_, which wait for their pages when destroyed
  std::vector<std::unique_ptr<ColumnWriter>> columns_;
  std::vector<std::vector<ChunkIndex>> indexes_;  // per row group, per leaf
  uint64_t position_ = 0;
  int64_t group_rows_ = 0;
  int64_t rows_written_ = 0;
  bool closed_ = false;
};

}  // namespace kbdata::parquet
