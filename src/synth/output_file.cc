#include "synth/output_file.h"

#include <cstdint>

#include "common/version.h"

namespace kbdata::synth {

parquet::WriterOptions layout_options(Layout layout, const std::string& command) {
  parquet::WriterOptions w;
  if (layout == Layout::PUBLISHED) {
    w.codec = parquet::Codec::SNAPPY;
    w.encoding = parquet::ValueEncoding::AUTO;
    w.page_index = false;
    w.row_group_rows = INT64_MAX;
    w.row_group_bytes = SIZE_MAX;
  }
  w.key_value_metadata.push_back({"kbdata.version", std::string(kVersion)});
  w.key_value_metadata.push_back({"kbdata.command", command});
  w.created_by = std::string("kbdata version ") + kVersion;
  return w;
}

OutputFile::OutputFile(const std::string& path, std::vector<parquet::SchemaElement> schema,
                       const parquet::WriterOptions& options)
    : file_(path), writer_(file_, std::move(schema), options), columns_(writer_.schema()) {}

void OutputFile::row_done() {
  ++rows_;
  if (columns_.rows() >= 2048 || columns_.value_bytes() >= (size_t{8} << 20)) flush();
}

void OutputFile::flush() {
  if (columns_.rows() == 0) return;
  writer_.write(columns_.batches());
  columns_.clear();
}

uint64_t OutputFile::finish() {
  flush();
  writer_.close();
  file_.commit();
  return writer_.bytes_written();
}

}  // namespace kbdata::synth
