#include "synth/layout.h"

#include <cstdint>

namespace kbdata::synth {

OutputOptions output_options(Layout layout, const std::string& command) {
  OutputOptions o;
  if (layout == Layout::PUBLISHED) {
    o.writer.codec = parquet::Codec::SNAPPY;
    o.writer.encoding = parquet::ValueEncoding::AUTO;
    o.writer.page_index = false;
    o.writer.row_group_rows = INT64_MAX;
    o.writer.row_group_bytes = SIZE_MAX;
  }
  o.provenance.command = command;
  return o;
}

}  // namespace kbdata::synth
