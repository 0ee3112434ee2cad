// Copies every record of an open Parquet file into a FileWriter with the same schema: the engine
// of `kbdata convert` and of the round-trip tests.
#pragma once

#include <cstdint>
#include <functional>

#include "common/progress.h"
#include "parquet/file_reader.h"
#include "parquet/write/file_writer.h"

namespace kbdata::parquet {

// Reads every leaf column of `in` with one TableScan on `threads` threads (parquet/table_scan.h),
// in batches of whole records sized to about kCopyBatchBytes, and hands them to `out` in file
// order (whose schema must be `in`'s; the caller closes it). Memory: what the scan holds, plus
// one row group written. Throws what the reader throws (FormatError located at the file, row
// group and column), among them a column chunk that holds fewer or more rows than its row group.
// `progress` (may be empty) gets the rows copied so far of the file's total after each batch.
void copy_file(FileReader& in, FileWriter& out, const ProgressFn& progress = {}, int threads = 1);

inline constexpr size_t kCopyBatchBytes = size_t{16} << 20;

}  // namespace kbdata::parquet
