// Copies every record of an open Parquet file into a FileWriter with the same schema: the engine
// of `kbdata convert` and of the round-trip tests.
#pragma once

#include <cstdint>
#include <functional>

#include "parquet/file_reader.h"
#include "parquet/write/file_writer.h"

namespace kbdata::parquet {

// Called after each batch with the rows copied so far and the file's total.
using CopyProgress = std::function<void(int64_t rows_done, int64_t rows_total)>;

// Reads `in` row group by row group, all leaf columns in step, in batches of whole records sized
// to about kCopyBatchBytes, and hands them to `out` (whose schema must be `in`'s; the caller
// closes it). Memory: one batch per column, plus what each side holds (a page per column read,
// one row group written). Throws what the reader throws (FormatError located at the file, row
// group and column) and FormatError if a row group's columns disagree on its row count.
void copy_file(FileReader& in, FileWriter& out, const CopyProgress& progress = {});

inline constexpr size_t kCopyBatchBytes = size_t{16} << 20;

}  // namespace kbdata::parquet
