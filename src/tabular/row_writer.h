// Writes rows of Parquet columns as JSON Lines, CSV or a table for humans.
//
// The caller reads one ColumnBatch per selected column (all covering the same rows) and hands them
// to RowWriter::write with the sub-range of rows to print; the writer renders each value with the
// column's ValueFormatter, collects output in a buffer and passes it to a Sink in blocks of at
// least kFlushBytes. Two modes:
//   - flat columns (max_rep == 0), one output column per leaf: entry r of a batch is row r;
//   - records (constructed from a RecordAssembler): one output column per top-level field. A
//     field that is one top-level non-repeated leaf takes the flat path; a nested field (struct,
//     list, map) is rendered by the assembler as compact JSON, which is the JSONL value and the
//     text of the CSV field or table cell (a null field is null, as for flat columns).
//
//   JSONL  {"id":1,"name":"x","score":null}   one object per row, keys in column order, no spaces
//   CSV    id,name,score                      RFC 4180 with \n line ends: a header line; fields
//          1,x,                               quoted only when they hold ',', '"', CR or LF; null
//                                             is an empty field, the empty string is ""
//   TABLE  id  name  score                    aligned on display width (code points); cells past
//          --  ----  -----                    40 code points cut with "…"; numbers right-aligned;
//           1  x      null                    control characters escaped (\n, \x01, \u0085); rows
//          (1 row)                            laid out in blocks of at most kTableBlockRows, each
//                                             with its own header and widths
#pragma once

#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "parquet/column_reader.h"
#include "parquet/schema.h"
#include "tabular/record_assembler.h"
#include "tabular/value_format.h"

namespace kbdata::tabular {

enum class Format { JSONL, CSV, TABLE };

// Where a RowWriter's output goes.
class Sink {
 public:
  virtual ~Sink() = default;
  // Writes all of `bytes`. Throws IoError naming the output on failure.
  virtual void write(std::string_view bytes) = 0;
  // Pushes written bytes to their destination. Throws IoError naming the output on failure.
  virtual void flush() = 0;
};

// A borrowed stdio stream; `name` names it in errors ("<stdout>").
class FileSink final : public Sink {
 public:
  FileSink(std::FILE* file, std::string name) : file_(file), name_(std::move(name)) {}
  void write(std::string_view bytes) override;
  void flush() override;

 private:
  std::FILE* file_;
  std::string name_;
};

// Appends to a string (for tests, and for callers that post-process the output).
class StringSink final : public Sink {
 public:
  void write(std::string_view bytes) override { text_.append(bytes); }
  void flush() override {}
  [[nodiscard]] const std::string& text() const { return text_; }

 private:
  std::string text_;
};

class RowWriter {
 public:
  static constexpr size_t kFlushBytes = 64 * 1024;
  static constexpr size_t kTableBlockRows = 1000;
  static constexpr size_t kTableBlockBytes = 4 * 1024 * 1024;  // a block also ends past this

  // `columns` (descriptors borrowed from the file's schema) and `sink` must outlive the writer.
  // Throws UnsupportedError if a column is repeated (max_rep > 0).
  RowWriter(Format format, std::vector<const parquet::ColumnDescriptor*> columns, Sink& sink);
  // Records mode: one output column per field of `assembler`, which must outlive the writer. The
  // batches given to write() are then those of assembler.leaves(), whole records each, and their
  // entry counts are records.
  RowWriter(Format format, RecordAssembler& assembler, Sink& sink);
  ~RowWriter();
  RowWriter(const RowWriter&) = delete;
  RowWriter& operator=(const RowWriter&) = delete;

  // Writes rows [first, first + count) of `batches`, batches[c] holding column c's entries (in
  // records mode batches[i] holds leaf i of assembler.leaves(), whole records, and the nested
  // fields of rows before `first` are assembled and dropped).
  // Throws FormatError if a batch's values do not match its definition levels, IoError from the
  // sink.
  // REQUIRES: batches.size() == number of columns, all batches have the same num_levels, and
  // first + count <= num_levels.
  void write(std::span<const parquet::ColumnBatch* const> batches, size_t first, size_t count);
  void write(std::span<const parquet::ColumnBatch> batches, size_t first, size_t count);

  // Writes what is still buffered (the last table block and the "(N rows)" footer) and flushes
  // the sink. Call once, after the last write(); output not finished is discarded by the
  // destructor. Throws IoError from the sink.
  void finish();

  [[nodiscard]] uint64_t rows_written() const { return rows_written_; }

 private:
  struct Column {
    const parquet::ColumnDescriptor* descriptor;  // flat columns; for a nested field its 1st leaf
    ValueFormatter formatter;
    std::string name;          // the output name: a leaf's dotted path or a top-level field's name
    std::string json_key;      // `"name":`, preceded by ',' for all columns but the first
    std::string display_name;  // name as a table header (sanitised, untruncated)
    size_t display_width;      // code points of display_name
    size_t batch_index;        // flat columns: which batch of write() holds the column
    int nested_field;          // records mode: the assembler's field, else -1 (flat)
    bool right_align;          // numbers right-align in tables
  };

  // A table cell: text in table_text_[offset, offset + size).
  struct Cell {
    size_t offset;
    uint32_t size;
    uint32_t width;  // code points
  };

  // Iteration state over one column's batch.
  struct Cursor {
    const int16_t* def_levels;  // null when every entry holds a value
    int16_t max_def;
    const parquet::ValueBuffer* values;
    size_t next_value;

    [[nodiscard]] bool is_null(size_t row) const {
      return def_levels != nullptr && def_levels[row] < max_def;
    }
  };

  void prepare_cursors(std::span<const parquet::ColumnBatch* const> batches, size_t first,
                       size_t count);
  void write_jsonl(size_t first, size_t count);
  void write_csv(size_t first, size_t count);
  void write_table(size_t first, size_t count);
  void append_csv_field(size_t field_start);
  void add_table_cell(std::string_view text);
  void flush_table_block();
  void flush_if_full();
  void start_output();
  void add_column(const parquet::ColumnDescriptor& descriptor, const std::string& name,
                  size_t batch_index, int nested_field);

  Format format_;
  Sink& sink_;
  std::vector<Column> columns_;
  std::vector<Cursor> cursors_;
  std::vector<const parquet::ColumnBatch*> batch_pointers_;
  std::string buffer_;  // output not yet handed to the sink
  std::string scratch_;
  std::string nested_text_;               // a nested field's JSON for CSV and tables
  RecordAssembler* assembler_ = nullptr;  // records mode
  uint64_t rows_written_ = 0;
  bool finished_ = false;

  // TABLE: the current block, row-major, and whether any block has been written.
  std::string table_text_;
  std::vector<Cell> table_cells_;
  size_t table_rows_ = 0;
  bool table_block_written_ = false;
};

}  // namespace kbdata::tabular
