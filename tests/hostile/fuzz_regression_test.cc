// Replays the fuzz findings kept in tests/data/fuzz/<target>/ (the minimized inputs of crashes
// found by `make fuzz`; <target> is read_file, footer, page or audit) through the same code path
// as the fuzz target (fuzz/fuzz_inputs.h, fuzz/fuzz_audit_input.h), each in a forked child: the
// input must end in success or a kbdata::Error, never a crash, a hang or another exception. The
// audit's inputs end where an unreadable page starts, so a read past them faults in any build.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "common/error.h"
#include "fuzz_audit_input.h"
#include "fuzz_inputs.h"
#include "hostile_support.h"
#include "support/guarded_text.h"

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
TEST(FuzzRegression, Audit) {
  replay("audit", [](const uint8_t* data, size_t size) {
    kbdata::testing::GuardedText guarded(size);
    const std::string_view placed =
        guarded.place(std::string_view(reinterpret_cast<const char*>(data), size));
    fuzz::run_audit_input(reinterpret_cast<const uint8_t*>(placed.data()), placed.size());
  });
}

}  // namespace
}  // namespace kbdata::hostile
