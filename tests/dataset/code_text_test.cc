// Code decoding (docs/dataset.md §4.2): "\x" hex escapes, binary columns, invalid UTF-8, counts.
#include "dataset/code_text.h"

#include <gtest/gtest.h>

namespace kbdata::dataset {
namespace {

const std::string kReplacement = "\xEF\xBF\xBD";  // U+FFFD

TEST(CodeText, PlainTextIsKept) {
  CodeRepairCounts c;
  EXPECT_EQ(decode_code("print('hi')\n", false, c), "print('hi')\n");
  EXPECT_EQ(c.values, 1u);
  EXPECT_EQ(c.repaired, 0u);
  EXPECT_EQ(c.hex_decoded + c.hex_invalid + c.utf8_repaired + c.from_binary, 0u);
}

TEST(CodeText, LowerAndUpperCaseHexDecode) {
  CodeRepairCounts c;
  EXPECT_EQ(decode_code("\\x696d706f7274", false, c), "import");
  EXPECT_EQ(decode_code("\\x696D706F7274", false, c), "import");
  EXPECT_EQ(decode_code("\\x0A", false, c), "\n");
  EXPECT_EQ(c.hex_decoded, 3u);
  EXPECT_EQ(c.repaired, 3u);
  EXPECT_EQ(c.hex_invalid, 0u);
}

TEST(CodeText, InvalidHexIsKeptAsStored) {
  CodeRepairCounts c;
  EXPECT_EQ(decode_code("\\x123", false, c), "\\x123");    // odd length
  EXPECT_EQ(decode_code("\\x12zz", false, c), "\\x12zz");  // not hex
  EXPECT_EQ(decode_code("\\x", false, c), "\\x");          // no digits
  EXPECT_EQ(decode_code("\\xdef main():", false, c), "\\xdef main():");
  EXPECT_EQ(c.hex_invalid, 4u);
  EXPECT_EQ(c.hex_decoded, 0u);
  EXPECT_EQ(c.repaired, 0u);  // kept, not changed
}

TEST(CodeText, HexIsDecodedOnce) {
  CodeRepairCounts c;
  // "\x41" encoded as hex: 5c 78 34 31
  EXPECT_EQ(decode_code("\\x5c783431", false, c), "\\x41");
  EXPECT_EQ(c.hex_decoded, 1u);
}

TEST(CodeText, InvalidUtf8IsReplaced) {
  CodeRepairCounts c;
  EXPECT_EQ(decode_code(std::string("a\xFF"
                                    "b",
                                    3),
                        false, c),
            "a" + kReplacement + "b");
  EXPECT_EQ(c.utf8_repaired, 1u);
  EXPECT_EQ(c.repaired, 1u);
  // Truncated sequence at the end: one replacement for the maximal subpart.
  EXPECT_EQ(decode_code(std::string("x\xE2\x82", 3), false, c), "x" + kReplacement);
  EXPECT_EQ(c.utf8_repaired, 2u);
}

TEST(CodeText, HexDecodingToInvalidUtf8IsRepairedAndCountedOnce) {
  CodeRepairCounts c;
  EXPECT_EQ(decode_code("\\x61ff62", false, c), "a" + kReplacement + "b");
  EXPECT_EQ(c.hex_decoded, 1u);
  EXPECT_EQ(c.utf8_repaired, 1u);
  EXPECT_EQ(c.repaired, 1u);
}

TEST(CodeText, BinaryColumnIsDecodedAsUtf8) {
  CodeRepairCounts c;
  EXPECT_EQ(decode_code("caf\xC3\xA9", true, c), "caf\xC3\xA9");
  EXPECT_EQ(decode_code(std::string("\xC3", 1), true, c), kReplacement);
  EXPECT_EQ(decode_code("\\x6869", true, c), "hi");
  EXPECT_EQ(c.from_binary, 3u);
  EXPECT_EQ(c.utf8_repaired, 1u);
  EXPECT_EQ(c.hex_decoded, 1u);
  EXPECT_EQ(c.repaired, 2u);
  EXPECT_EQ(c.values, 3u);
}

TEST(CodeText, CountsAdd) {
  CodeRepairCounts a, b;
  (void)decode_code("\\x41", false, a);
  (void)decode_code("\\x4", true, b);
  a += b;
  EXPECT_EQ(a.values, 2u);
  EXPECT_EQ(a.hex_decoded, 1u);
  EXPECT_EQ(a.hex_invalid, 1u);
  EXPECT_EQ(a.from_binary, 1u);
  EXPECT_EQ(a.repaired, 1u);
}

// decoded_code_size() measures what decode_code() returns, and counts it the same way.
// Stored values of every kind: plain, hex (valid, invalid, odd), UTF-8 (valid, invalid, cut at
// the end of a long value).
const std::vector<std::string>& stored_values() {
  static const std::vector<std::string> values = {
      "",     "import torch\n", "\\x696d706f7274",    "\\x41",   "\\xZZ",
      "\\x4", "caf\xc3\xa9",    "bad \xff\xfe bytes", "\\xff41", std::string(100000, 'k') + "\xc3"};
  return values;
}

TEST(CodeText, DecodedSizeIsTheDecodedTextsSize) {
  for (bool binary : {false, true}) {
    for (const std::string& s : stored_values()) {
      CodeRepairCounts by_text, by_size;
      const std::string text = decode_code(s, binary, by_text);
      EXPECT_EQ(decoded_code_size(s, binary, by_size), text.size()) << s.substr(0, 20);
      EXPECT_EQ(by_size.values, by_text.values);
      EXPECT_EQ(by_size.from_binary, by_text.from_binary);
      EXPECT_EQ(by_size.hex_decoded, by_text.hex_decoded);
      EXPECT_EQ(by_size.hex_invalid, by_text.hex_invalid);
      EXPECT_EQ(by_size.utf8_repaired, by_text.utf8_repaired);
      EXPECT_EQ(by_size.repaired, by_text.repaired);

      // The same as one number (a scan's measure of the column), counted afterwards.
      CodeRepairCounts by_measure;
      const auto* bytes = reinterpret_cast<const uint8_t*>(s.data());
      const uint64_t measure = code_size_measure({bytes, s.size()});
      EXPECT_EQ(count_code_size_measure(measure, binary, by_measure), text.size());
      EXPECT_EQ(by_measure.values, by_text.values);
      EXPECT_EQ(by_measure.from_binary, by_text.from_binary);
      EXPECT_EQ(by_measure.hex_decoded, by_text.hex_decoded) << s.substr(0, 20);
      EXPECT_EQ(by_measure.hex_invalid, by_text.hex_invalid) << s.substr(0, 20);
      EXPECT_EQ(by_measure.utf8_repaired, by_text.utf8_repaired) << s.substr(0, 20);
      EXPECT_EQ(by_measure.repaired, by_text.repaired) << s.substr(0, 20);
    }
  }
}

// The view a prepare step gets: the stored bytes themselves when decoding changes nothing (no
// copy), else the decoded text in the scratch; the same text and counts as decode_code either way.
TEST(CodeText, TheViewIsTheStoredTextWhenDecodingChangesNothing) {
  for (bool binary : {false, true}) {
    for (const std::string& s : stored_values()) {
      CodeRepairCounts by_view, by_text;
      std::string scratch = "left over";
      const std::string_view view = decode_code_view(s, binary, by_view, scratch);
      EXPECT_EQ(std::string(view), decode_code(s, binary, by_text)) << s.substr(0, 20);
      const bool changed = by_text.repaired != 0;
      EXPECT_EQ(view.data() == s.data(), !changed) << s.substr(0, 20);
      if (changed) {
        EXPECT_EQ(view.data(), scratch.data()) << s.substr(0, 20);
      }
      EXPECT_EQ(by_view.values, by_text.values);
      EXPECT_EQ(by_view.hex_decoded, by_text.hex_decoded);
      EXPECT_EQ(by_view.hex_invalid, by_text.hex_invalid);
      EXPECT_EQ(by_view.utf8_repaired, by_text.utf8_repaired);
      EXPECT_EQ(by_view.repaired, by_text.repaired);
    }
  }
}

}  // namespace
}  // namespace kbdata::dataset
