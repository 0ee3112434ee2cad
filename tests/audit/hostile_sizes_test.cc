// Inputs that once took time quadratic in their size in the audit's screen: one run of 400,000
// bytes made of a type's part in an embedded C++ source (37.6 s, now milliseconds), 20,000
// raw-string prefixes with no '(' after them, 20,000 `def custom_kernel` lines. Registered with a
// CTest timeout of 60 s, so a return of the quadratic fails the suite instead of slowing it; each
// must also give the full pass's findings.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "audit/code_rules.h"

namespace kbdata::audit {
namespace {

TEST(HostileSizes, EachTakesOnePass) {
  std::string run;
  for (int i = 0; i < 100000; ++i) run += "half";
  std::string prefixes;
  for (int i = 0; i < 20000; ++i) prefixes += "R\" x ";
  std::string kernels;
  for (int i = 0; i < 20000; ++i)
    kernels += "def custom_kernel(data):\n    s = 'x'\n    return 1\n";
  CodeContext c;
  c.reference_float_bits = 32;
  const std::vector<std::string> codes = {"src = '''#include <x>\n" + run + " __half h;'''\n",
                                          "src = '''#include <x>\n" + prefixes + " __half h;'''\n",
                                          kernels};
  for (const std::string& code : codes) {
    EXPECT_TRUE(audit_code(code, c) == audit_code_in_full(code, c)) << code.substr(0, 80);
  }
}

}  // namespace
}  // namespace kbdata::audit
