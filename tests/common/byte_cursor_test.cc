#include "common/byte_cursor.h"

#include <gtest/gtest.h>

#include <vector>

namespace kbdata {
namespace {

TEST(ByteCursor, ReadsLittleEndianAndVarints) {
  std::vector<uint8_t> bytes = {0x01, 0x02, 0x03, 0x04, 0xAC, 0x02, 0x7F};
  ByteCursor cursor(bytes, 100);
  EXPECT_EQ(cursor.read_le<uint32_t>("u32"), 0x04030201u);
  EXPECT_EQ(cursor.read_uleb128("varint"), 300u);
  EXPECT_EQ(cursor.file_offset(), 106);
  EXPECT_EQ(cursor.read_u8("byte"), 0x7F);
  EXPECT_TRUE(cursor.at_end());
}

TEST(ByteCursor, OverrunThrowsTruncatedErrorWithOffset) {
  std::vector<uint8_t> bytes = {0x01, 0x02};
  ByteCursor cursor(bytes, 40);
  cursor.read_u8("first");
  try {
    cursor.read_le<uint32_t>("a length");
    FAIL() << "expected an error";
  } catch (const TruncatedError& e) {
    EXPECT_EQ(e.location().byte_offset, 41);
    EXPECT_NE(std::string(e.what()).find("a length"), std::string::npos);
  }
}

TEST(ByteCursor, OverlongVarintIsFormatError) {
  std::vector<uint8_t> bytes(11, 0x80);
  ByteCursor cursor(bytes);
  EXPECT_THROW(cursor.read_uleb128("v"), FormatError);
}

TEST(ByteCursor, ReadBytesBorrowsAndBoundsChecks) {
  std::vector<uint8_t> bytes = {1, 2, 3};
  ByteCursor cursor(bytes);
  auto span = cursor.read_bytes(2, "two");
  EXPECT_EQ(span.data(), bytes.data());
  EXPECT_THROW(cursor.read_bytes(2, "too many"), TruncatedError);
  EXPECT_EQ(cursor.remaining(), 1u);  // a failed read consumes nothing
}

TEST(Error, LocationRendersKnownPartsAndKeepsInnermost) {
  FormatError error("bad run");
  error.locate_offset(4711);
  error.locate_column("score");
  error.locate_row_group(2);
  error.locate_file("data.parquet");
  error.locate_offset(1);  // an outer layer must not overwrite the precise offset
  EXPECT_STREQ(error.what(), "data.parquet: row group 2, column 'score', byte 4711: bad run");
  EXPECT_STREQ(FormatError("plain").what(), "plain");
}

}  // namespace
}  // namespace kbdata
