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

std::vector<uint8_t> bytes_of(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
}

// The fuzz targets' limits (fuzz_inputs.h, DecodeLimits): every fixture is fuzzed whole; an input
// whose pages declare more than a run can decode is passed over (large_string_map.brotli.parquet,
// two 1 GiB strings, stopped fuzz_read_file at once: issue 45), whatever else it holds.
TEST(FuzzLimits, TheFixturesAreFuzzedAndHugeDeclaredSizesAreNot) {
  int fixtures = 0;
  for (const auto& entry : fs::recursive_directory_iterator(KBDATA_TEST_DATA)) {
    if (entry.path().extension() != ".parquet") continue;
    SCOPED_TRACE(entry.path().string());
    const std::vector<uint8_t> file = bytes_of(entry.path());
    EXPECT_TRUE(fuzz::declared_sizes_of_file(file.data(), file.size()).within_limits());
    ++fixtures;
  }
  EXPECT_GE(fixtures, 20);

  // A page input whose one page declares 2^31 - 1 bytes over a few stored ones.
  parquet::PageHeader header;
  header.type = parquet::PageType::DATA_PAGE;
  header.uncompressed_page_size = INT32_MAX;
  header.compressed_page_size = 4;
  header.data_page_header.emplace();
  header.data_page_header->num_values = 1;
  std::vector<uint8_t> page = {1, 0, 0, 0, 0, 0, 0};  // INT32, GZIP: the fuzz_page header
  std::vector<uint8_t> encoded;
  parquet::encode_page_header(header, encoded);
  page.insert(page.end(), encoded.begin(), encoded.end());
  page.insert(page.end(), {0x1f, 0x8b, 0, 0});
  const fuzz::DeclaredSizes sizes = fuzz::declared_sizes_of_page_input(page.data(), page.size());
  EXPECT_EQ(sizes.largest_page, uint64_t{INT32_MAX});
  EXPECT_FALSE(sizes.within_limits());
  header.uncompressed_page_size = 1000;
  encoded.clear();
  parquet::encode_page_header(header, encoded);
  page.resize(fuzz::kPageFuzzHeader);
  page.insert(page.end(), encoded.begin(), encoded.end());
  page.insert(page.end(), {0x1f, 0x8b, 0, 0});
  EXPECT_TRUE(fuzz::declared_sizes_of_page_input(page.data(), page.size()).within_limits());

  const auto corpus = corpus_root();
  if (!corpus) GTEST_SKIP() << "Parquet corpus not found at " << corpus_location();
  const std::vector<uint8_t> huge =
      bytes_of(*corpus / "parquet-testing" / "large_string_map.brotli.parquet");
  ASSERT_FALSE(huge.empty());
  const fuzz::DeclaredSizes declared = fuzz::declared_sizes_of_file(huge.data(), huge.size());
  EXPECT_GE(declared.largest_page, uint64_t{1} << 30);
  EXPECT_FALSE(declared.within_limits());
}

}  // namespace
}  // namespace kbdata::hostile
