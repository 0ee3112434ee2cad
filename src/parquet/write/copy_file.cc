#include "parquet/write/copy_file.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "common/error.h"
#include "parquet/table_scan.h"

namespace kbdata::parquet {
namespace {

// Records per batch: about kCopyBatchBytes of uncompressed data, from the chunks' sizes in the
// footer (a hint only: a hostile footer costs speed, not memory, since the reader bounds each
// batch by its pages).
size_t batch_records(const FileMetaData& meta) {
  int64_t bytes = 0;
  int64_t rows = 0;
  for (const RowGroup& group : meta.row_groups) {
    rows += std::max<int64_t>(0, group.num_rows);
    for (const ColumnChunk& chunk : group.columns) {
      if (chunk.meta_data) bytes += std::max<int64_t>(0, chunk.meta_data->total_uncompressed_size);
    }
  }
  if (rows <= 0) return 1;
  const int64_t per_record = std::max<int64_t>(1, bytes / rows);
  const int64_t records = static_cast<int64_t>(kCopyBatchBytes) / per_record;
  return static_cast<size_t>(std::clamp<int64_t>(records, 1, 65'536));
}

}  // namespace

void copy_file(FileReader& in, FileWriter& out, const ProgressFn& progress, int threads) {
  ScanOptions options;
  for (size_t leaf = 0; leaf < in.schema().leaves().size(); ++leaf) {
    options.columns.push_back(static_cast<int>(leaf));
  }
  if (options.columns.empty()) return;
  options.batch_rows = batch_records(in.metadata());
  options.threads = threads;
  uint64_t done = 0;
  const uint64_t total = static_cast<uint64_t>(std::max<int64_t>(in.num_rows(), 0));
  TableScan scan(in, options);
  scan.run(nullptr, [&](ScanBatch& batch) {
    out.write(batch.columns);
    done += batch.num_rows;
    if (progress) progress({.stage = {}, .done = done, .total = total, .unit = "rows"});
    return true;
  });
}

}  // namespace kbdata::parquet
