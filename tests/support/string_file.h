// Test-only: hand-builds a small Parquet file with one STRING column, for tests of how raw bytes
// (invalid UTF-8, say) travel from a file to the output. Uses the compact-protocol writer of
// compact_writer.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compact_writer.h"

namespace kbdata::testing {

struct StringFileSpec {
  std::vector<std::string> values;  // raw bytes of each row's value, any bytes
  std::string min_value;            // column-chunk statistics (fields 6 and 5), raw bytes
  std::string max_value;
  std::string created_by = "kbdata tests";
  std::vector<std::pair<std::string, std::string>> key_value_metadata;  // raw bytes
};

// A file with one REQUIRED BYTE_ARRAY column "s" annotated STRING (LogicalType and the UTF8
// ConvertedType), one row group with one uncompressed PLAIN data page. Returns the file's bytes.
inline std::vector<uint8_t> build_string_file(const StringFileSpec& spec) {
  std::vector<uint8_t> body;
  for (const auto& value : spec.values) {
    append_le32(body, static_cast<uint32_t>(value.size()));
    body.insert(body.end(), value.begin(), value.end());
  }
  const auto num_rows = static_cast<int64_t>(spec.values.size());

  std::vector<uint8_t> file = {'P', 'A', 'R', '1'};
  const auto chunk_start = static_cast<int64_t>(file.size());
  CompactWriter h;
  h.begin()
      .i32(1, 0)
      .i32(2, static_cast<int32_t>(body.size()))
      .i32(3, static_cast<int32_t>(body.size()));
  h.struct_field(5).i32(1, static_cast<int32_t>(num_rows)).i32(2, 0).i32(3, 3).i32(4, 3).end();
  h.end();
  file.insert(file.end(), h.bytes.begin(), h.bytes.end());
  file.insert(file.end(), body.begin(), body.end());
  const auto chunk_size = static_cast<int64_t>(file.size()) - chunk_start;

  CompactWriter m;
  m.begin().i32(1, 1);
  m.list(2, Wire::STRUCT, 2);
  m.begin().str(4, "schema").i32(5, 1).end();
  // type BYTE_ARRAY, repetition REQUIRED, name, converted_type UTF8, logicalType STRING
  m.begin().i32(1, 6).i32(3, 0).str(4, "s").i32(6, 0);
  m.struct_field(10).struct_field(1).end().end();
  m.end();
  m.i64(3, num_rows);
  m.list(4, Wire::STRUCT, 1);
  m.begin();
  m.list(1, Wire::STRUCT, 1);
  m.begin().i64(2, chunk_start);
  m.struct_field(3).i32(1, 6);
  m.list(2, Wire::I32, 1).list_i32(0);
  m.list(3, Wire::BINARY, 1).varint(1).bytes.push_back('s');
  m.i32(4, 0).i64(5, num_rows).i64(6, chunk_size).i64(7, chunk_size);
  m.i64(9, chunk_start);
  m.struct_field(12).i64(3, 0).str(5, spec.max_value).str(6, spec.min_value).end();
  m.end();  // ColumnMetaData
  m.end();  // ColumnChunk
  m.i64(2, chunk_size).i64(3, num_rows);
  m.end();  // RowGroup
  if (!spec.key_value_metadata.empty()) {
    m.list(5, Wire::STRUCT, static_cast<uint32_t>(spec.key_value_metadata.size()));
    for (const auto& [key, value] : spec.key_value_metadata)
      m.begin().str(1, key).str(2, value).end();
  }
  m.str(6, spec.created_by);
  m.end();  // FileMetaData
  append_footer(file, m.bytes);
  return file;
}

}  // namespace kbdata::testing
