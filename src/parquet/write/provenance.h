// kbdata's record of how it made a file, in the file's key-value metadata and created_by: one
// rule for every file kbdata writes (RowFileWriter's outputs, and `kbdata convert`'s rewrite).
#pragma once

#include <string>
#include <vector>

#include "parquet/metadata.h"
#include "parquet/write/writer_options.h"

namespace kbdata::parquet {

// What kbdata records of how it made a file, in its key-value metadata, in this order:
//   the `carried` pairs (an input's own metadata kept by a rewrite, e.g. ARROW:schema; their
//   kbdata.* keys are dropped, since they describe the input), then
//   kbdata.version  kbdata's version, always
//   kbdata.command  the command line (synth: its canonical command, without the folder)
//   kbdata.rule     what the rows are, in words
//   kbdata.source   where they come from (a file name; a database and snapshot)
//   then `more`, in order (e.g. dedup's kbdata.source.command and kbdata.dedup.* counts).
// Empty command, rule and source are left out. created_by is "kbdata version V".
struct Provenance {
  std::string command;
  std::string rule;
  std::string source;
  std::vector<KeyValue> more;
  std::vector<KeyValue> carried;
};

// Sets options.key_value_metadata and options.created_by from `provenance` (replacing them).
void apply_provenance(const Provenance& provenance, WriterOptions& options);

}  // namespace kbdata::parquet
