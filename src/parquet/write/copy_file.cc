#include "parquet/write/copy_file.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "common/error.h"

namespace kbdata::parquet {
namespace {

// Records per batch for a row group: about kCopyBatchBytes of uncompressed data, from the
// chunks' sizes in the footer (a hint only: a hostile footer costs speed, not memory, since the
// reader bounds each batch by its pages).
size_t batch_records(const RowGroup& group) {
  if (group.num_rows <= 0) return 1;
  int64_t bytes = 0;
  for (const ColumnChunk& chunk : group.columns) {
    if (chunk.meta_data) bytes += std::max<int64_t>(0, chunk.meta_data->total_uncompressed_size);
  }
  int64_t per_record = std::max<int64_t>(1, bytes / group.num_rows);
  int64_t records = static_cast<int64_t>(kCopyBatchBytes) / per_record;
  return static_cast<size_t>(std::clamp<int64_t>(records, 1, 65'536));
}

}  // namespace

void copy_file(FileReader& in, FileWriter& out, const CopyProgress& progress) {
  const size_t leaves = in.schema().leaves().size();
  std::vector<ColumnBatch> batches(leaves);
  int64_t done = 0;
  for (int g = 0; g < in.num_row_groups(); ++g) {
    const RowGroup& group = in.metadata().row_groups[static_cast<size_t>(g)];
    std::vector<std::unique_ptr<ColumnReader>> readers;
    readers.reserve(leaves);
    for (size_t leaf = 0; leaf < leaves; ++leaf) {
      readers.push_back(in.column(g, static_cast<int>(leaf)));
    }
    const size_t step = batch_records(group);
    int64_t group_done = 0;
    while (true) {
      size_t records = 0;
      for (size_t leaf = 0; leaf < leaves; ++leaf) {
        size_t n = readers[leaf]->read_records(step, batches[leaf]);
        if (leaf == 0) {
          records = n;
        } else if (n != records) {
          FormatError error("column chunk holds " +
                            std::to_string(group_done + static_cast<int64_t>(n)) +
                            " rows where column " + in.schema().leaves()[0].dotted_path +
                            " holds " + std::to_string(group_done + static_cast<int64_t>(records)));
          error.locate_column(in.schema().leaves()[leaf].dotted_path);
          error.locate_row_group(g);
          error.locate_file(in.name());
          throw error;
        }
      }
      if (records == 0) break;
      out.write(batches);
      group_done += static_cast<int64_t>(records);
      done += static_cast<int64_t>(records);
      if (progress) progress(done, in.num_rows());
    }
    if (group_done != group.num_rows) {
      FormatError error("row group holds " + std::to_string(group_done) +
                        " rows but its footer says " + std::to_string(group.num_rows));
      error.locate_row_group(g);
      error.locate_file(in.name());
      throw error;
    }
  }
}

}  // namespace kbdata::parquet
