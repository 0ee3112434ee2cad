// Writes submission rows (dataset/submission.h) as a Parquet file of the flat schema
// (docs/dataset.md §4.1), optionally followed by dedup's columns, with kbdata's writer layout (page
// indexes, bounded row groups) and the given key-value metadata. The file appears only at finish().
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/file.h"
#include "dataset/submission.h"
#include "parquet/metadata.h"
#include "parquet/write/file_writer.h"

namespace kbdata::dedup {

// The columns after the flat schema's 14.
enum class ExtraColumns {
  NONE,          // the flat schema only
  CLUSTER_SIZE,  // cluster_id INT64, cluster_size INT64
  KEPT,          // cluster_id INT64, kept BOOLEAN
};

struct ClusterFields {
  int64_t cluster_id = 0;
  int64_t cluster_size = 0;
  bool kept = false;
};

class FlatRowWriter {
 public:
  // Creates the temporary output (AtomicOutputFile). Throws IoError if it cannot.
  FlatRowWriter(const std::string& path, ExtraColumns extra,
                std::vector<parquet::KeyValue> key_value_metadata);
  ~FlatRowWriter();
  FlatRowWriter(const FlatRowWriter&) = delete;
  FlatRowWriter& operator=(const FlatRowWriter&) = delete;

  // Appends one row; `cluster` is ignored for ExtraColumns::NONE. Invalid UTF-8 in a string is
  // replaced (U+FFFD), as the flat schema's strings are UTF-8.
  void write(const dataset::Submission& s, const ClusterFields& cluster);
  // Writes the footer and renames the file into place.
  void finish();

  [[nodiscard]] uint64_t rows() const { return rows_; }
  [[nodiscard]] uint64_t bytes_written() const { return writer_->bytes_written(); }

 private:
  void flush();

  ExtraColumns extra_;
  AtomicOutputFile file_;
  std::unique_ptr<parquet::FileWriter> writer_;
  std::vector<parquet::ColumnBatch> batches_;
  size_t batch_bytes_ = 0;
  uint64_t rows_ = 0;
};

}  // namespace kbdata::dedup
