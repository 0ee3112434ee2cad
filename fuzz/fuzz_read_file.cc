// libFuzzer target: any bytes as a Parquet file; open it and read every column to the end. The code
// path is in fuzz_inputs.h, shared with tests/hostile/fuzz_regression_test.cc. Anything but success
// or a kbdata::Error (a crash, a sanitizer report, another exception) is a finding.
#include <cstddef>
#include <cstdint>

#include "common/error.h"
#include "fuzz_inputs.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    kbdata::fuzz::run_read_file_input(data, size);
  } catch (const kbdata::Error&) {
  }
  return 0;
}
