// Opens a Parquet file: validates the magic bytes, decodes the footer and the schema, and hands
// out column readers for (row group, leaf column) pairs.
//
// Opening reads only the footer. Column data is read when a ColumnReader asks for it, so reading
// some columns reads only those column chunks' bytes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "common/file.h"
#include "parquet/column_reader.h"
#include "parquet/metadata.h"
#include "parquet/page_index.h"
#include "parquet/schema.h"

namespace kbdata::parquet {

struct ReaderOptions {
  // Check page CRCs where the writer stored them (PageReader::set_verify_checksums).
  bool verify_checksums = false;
};

class FileReader {
 public:
  // Footer limit: a footer larger than this is refused as hostile (the largest real footers are a
  // few MB).
  static constexpr uint64_t kMaxFooterBytes = 256ull << 20;

  // Takes ownership of `file`. Throws FormatError (not Parquet, truncated, corrupt footer),
  // UnsupportedError (encrypted files) located at the file.
  static std::unique_ptr<FileReader> open(std::unique_ptr<RandomAccessFile> file,
                                          ReaderOptions options = {});
  // Convenience: opens a local path.
  static std::unique_ptr<FileReader> open(const std::string& path, ReaderOptions options = {});

  [[nodiscard]] const ReaderOptions& options() const { return options_; }

  [[nodiscard]] const FileMetaData& metadata() const { return metadata_; }
  [[nodiscard]] const Schema& schema() const { return schema_; }
  [[nodiscard]] int num_row_groups() const { return static_cast<int>(metadata_.row_groups.size()); }
  [[nodiscard]] int64_t num_rows() const { return metadata_.num_rows; }
  [[nodiscard]] RandomAccessFile& file() { return *file_; }
  [[nodiscard]] const std::string& name() const;
  // Byte offset of the footer (the FileMetaData) and its length.
  [[nodiscard]] uint64_t footer_offset() const { return footer_offset_; }
  [[nodiscard]] uint64_t footer_length() const { return footer_length_; }

  // A reader for leaf `leaf` (index into schema().leaves()) in row group `row_group`. Throws
  // UsageError for indexes out of range, FormatError if the row group lacks the chunk.
  [[nodiscard]] std::unique_ptr<ColumnReader> column(int row_group, int leaf);

  // The page index of a column chunk, read from the file on each call (nothing is cached) and
  // validated (parquet/page_index.h); nullopt when the chunk has none. Throws UsageError for
  // indexes out of range, FormatError located at the chunk for a corrupt index.
  [[nodiscard]] std::optional<OffsetIndex> offset_index(int row_group, int leaf);
  [[nodiscard]] std::optional<ColumnIndex> column_index(int row_group, int leaf);

  // Where the chunk's data pages lie, for ColumnReader::select_rows(): the chunk's OffsetIndex
  // when it has one, else the locations found by walking its page headers
  // (walk_page_locations(), which reads a few KiB per page and no page body). nullopt when there
  // is no OffsetIndex and the column is repeated with v1 data pages (their rows are unknown
  // without decoding). Throws as offset_index() does, FormatError for corrupt page headers.
  [[nodiscard]] std::optional<OffsetIndex> page_locations(int row_group, int leaf);

 private:
  FileReader(std::unique_ptr<RandomAccessFile> file, ReaderOptions options)
      : file_(std::move(file)), options_(options) {}
  const ColumnChunk& chunk(int row_group, int leaf) const;

  std::unique_ptr<RandomAccessFile> file_;
  ReaderOptions options_;
  FileMetaData metadata_;
  Schema schema_;
  uint64_t footer_offset_ = 0;
  uint64_t footer_length_ = 0;
  int64_t chunk_padding_ = 0;  // see ColumnReader; from created_by
};

// Bytes to add to each column chunk's length for files whose writer under-reported it: parquet-mr
// up to 1.2.8 (and builds that name no version) left the dictionary page header out of
// total_compressed_size (PARQUET-816). 0 for every other writer.
[[nodiscard]] int64_t legacy_chunk_padding(const std::optional<std::string>& created_by);

}  // namespace kbdata::parquet
