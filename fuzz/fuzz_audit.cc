// libFuzzer target: any bytes as a submission's code, audited with the screen and with every
// rule's pass (fuzz_audit_input.h); a difference, a crash or a sanitizer report (a read past the
// text: libFuzzer hands the input in a buffer of its exact size) is a finding.
#include <cstddef>
#include <cstdint>

#include "fuzz_audit_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  kbdata::fuzz::run_audit_input(data, size);
  return 0;
}
