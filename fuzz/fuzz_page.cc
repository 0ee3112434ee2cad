// libFuzzer target: any bytes as one column chunk's pages, read through a ColumnReader over a
// synthetic column chosen by the first bytes: reaches the page reader, every codec, the level
// decoders and every value decoder. The code path is in fuzz_inputs.h,
// shared with tests/hostile/fuzz_regression_test.cc. Anything but success or a kbdata::Error (a
// crash, a sanitizer report, another exception) is a finding.
#include <cstddef>
#include <cstdint>

#include "common/error.h"
#include "fuzz_inputs.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // An input whose pages declare more than a fuzz run can decode is left out (fuzz_inputs.h,
  // DecodeLimits), and kept out of the corpus.
  if (!kbdata::fuzz::declared_sizes_of_page_input(data, size).within_limits()) return -1;
  try {
    kbdata::fuzz::run_page_input(data, size);
  } catch (const kbdata::Error&) {
  }
  return 0;
}
