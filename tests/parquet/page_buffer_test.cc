// PageBuffer: storage handed from reader to reader on one thread, per use, with room for pages a
// little larger than the last, kept while small pages come, and bytes kept on a window's growth.
#include <gtest/gtest.h>

#include <cstring>
#include <thread>

#include "parquet/page_reader.h"

namespace kbdata::parquet {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

// Each test runs on a thread of its own, so that no spare is left from another test.
template <typename F>
void on_fresh_thread(F f) {
  std::thread t(f);
  t.join();
}

TEST(PageBuffer, TheNextReaderOnTheThreadTakesTheStorageOfTheLast) {
  on_fresh_thread([] {
    const uint8_t* first = nullptr;
    {
      PageBuffer a;
      first = a.reset(100 * kMiB).data();
    }
    PageBuffer b;
    // A page a little larger fits the room the first one was given (DuckDB's pages of code vary
    // by a few KB around 100 MB).
    EXPECT_EQ(b.reset(100 * kMiB + 5000).data(), first);
  });
}

TEST(PageBuffer, SmallPagesBetweenLargeOnesLeaveTheSpareInPlace) {
  on_fresh_thread([] {
    const uint8_t* large = nullptr;
    {
      PageBuffer a;
      large = a.reset(80 * kMiB).data();
    }
    {
      PageBuffer small;
      EXPECT_NE(small.reset(4096).data(), large);  // too large to serve it: not taken
    }
    PageBuffer again;
    EXPECT_EQ(again.reset(80 * kMiB).data(), large);
  });
}

TEST(PageBuffer, WindowsAndPagesHaveSparesOfTheirOwn) {
  on_fresh_thread([] {
    const uint8_t* page = nullptr;
    {
      PageBuffer a;
      page = a.reset(8 * kMiB).data();
    }
    PageBuffer window(PageBuffer::Use::WINDOW);
    EXPECT_NE(window.reset(8 * kMiB).data(), page);
    PageBuffer b;
    EXPECT_EQ(b.reset(8 * kMiB).data(), page);
  });
}

TEST(PageBuffer, GrowingKeepsTheBytesAsked) {
  on_fresh_thread([] {
    PageBuffer w(PageBuffer::Use::WINDOW);
    std::span<uint8_t> bytes = w.reset(1000);
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i % 251);
    // Grown: bytes [600, 1000) come first.
    bytes = w.reset_keeping(3 * kMiB, 600, 400);
    ASSERT_GE(w.capacity(), 3 * kMiB);
    for (size_t i = 0; i < 400; ++i) ASSERT_EQ(bytes[i], static_cast<uint8_t>((600 + i) % 251));
    // Within the capacity: moved to the front in place.
    const uint8_t* at = bytes.data();
    bytes = w.reset_keeping(2 * kMiB, 100, 300);
    EXPECT_EQ(bytes.data(), at);
    for (size_t i = 0; i < 300; ++i) ASSERT_EQ(bytes[i], static_cast<uint8_t>((700 + i) % 251));
  });
}

}  // namespace
}  // namespace kbdata::parquet
