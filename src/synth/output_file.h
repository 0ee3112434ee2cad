// One synthetic Parquet file being written: an AtomicOutputFile, a FileWriter with the layout's
// options, and a Columns buffer flushed to the writer every few thousand rows or megabytes, so
// memory stays bounded by the writer's row group (for the published layout: the whole file's
// encoded pages, as the hub's single-row-group files imply) plus one batch.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/file.h"
#include "parquet/write/file_writer.h"
#include "synth/columns.h"

namespace kbdata::synth {

enum class Layout { PUBLISHED, KBDATA };

// The writer options of a layout, with kbdata's provenance (kbdata.version, kbdata.command).
//   PUBLISHED  snappy, dictionary, one row group, no page index (what the hub's files look like)
//   KBDATA     the FileWriter defaults (bounded row groups, page indexes)
[[nodiscard]] parquet::WriterOptions layout_options(Layout layout, const std::string& command);

class OutputFile {
 public:
  // Throws IoError if `path` cannot be created.
  OutputFile(const std::string& path, std::vector<parquet::SchemaElement> schema,
             const parquet::WriterOptions& options);

  Columns& columns() { return columns_; }
  // Call after each row: hands the buffered rows to the writer when the buffer is full.
  void row_done();
  // Writes what is buffered and the footer, and moves the file into place. Returns its size.
  uint64_t finish();
  [[nodiscard]] int64_t rows() const { return rows_; }

 private:
  void flush();

  AtomicOutputFile file_;
  parquet::FileWriter writer_;
  Columns columns_;
  int64_t rows_ = 0;
};

}  // namespace kbdata::synth
