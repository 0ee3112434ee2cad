#include "parquet/thrift/compact_reader.h"

#include <gtest/gtest.h>

#include <vector>

#include "common/error.h"
#include "support/compact_writer.h"

namespace kbdata::parquet::thrift {
namespace {

// Builds compact-protocol bytes by hand.
struct Bytes {
  std::vector<uint8_t> out;
  int16_t last = 0;
  std::vector<int16_t> stack;

  Bytes& varint(uint64_t v) {
    kbdata::testing::put_uleb(out, v);
    return *this;
  }
  Bytes& zigzag(int64_t v) { return varint(kbdata::testing::zigzag_of(v)); }
  Bytes& field(int16_t id, Type type) {
    int delta = id - last;
    if (delta > 0 && delta <= 15) {
      out.push_back(static_cast<uint8_t>(delta << 4 | static_cast<int>(type)));
    } else {
      out.push_back(static_cast<uint8_t>(type));
      zigzag(id);
    }
    last = id;
    return *this;
  }
  Bytes& begin() {
    stack.push_back(last);
    last = 0;
    return *this;
  }
  Bytes& stop() {
    out.push_back(0);
    last = stack.back();
    stack.pop_back();
    return *this;
  }
  Bytes& i32(int16_t id, int32_t v) { return field(id, Type::I32).zigzag(v); }
  Bytes& str(int16_t id, const std::string& s) {
    field(id, Type::BINARY).varint(s.size());
    out.insert(out.end(), s.begin(), s.end());
    return *this;
  }
};

TEST(CompactReader, ReadsFieldsWithDeltaAndLongIds) {
  Bytes b;
  b.begin().i32(1, -5).str(2, "name").i32(300, 7).field(4, Type::BOOL_TRUE).stop();
  ByteCursor cursor(b.out);
  CompactReader r(cursor);
  r.begin_struct();
  FieldHeader f;
  ASSERT_TRUE(r.next_field(f));
  EXPECT_EQ(f.id, 1);
  EXPECT_EQ(r.read_i32(f, "a"), -5);
  ASSERT_TRUE(r.next_field(f));
  EXPECT_EQ(r.read_string(f, "b"), "name");
  ASSERT_TRUE(r.next_field(f));
  EXPECT_EQ(f.id, 300);
  EXPECT_EQ(r.read_i32(f, "c"), 7);
  ASSERT_TRUE(r.next_field(f));
  EXPECT_EQ(f.id, 4);
  EXPECT_TRUE(r.read_bool(f, "d"));
  EXPECT_FALSE(r.next_field(f));
  r.end_struct();
  EXPECT_TRUE(cursor.at_end());
}

TEST(CompactReader, SkipsUnknownFieldsOfEveryType) {
  Bytes b;
  b.begin();
  b.field(1, Type::DOUBLE);
  for (int i = 0; i < 8; ++i) b.out.push_back(0);
  b.field(2, Type::LIST).out.push_back(0x35);  // 3 x i32
  b.zigzag(1).zigzag(2).zigzag(3);
  b.field(3, Type::MAP).varint(1).out.push_back(0x85);  // binary -> i32
  b.varint(1).out.push_back('k');
  b.zigzag(9);
  b.field(4, Type::STRUCT).begin().i32(1, 1).stop();
  b.field(5, Type::BYTE).out.push_back(7);
  b.i32(6, 42);
  b.stop();
  ByteCursor cursor(b.out);
  CompactReader r(cursor);
  r.begin_struct();
  FieldHeader f;
  int32_t found = 0;
  while (r.next_field(f)) {
    if (f.id == 6) {
      found = r.read_i32(f, "x");
    } else {
      r.skip(f.type);
    }
  }
  r.end_struct();
  EXPECT_EQ(found, 42);
  EXPECT_TRUE(cursor.at_end());
}

TEST(CompactReader, WrongWireTypeIsFormatError) {
  Bytes b;
  b.begin().str(1, "x").stop();
  ByteCursor cursor(b.out);
  CompactReader r(cursor);
  r.begin_struct();
  FieldHeader f;
  ASSERT_TRUE(r.next_field(f));
  EXPECT_THROW(r.read_i32(f, "num_rows"), FormatError);
}

TEST(CompactReader, DeepNestingIsRefused) {
  Bytes b;
  b.begin();
  for (int i = 0; i < 200; ++i) b.field(1, Type::STRUCT).begin();
  for (int i = 0; i < 200; ++i) b.stop();
  b.stop();
  ByteCursor cursor(b.out);
  CompactReader r(cursor);
  r.begin_struct();
  FieldHeader f;
  ASSERT_TRUE(r.next_field(f));
  try {
    r.skip(f.type);
    FAIL() << "expected an error";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("nested deeper"), std::string::npos);
  }
}

TEST(CompactReader, HugeListSizeIsRefusedBeforeAllocating) {
  Bytes b;
  b.begin().field(1, Type::LIST).out.push_back(0xF5);  // long form, i32 elements
  b.varint(1ull << 40);
  ByteCursor cursor(b.out);
  CompactReader r(cursor);
  r.begin_struct();
  FieldHeader f;
  ASSERT_TRUE(r.next_field(f));
  EXPECT_THROW(r.read_list(f, "encodings"), FormatError);
}

TEST(CompactReader, StringPastTheEndIsTruncation) {
  Bytes b;
  b.begin().field(1, Type::BINARY).varint(1000);
  b.out.push_back('a');
  ByteCursor cursor(b.out);
  CompactReader r(cursor);
  r.begin_struct();
  FieldHeader f;
  ASSERT_TRUE(r.next_field(f));
  EXPECT_THROW(r.read_string(f, "name"), TruncatedError);
}

TEST(CompactReader, EveryTruncationOfAValidStructThrowsCleanly) {
  Bytes b;
  b.begin().i32(1, 123456).str(2, "abcdef").field(3, Type::STRUCT).begin().i32(1, 5).stop().stop();
  for (size_t cut = 0; cut < b.out.size(); ++cut) {
    std::vector<uint8_t> part(b.out.begin(), b.out.begin() + static_cast<long>(cut));
    ByteCursor cursor(part);
    CompactReader r(cursor);
    EXPECT_THROW(
        {
          r.begin_struct();
          FieldHeader f;
          while (r.next_field(f)) r.skip(f.type);
          r.end_struct();
        },
        FormatError)
        << "cut at " << cut;
  }
}

}  // namespace
}  // namespace kbdata::parquet::thrift
