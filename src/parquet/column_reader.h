// Reads one column chunk as levels and values, page by page.
//
// The reader holds at most one page (compressed and decompressed) and the chunk's dictionary in
// memory, however large the chunk: a batch is filled from the current page, and the next page is
// read from the file only when the current one is used up.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/error.h"
#include "parquet/page_index.h"
#include "parquet/schema.h"
#include "parquet/values.h"

namespace kbdata {
class RandomAccessFile;
}

namespace kbdata::parquet {

struct ColumnChunk;  // metadata.h
struct PageHeader;   // metadata.h
class PageReader;
class ValueDecoder;
class LevelDecoder;

// A run of consecutive level entries of one leaf column.
//   - num_levels entries were read; for a column without repetition each entry is one row.
//   - def_levels[i] is entry i's definition level (empty when the column's max_def is 0: every
//     entry is then a value); entry i holds a value iff def_levels[i] == max_def.
//   - rep_levels[i] likewise (empty when max_rep is 0); 0 starts a new row.
//   - values holds the non-null values only, in order.
//   - from a reader set to ValueForm::INDICES, a batch of dictionary-encoded pages holds its
//     values as `indices` into `dictionary` (the chunk's, shared) and `values` stays empty; a
//     batch holds one form or the other, never both.
struct ColumnBatch {
  size_t num_levels = 0;
  std::vector<int16_t> def_levels;
  std::vector<int16_t> rep_levels;
  ValueBuffer values;
  std::vector<uint32_t> indices;
  std::shared_ptr<const ValueBuffer> dictionary;  // set iff the values are `indices`

  void clear() {
    num_levels = 0;
    def_levels.clear();
    rep_levels.clear();
    values.clear();
    indices.clear();
    dictionary.reset();
  }
};

// What a reader makes of the values of the entries it reads (ColumnReader::set_value_form()).
enum class ValueForm {
  VALUES,    // decoded into ColumnBatch::values (the default)
  INDICES,   // dictionary-encoded pages as ColumnBatch::indices, other pages as values
  NONE,      // levels only: values are skipped (decoded and dropped where the encoding needs it)
  MEASURES,  // BYTE_ARRAY: each value replaced by its measure, 8 bytes (set_measure())
};

// Throws FormatError (located at the column) unless `values` is a well-formed buffer of
// `column`'s physical type and width holding at least `needed` values. Consumers that index into
// batches call it first: a buffer that does not match its column would be read out of bounds.
void check_batch_values(const ColumnDescriptor& column, const ValueBuffer& values, size_t needed);

class ColumnReader {
 public:
  // `file`, `chunk` and `column` are borrowed and must outlive the reader. `row_group` is used in
  // error locations only. `chunk_padding` > 0 works around writers whose total_compressed_size
  // leaves out the dictionary page header (FileReader decides from created_by): the byte range
  // is extended by up to that many bytes and reading stops after the chunk's num_values.
  ColumnReader(RandomAccessFile& file, const ColumnChunk& chunk, const ColumnDescriptor& column,
               int row_group, int64_t chunk_padding = 0);
  ~ColumnReader();
  ColumnReader(const ColumnReader&) = delete;
  ColumnReader& operator=(const ColumnReader&) = delete;

  // Clears `out` and fills it with up to max_levels level entries. Returns the number read; 0
  // means the chunk is exhausted. Fewer than max_levels (but at least one) are returned before the
  // end when the batch's BYTE_ARRAY values could pass the 1 GiB batch cap
  // (DictionaryDecoder::kMaxBatchBytes; see entries_within_cap()); a single larger value is still
  // returned, alone. Throws FormatError / UnsupportedError located at the file, row
  // group, column and byte offset of the offending page.
  size_t read_batch(size_t max_levels, ColumnBatch& out);

  // Clears `out` and fills it with up to max_records whole records (rows): level entries up to,
  // not including, the start (repetition level 0) of record max_records + 1, across pages as
  // needed. Returns the number of records; 0 means the chunk is exhausted. For a column without
  // repetition a record is one level entry, as in read_batch(). Like read_batch(), it returns
  // fewer records (at least one) before the end rather than pass the batch cap; a record whose
  // values pass the cap alone throws FormatError unless it holds one value. Throws as
  // read_batch() does.
  size_t read_records(size_t max_records, ColumnBatch& out);

  // Skips up to n records (rows). Returns the number skipped.
  size_t skip(size_t n);

  // Restricts the reader to the rows of `ranges` (row indexes within the row group; sorted,
  // disjoint): read_batch() and read_records() then return exactly those rows, in order, as if
  // the chunk held nothing else (read_batch() counts rows, like read_records()). With `index`
  // (the chunk's OffsetIndex, copied; `group_rows` the row group's row count) pages holding no
  // selected row are skipped without reading their bytes, and the dictionary page is still read;
  // without it every page is read and the other rows are decoded and dropped. Call before the
  // first read (else UsageError). Throws FormatError while reading if the pages do not match the
  // index. Selected batches are not ended early for the batch cap: values past it throw.
  void select_rows(RowRanges ranges, const OffsetIndex* index, int64_t group_rows);

  // The chunk's dictionary, decoded from its dictionary page, or null when it has none; reads the
  // pages up to the first data page. For a fresh reader whose rows are not read afterwards (the
  // scan decodes a dictionary once per chunk and hands it to the readers of the chunk's units).
  // Throws UsageError after reading began, FormatError as read_batch().
  [[nodiscard]] std::shared_ptr<const ValueBuffer> read_dictionary();

  // Makes the reader use `dictionary` (read_dictionary() of the same chunk; null: nothing
  // changes): the chunk's dictionary page is then skipped, and not even read when select_rows()
  // was given the page locations. Call before the first read (else UsageError).
  void use_dictionary(std::shared_ptr<const ValueBuffer> dictionary);

  // How the values of later reads are delivered (ValueForm). INDICES and NONE are for columns
  // without repetition (else UsageError). With INDICES a batch ends where the pages change
  // between dictionary-encoded and other pages.
  void set_value_form(ValueForm form);

  // Makes later reads deliver, for each BYTE_ARRAY value, `measure` of it as an 8-byte value
  // (ValueBuffer::measure() reads it back) instead of the value: a column whose values are only
  // measured (their decoded size) is then never copied out of its pages. For a BYTE_ARRAY column
  // without repetition (else UsageError).
  void set_measure(ValueMeasure measure);

  // Verify page CRCs when present (see PageReader::set_verify_checksums).
  void set_verify_checksums(bool on);

  // PLAIN data pages of a SNAPPY chunk of a BYTE_ARRAY column without repetition that decode to
  // at least this many bytes are decoded a piece at a time as their values are read
  // (SnappyStream), not whole: DuckDB writes pages of 100 MB of code, and a reader on each core
  // held one decoded. The values, levels and errors are those of the whole page.
  static constexpr size_t kStreamedPageBytes = size_t{16} << 20;
  // Another threshold than kStreamedPageBytes (SIZE_MAX: never; tests stream every page). Call
  // before the first read. No effect on other columns.
  void stream_pages_from(size_t bytes);
  // Streamed pages read to their end so far, and of those the ones whose stream had to be decoded
  // whole after all (a copy from before its window; no snappy writer known makes one).
  [[nodiscard]] int64_t pages_streamed() const;
  [[nodiscard]] int64_t pages_streamed_whole() const;

  // A page of a repeated column has its repetition levels decoded at once (for look-ahead); a
  // page declaring more values than this is refused as hostile.
  static constexpr size_t kMaxRepeatedPageLevels = size_t{1} << 26;

  [[nodiscard]] const ColumnDescriptor& column() const { return column_; }

 private:
  struct State;
  bool next_data_page();
  // Starts the streamed page `body` (Page::streamed) of header `h`; false if it holds no values.
  bool start_streamed_page(const PageHeader& h, std::span<const uint8_t> body);
  // With a selection: moves the page reader to the next page holding selected rows. Returns
  // false when no selected row is left.
  bool skip_to_selected_page();
  size_t read_selected(size_t max_records, ColumnBatch& out);
  void start_batch(ColumnBatch& out) const;
  // Batch value cap: the level entries of the current page that may still be moved into `out`
  // without its BYTE_ARRAY values possibly passing DictionaryDecoder::kMaxBatchBytes. From a
  // dictionary page each entry counts as the dictionary's largest value; another page counts as
  // its whole value section (0 entries if that does not fit beside values already in `out`,
  // SIZE_MAX otherwise). SIZE_MAX for other types. Batches end early (at a record start for
  // read_records()) when it runs out; an empty batch still takes one entry (one record), so every
  // batch makes progress.
  [[nodiscard]] size_t entries_within_cap(const ColumnBatch& out) const;
  // With ValueForm::INDICES: whether the current page's values are of the other form than those
  // already in `out` (which must then end before it).
  [[nodiscard]] bool form_changes(const ColumnBatch& out) const;
  // Moves the next n level entries of the current page (and their values) into `out`.
  void consume(size_t n, ColumnBatch& out);
  // Moves past the next n level entries of the current page: their levels are decoded (to count
  // the values), their values skipped without being produced where the decoder can.
  void discard(size_t n);
  // After consume() or discard(): a streamed page whose values are all read is decoded to its
  // end and checked.
  void finish_streamed_page();
  // The level part of consume() and discard(): appends n entries' levels to `out`, advances the
  // page and record counters, and returns how many of the entries hold a value.
  size_t take_levels(size_t n, ColumnBatch& out);
  size_t read_into(size_t max_levels, ColumnBatch& out);
  size_t read_records_into(size_t max_records, ColumnBatch& out);
  void locate(Error& error) const;

  const ColumnDescriptor& column_;
  int row_group_;
  std::string file_name_;
  std::unique_ptr<State> state_;
};

}  // namespace kbdata::parquet
