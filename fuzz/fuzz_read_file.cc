// libFuzzer target: any bytes as a Parquet file; open it and read every column to the end. The code
// path is in fuzz_inputs.h, shared with tests/hostile/fuzz_regression_test.cc. Anything but success
// or a kbdata::Error (a crash, a sanitizer report, another exception) is a finding.
#include <cstddef>
#include <cstdint>

#include "common/error.h"
#include "fuzz_inputs.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // An input whose pages declare more than a fuzz run can decode is left out (fuzz_inputs.h,
  // DecodeLimits), and kept out of the corpus.
  if (!kbdata::fuzz::declared_sizes_of_file(data, size).within_limits()) return -1;
  try {
    kbdata::fuzz::run_read_file_input(data, size);
  } catch (const kbdata::Error&) {
  }
  return 0;
}
