// How synth writes its Parquet files: the two layouts (docs/synth.md, "Layouts") and the
// provenance every file records.
#pragma once

#include <string>

#include "parquet/write/row_file_writer.h"

namespace kbdata::synth {

enum class Layout { PUBLISHED, KBDATA };

struct OutputOptions {
  parquet::WriterOptions writer;
  parquet::Provenance provenance;
};

// The writer options of a layout, and kbdata.command `command` (the canonical command: the files
// do not depend on the folder they are written to).
//   PUBLISHED  snappy, dictionary, one row group, no page index (what the hub's files look like)
//   KBDATA     the FileWriter defaults (bounded row groups, page indexes)
// Rows reach the writer in RowFileWriter's default batches (2,048 rows or 8 MiB of values).
[[nodiscard]] OutputOptions output_options(Layout layout, const std::string& command);

}  // namespace kbdata::synth
