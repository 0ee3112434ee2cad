// The check of one input of the fuzz_audit target, shared with the test that replays its findings
// (tests/hostile/fuzz_regression_test.cc): any bytes as a submission's code, audited by audit_code
// (the screen first, audit/code_screen.h) and by audit_code_in_full (every rule's pass), as Python
// and as a C++ file. The two must give the same findings: a difference aborts. The first byte
// picks the reference: none, or one of 4, 8, 16, 32 or 64 bits whose normalised text is the
// code's own (so reference-copy is compared too) or another. The same bytes are classified by
// techniques::classify, as Python and as a C++ file, which must hold its invariants.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "audit/code_rules.h"
#include "techniques/techniques.h"

namespace kbdata::fuzz {

inline void run_audit_input(const uint8_t* data, size_t size) {
  if (size == 0) return;
  const uint8_t pick = data[0];
  const std::string_view code(reinterpret_cast<const char*>(data) + 1, size - 1);
  for (const bool cpp : {false, true}) {
    audit::CodeContext context;
    context.cpp_file = cpp;
    std::string reference;
    constexpr int kBits[] = {4, 8, 16, 32, 64};
    if (pick % 6 != 0) {
      context.reference_float_bits = kBits[pick % 6 - 1];
      reference = (pick & 0x80) != 0 ? audit::normalised_code(code, cpp)
                                     : std::string("def ref_kernel ( data ) : return data");
      context.reference_normalised = &reference;
    }
    const std::vector<audit::Finding> screened = audit::audit_code(code, context);
    const std::vector<audit::Finding> full = audit::audit_code_in_full(code, context);
    if (!(screened == full)) std::abort();
    // The techniques read the same tokens (docs/techniques.md): the hot loop's language is one of
    // those present, and the embedded C++ lines are lines of the code.
    const techniques::Techniques t = techniques::classify(code, cpp ? "s.cu" : "s.py");
    if (!t.has(t.language) || t.kernel_lines > t.lines) std::abort();
  }
}

}  // namespace kbdata::fuzz
