// libFuzzer target: any bytes as a Parquet file; open it and read every column to the end.
// Anything but success or a kbdata::Error (a crash, a sanitizer report, another exception) is a
// finding.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "common/error.h"
#include "common/file.h"
#include "parquet/file_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kbdata;
  try {
    auto reader = parquet::FileReader::open(
        std::make_unique<MemoryFile>("fuzz", std::vector<uint8_t>(data, data + size)));
    parquet::ColumnBatch batch;
    for (int g = 0; g < reader->num_row_groups(); ++g) {
      for (size_t c = 0; c < reader->schema().leaves().size(); ++c) {
        auto column = reader->column(g, static_cast<int>(c));
        while (column->read_batch(1024, batch) > 0) {
        }
      }
    }
  } catch (const Error&) {
  }
  return 0;
}
