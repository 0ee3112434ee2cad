// Replays the fuzz findings kept in tests/data/fuzz/<target>/ (the minimized inputs of crashes
// found by `make fuzz`; <target> is read_file, footer or page) through the same code path as the
// fuzz target (fuzz/fuzz_inputs.h), each in a forked child: the input must end in success or a
// kbdata::Error, never a crash, a hang or another exception.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "common/error.h"
#include "fuzz_inputs.h"
#include "hostile_support.h"

namespace kbdata::hostile {
namespace {

constexpr std::chrono::seconds kTimeout{60};

void replay(const std::string& target, void (*run)(const uint8_t*, size_t)) {
  const fs::path dir = fs::path(KBDATA_TEST_DATA) / "fuzz" / target;
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    SCOPED_TRACE(path.string());
    std::ifstream in(path, std::ios::binary);
    const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                     std::istreambuf_iterator<char>());
    const ProcessResult result = run_in_child(
        [&]() -> std::string {
          try {
            run(bytes.data(), bytes.size());
            return "ok";
          } catch (const Error& e) {
            return std::string("error ") + e.what();
          } catch (const std::exception& e) {
            return std::string("other ") + e.what();
          }
        },
        kTimeout);
    EXPECT_EQ(result.exit_code, 0)
        << result.describe() << "; stderr: " << result.err.substr(0, 4000);
    EXPECT_TRUE(result.out.starts_with("ok") || result.out.starts_with("error ")) << result.out;
    std::cout << "fuzz regression: " << target << "/" << path.filename().string() << ": "
              << result.out << "\n";
  }
}

TEST(FuzzRegression, ReadFile) { replay("read_file", fuzz::run_read_file_input); }
TEST(FuzzRegression, Footer) { replay("footer", fuzz::run_footer_input); }
TEST(FuzzRegression, Page) { replay("page", fuzz::run_page_input); }

}  // namespace
}  // namespace kbdata::hostile
