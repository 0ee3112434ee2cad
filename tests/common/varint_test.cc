// common/varint.h against the tests' reference encoders (tests/support/compact_writer.h) and
// ByteCursor's reading.
#include "common/varint.h"

#include <gtest/gtest.h>

#include <limits>

#include "common/byte_cursor.h"
#include "support/compact_writer.h"

namespace kbdata {
namespace {

TEST(Varint, ZigzagMapsSmallMagnitudesToSmallNumbers) {
  EXPECT_EQ(zigzag_encode(0), 0u);
  EXPECT_EQ(zigzag_encode(-1), 1u);
  EXPECT_EQ(zigzag_encode(1), 2u);
  EXPECT_EQ(zigzag_encode(-2), 3u);
  for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{63}, int64_t{-64}, int64_t{1} << 40,
                    std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()}) {
    EXPECT_EQ(zigzag_encode(v), testing::zigzag_of(v)) << v;
    EXPECT_EQ(zigzag_decode(zigzag_encode(v)), v) << v;
  }
}

TEST(Varint, Uleb128MatchesTheReferenceAndReadsBack) {
  for (uint64_t v : {uint64_t{0}, uint64_t{1}, uint64_t{127}, uint64_t{128}, uint64_t{300},
                     uint64_t{1} << 35, std::numeric_limits<uint64_t>::max()}) {
    std::vector<uint8_t> ours;
    std::vector<uint8_t> reference;
    append_uleb128(ours, v);
    testing::put_uleb(reference, v);
    EXPECT_EQ(ours, reference) << v;
    ByteCursor cursor(ours);
    EXPECT_EQ(cursor.read_uleb128("value"), v);
    EXPECT_TRUE(cursor.at_end());
  }
}

}  // namespace
}  // namespace kbdata
