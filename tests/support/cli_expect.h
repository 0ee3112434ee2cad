// Test-only: what every failing kbdata command must look like (GoogleTest expectations).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "support/run_kbdata.h"

namespace kbdata::testing {

// `r` exited with `exit_code` and printed one line on stderr, "kbdata: " first, containing `part`.
inline void expect_one_line_error(const Result& r, int exit_code, const std::string& part) {
  EXPECT_EQ(r.exit_code, exit_code) << r.err;
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
  EXPECT_EQ(r.err.rfind("kbdata: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(part), std::string::npos) << r.err;
}

}  // namespace kbdata::testing
