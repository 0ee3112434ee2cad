// Hostile page sizes: a page header may declare up to INT32_MAX uncompressed bytes (the format's
// own limit, PageReader::kMaxPageBytes) over a compressed body of a few bytes. The reader then
// reserves that much address space (PageBuffer, not zero-filled) but may not make it resident:
// decompression fails long before, and the read ends in a clean FormatError.
//
// Each case runs in a forked child (hostile_support.h), which reports the error and the growth
// of its peak resident set (getrusage); the growth must stay under kMaxRssGrowthKib. A buffer
// that were zero-filled on allocation (std::vector) would show the whole 2 GiB.
//
// Under AddressSanitizer the RSS bound is not checked: ASan keeps a shadow byte per 8 bytes of
// every allocation and poisons the whole shadow of a freed block (256 MiB for a 2 GiB one), and
// its quarantine holds freed blocks, so the resident set grows by the tool's bookkeeping, not by
// the reader's buffers. The error is still checked there.
#include <gtest/gtest.h>
#include <zlib.h>

#include <chrono>
#include <climits>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/file.h"
#include "hostile_support.h"
#include "parquet/column_reader.h"
#include "parquet/file_reader.h"
#include "parquet/page_reader.h"
#include "support/compact_writer.h"

#if defined(__SANITIZE_ADDRESS__)
#define KBDATA_HOSTILE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KBDATA_HOSTILE_ASAN 1
#endif
#endif

namespace kbdata::hostile {
namespace {

constexpr long kMaxRssGrowthKib = 256L << 10;  // 256 MiB
constexpr int32_t kGzip = 2;                   // CompressionCodec.GZIP

static_assert(parquet::PageReader::kMaxPageBytes == INT32_MAX);

// A zlib stream of `size` zero bytes (a few KB for MBs).
std::vector<uint8_t> zlib_zeros(size_t size) {
  const std::vector<uint8_t> zeros(size, 0);
  uLongf length = compressBound(static_cast<uLong>(size));
  std::vector<uint8_t> out(length);
  if (compress2(out.data(), &length, zeros.data(), static_cast<uLong>(size), 9) != Z_OK) {
    std::abort();
  }
  out.resize(length);
  return out;
}

// Reads every value of the file's column in a child. The child reports "FormatError: <what>" or
// another outcome, then a line with its peak-RSS growth in KiB.
struct Outcome {
  std::string error;
  long rss_growth_kib = 0;
};

Outcome read_in_child(const std::vector<uint8_t>& bytes) {
  ProcessResult process = run_in_child(
      [&]() -> std::string {
        const long before = peak_rss_kib();
        std::string outcome = "no error";
        try {
          auto reader = parquet::FileReader::open(
              std::make_unique<MemoryFile>("declared_size.parquet", bytes));
          parquet::ColumnBatch batch;
          auto column = reader->column(0, 0);
          while (column->read_batch(1024, batch) > 0) {
          }
        } catch (const FormatError& e) {
          outcome = std::string("FormatError: ") + e.what();
        } catch (const std::exception& e) {
          outcome = std::string("other: ") + e.what();
        }
        return outcome + "\n" + std::to_string(peak_rss_kib() - before);
      },
      std::chrono::seconds(60));
  Outcome outcome;
  EXPECT_EQ(process.exit_code, 0) << process.describe() << "\n" << process.err;
  const size_t newline = process.out.rfind('\n');
  if (newline == std::string::npos) {
    ADD_FAILURE() << "the child reported nothing: " << process.describe();
    return outcome;
  }
  outcome.error = process.out.substr(0, newline);
  outcome.rss_growth_kib = std::stol(process.out.substr(newline + 1));
  return outcome;
}

void expect_small_growth(const Outcome& outcome) {
#ifdef KBDATA_HOSTILE_ASAN
  GTEST_LOG_(INFO) << "RSS growth " << outcome.rss_growth_kib
                   << " KiB not checked under AddressSanitizer (see the file comment)";
#else
  EXPECT_LT(outcome.rss_growth_kib, kMaxRssGrowthKib);
#endif
}

TEST(DeclaredPageSize, Int32MaxOverAShortStreamFailsWithoutResidentMemory) {
  // A valid zlib stream of 8 MiB of zeros under a header declaring INT32_MAX: decompression
  // writes 8 MiB of the buffer, then finds the stream ended short of the declared size.
  kbdata::testing::TestPage page;
  page.type = 0;
  page.num_values = 4;
  page.body = zlib_zeros(size_t{8} << 20);
  page.uncompressed_size = INT32_MAX;
  const Outcome outcome = read_in_child(kbdata::testing::build_int32_file({page}, 4, kGzip));
  EXPECT_EQ(outcome.error.rfind("FormatError: ", 0), 0u) << outcome.error;
  EXPECT_NE(outcome.error.find("GZIP"), std::string::npos) << outcome.error;
  expect_small_growth(outcome);
}

TEST(DeclaredPageSize, Int32MaxDictionaryPageOverGarbageFailsWithoutResidentMemory) {
  kbdata::testing::TestPage dictionary;
  dictionary.type = 2;
  dictionary.num_values = 1;
  dictionary.body = {0x78, 0x9c, 0xde, 0xad, 0xbe, 0xef};  // a zlib header, then garbage
  dictionary.uncompressed_size = INT32_MAX;
  kbdata::testing::TestPage indexed;
  indexed.type = 0;
  indexed.num_values = 1;
  indexed.encoding = 8;  // RLE_DICTIONARY
  indexed.body = {1, 2, 0};
  const Outcome outcome =
      read_in_child(kbdata::testing::build_int32_file({dictionary, indexed}, 1, kGzip));
  EXPECT_EQ(outcome.error.rfind("FormatError: ", 0), 0u) << outcome.error;
  expect_small_growth(outcome);
}

}  // namespace
}  // namespace kbdata::hostile
