#include "common/text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

namespace kbdata {
namespace {

std::string base64(std::string_view bytes) {
  std::string out;
  append_base64(out, {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
  return out;
}

std::string repaired(std::string_view bytes) {
  std::string out;
  append_utf8_repaired(out, bytes);
  return out;
}

std::string json(std::string_view utf8) {
  std::string out;
  append_json_string(out, utf8);
  return out;
}

std::string shortest(float value) {
  std::string out;
  append_float(out, value);
  return out;
}

std::string shortest(double value) {
  std::string out;
  append_double(out, value);
  return out;
}

const std::string kFffd = "\xEF\xBF\xBD";

TEST(Base64, Rfc4648Vectors) {
  EXPECT_EQ(base64(""), "");
  EXPECT_EQ(base64("f"), "Zg==");
  EXPECT_EQ(base64("fo"), "Zm8=");
  EXPECT_EQ(base64("foo"), "Zm9v");
  EXPECT_EQ(base64("foob"), "Zm9vYg==");
  EXPECT_EQ(base64("fooba"), "Zm9vYmE=");
  EXPECT_EQ(base64("foobar"), "Zm9vYmFy");
}

TEST(Base64, UsesStandardAlphabetForHighValues) {
  EXPECT_EQ(base64("\xFB\xFF"), "+/8=");
  EXPECT_EQ(base64(std::string("\x00\x00\x00", 3)), "AAAA");
  EXPECT_EQ(base64("\xFF\xFF\xFF"), "////");
}

TEST(Base64, Appends) {
  std::string out = "x:";
  const uint8_t bytes[] = {1, 2, 3, 4};
  append_base64(out, bytes);
  EXPECT_EQ(out, "x:AQIDBA==");
}

TEST(Utf8, AcceptsWellFormedText) {
  EXPECT_TRUE(is_valid_utf8(""));
  EXPECT_TRUE(is_valid_utf8("plain ascii text longer than eight bytes"));
  EXPECT_TRUE(is_valid_utf8("h\xC3\xA9llo"));      // é
  EXPECT_TRUE(is_valid_utf8("\xE2\x82\xAC"));      // €
  EXPECT_TRUE(is_valid_utf8("\xF0\x9D\x84\x9E"));  // U+1D11E
  EXPECT_TRUE(is_valid_utf8("\xF4\x8F\xBF\xBF"));  // U+10FFFF
  EXPECT_TRUE(is_valid_utf8("\xED\x9F\xBF"));      // U+D7FF, just below the surrogates
  EXPECT_TRUE(is_valid_utf8("\xEE\x80\x80"));      // U+E000, just above them
  EXPECT_TRUE(is_valid_utf8(std::string("a\0b", 3)));
}

TEST(Utf8, RejectsIllFormedText) {
  EXPECT_FALSE(is_valid_utf8("\x80"));              // lone continuation byte
  EXPECT_FALSE(is_valid_utf8("\xC0\x80"));          // overlong NUL
  EXPECT_FALSE(is_valid_utf8("\xC1\xBF"));          // overlong
  EXPECT_FALSE(is_valid_utf8("\xE0\x80\x80"));      // overlong
  EXPECT_FALSE(is_valid_utf8("\xE0\x9F\xBF"));      // overlong
  EXPECT_FALSE(is_valid_utf8("\xF0\x8F\xBF\xBF"));  // overlong
  EXPECT_FALSE(is_valid_utf8("\xED\xA0\x80"));      // surrogate U+D800
  EXPECT_FALSE(is_valid_utf8("\xED\xBF\xBF"));      // surrogate U+DFFF
  EXPECT_FALSE(is_valid_utf8("\xF4\x90\x80\x80"));  // U+110000
  EXPECT_FALSE(is_valid_utf8("\xF5\x80\x80\x80"));
  EXPECT_FALSE(is_valid_utf8("\xFF"));
  EXPECT_FALSE(is_valid_utf8("\xE2\x82"));              // truncated
  EXPECT_FALSE(is_valid_utf8("0123456789abcdef\xC3"));  // truncated after the ASCII fast path
}

TEST(Utf8, CopiesWellFormedTextUnchanged) {
  const std::string text = "abc \xC3\xA9 \xE2\x82\xAC \xF0\x9D\x84\x9E and more ascii";
  EXPECT_EQ(repaired(text), text);
  EXPECT_EQ(repaired(""), "");
}

TEST(Utf8, ReplacesMaximalSubpartsAsInUnicodeTable3_8) {
  // The example of Unicode 15, Table 3-8 (U+FFFD for maximal subparts).
  EXPECT_EQ(repaired("\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64"),
            "a" + kFffd + kFffd + kFffd + "b" + kFffd + "c" + kFffd + kFffd + "d");
}

TEST(Utf8, ReplacesEachByteOfOverlongsSurrogatesAndOutOfRange) {
  // The second byte is out of range for these lead bytes, so each byte is its own subpart.
  EXPECT_EQ(repaired("\xC0\x80"), kFffd + kFffd);
  EXPECT_EQ(repaired("\xE0\x80\x80"), kFffd + kFffd + kFffd);
  EXPECT_EQ(repaired("\xED\xA0\x80"), kFffd + kFffd + kFffd);
  EXPECT_EQ(repaired("\xF4\x90\x80\x80"), kFffd + kFffd + kFffd + kFffd);
  EXPECT_EQ(repaired("\xF8\x88\x80\x80\x80"), kFffd + kFffd + kFffd + kFffd + kFffd);
}

TEST(Utf8, ReplacesTruncatedSequencesOnce) {
  EXPECT_EQ(repaired("\xE2\x82"), kFffd);
  EXPECT_EQ(repaired("\xF0\x9F\x98x"), kFffd + "x");
  EXPECT_EQ(repaired("ab\xF0\x9F\x98"), "ab" + kFffd);
  EXPECT_EQ(repaired("\xC3\xC3\xA9"), kFffd + "\xC3\xA9");
}

TEST(Utf8, RepairsAcrossTheAsciiFastPath) {
  EXPECT_EQ(repaired("0123456789\xFF"
                     "0123456789abcdef\x80xyz"),
            "0123456789" + kFffd + "0123456789abcdef" + kFffd + "xyz");
}

TEST(Utf8, RepairedOutputIsValid) {
  std::string bytes;
  for (int i = 0; i < 256; ++i) {
    bytes.push_back(static_cast<char>(i));
    bytes.push_back(static_cast<char>(255 - i));
    bytes.push_back(static_cast<char>((i * 7) & 255));
  }
  EXPECT_FALSE(is_valid_utf8(bytes));
  EXPECT_TRUE(is_valid_utf8(repaired(bytes)));
}

TEST(Utf8, CountsCodePoints) {
  EXPECT_EQ(utf8_length(""), 0u);
  EXPECT_EQ(utf8_length("abc"), 3u);
  EXPECT_EQ(utf8_length("h\xC3\xA9llo \xE2\x82\xAC\xF0\x9D\x84\x9E"), 8u);
}

TEST(JsonString, QuotesPlainText) {
  EXPECT_EQ(json(""), "\"\"");
  EXPECT_EQ(json("hello"), "\"hello\"");
  EXPECT_EQ(json("h\xC3\xA9llo / \xE2\x82\xAC"), "\"h\xC3\xA9llo / \xE2\x82\xAC\"");
}

TEST(JsonString, EscapesQuotesAndBackslashes) { EXPECT_EQ(json("a\"b\\c"), R"("a\"b\\c")"); }

TEST(JsonString, EscapesControlCharacters) {
  EXPECT_EQ(json("\b\f\n\r\t"), R"("\b\f\n\r\t")");
  EXPECT_EQ(json(std::string("\x00\x01\x1f", 3)), R"("\u0000\u0001\u001f")");
  EXPECT_EQ(json("\x0b\x1b"), R"("\u000b\u001b")");
  EXPECT_EQ(json("\x7f"), "\"\x7f\"");  // DEL needs no escape in JSON
  EXPECT_EQ(json(" "), "\" \"");
}

TEST(JsonString, EscapesInsideLongRuns) {
  EXPECT_EQ(json("0123456789abcdef\"0123456789abcdef\n0123"),
            R"("0123456789abcdef\"0123456789abcdef\n0123")");
  EXPECT_EQ(json("01234567\\"), R"("01234567\\")");
  EXPECT_EQ(json("0123456\x1f"), R"("0123456\u001f")");
}

TEST(JsonString, EscapesEveryControlCharacter) {
  for (int c = 0; c < 0x20; ++c) {
    const std::string escaped = json(std::string(1, static_cast<char>(c)));
    EXPECT_EQ(escaped[0], '"');
    EXPECT_EQ(escaped[1], '\\');
    EXPECT_EQ(escaped.back(), '"');
  }
  for (int c = 0x20; c < 0x100; ++c) {
    if (c == '"' || c == '\\') continue;
    EXPECT_EQ(json(std::string(1, static_cast<char>(c))).size(), 3u) << c;
  }
}

// The escaper and the validator skip 8 bytes at a time: every byte value at every offset of a
// 24-byte string must come out as a byte-by-byte reference says.
TEST(JsonString, MatchesAReferenceAtEveryOffset) {
  const auto reference = [](std::string_view text) {
    std::string out = "\"";
    for (const char ch : text) {
      const auto byte = static_cast<uint8_t>(ch);
      if (ch == '"' || ch == '\\') {
        out += '\\';
        out += ch;
      } else if (byte < 0x20) {
        char escape[8];
        std::snprintf(escape, sizeof(escape), "\\u%04x", byte);
        const std::string named = ch == '\b'   ? "\\b"
                                  : ch == '\f' ? "\\f"
                                  : ch == '\n' ? "\\n"
                                  : ch == '\r' ? "\\r"
                                  : ch == '\t' ? "\\t"
                                               : escape;
        out += named;
      } else {
        out += ch;
      }
    }
    return out + "\"";
  };
  for (int byte = 0; byte < 256; ++byte) {
    for (size_t offset = 0; offset < 24; ++offset) {
      std::string text(24, 'a');
      text[offset] = static_cast<char>(byte);
      ASSERT_EQ(json(text), reference(text)) << byte << " at " << offset;
      const bool valid = byte < 0x80;
      ASSERT_EQ(is_valid_utf8(text), valid) << byte << " at " << offset;
      ASSERT_EQ(repaired(text),
                valid ? text : text.substr(0, offset) + kFffd + text.substr(offset + 1))
          << byte << " at " << offset;
    }
  }
}

TEST(FloatText, FloatUsesShortestRoundTripForm) {
  EXPECT_EQ(shortest(4.6f), "4.6");
  EXPECT_EQ(shortest(0.1f), "0.1");
  EXPECT_EQ(shortest(1.0f), "1");
  EXPECT_EQ(shortest(-2.5f), "-2.5");
  EXPECT_EQ(shortest(-0.0f), "-0");
  EXPECT_EQ(shortest(std::numeric_limits<float>::max()), "3.4028235e+38");
  EXPECT_EQ(shortest(std::numeric_limits<float>::denorm_min()), "1e-45");
  EXPECT_EQ(shortest(16777216.0f), "16777216");
}

TEST(FloatText, DoubleUsesShortestRoundTripForm) {
  EXPECT_EQ(shortest(0.1), "0.1");
  EXPECT_EQ(shortest(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(shortest(4.6), "4.6");
  EXPECT_EQ(shortest(1e20), "1e+20");
  EXPECT_EQ(shortest(123456.0), "123456");
  EXPECT_EQ(shortest(std::numeric_limits<double>::max()), "1.7976931348623157e+308");
  EXPECT_EQ(shortest(std::numeric_limits<double>::denorm_min()), "5e-324");
  EXPECT_EQ(shortest(-1e-7), "-1e-07");
}

TEST(FloatText, RoundTrips) {
  for (double value : {1.0 / 3, 2.0 / 3, 1e-300, 6.02214076e23, -123.456}) {
    EXPECT_EQ(std::stod(shortest(value)), value);
  }
  for (float value : {1.0f / 3, 2.0f / 3, 1e-30f, 6.02214076e23f, -123.456f}) {
    EXPECT_EQ(std::stof(shortest(value)), value);
  }
}

// RFC 3986, 2.3: only the unreserved characters stay as they are; every other byte, including
// '/', '%', space and bytes of UTF-8 or of no encoding, becomes %XX with upper-case digits.
TEST(PercentEncoding, KeepsOnlyUnreservedCharacters) {
  std::string out = "x=";
  append_percent_encoded(out, "AZaz09-._~");
  EXPECT_EQ(out, "x=AZaz09-._~");
  out.clear();
  append_percent_encoded(out, "a b/c?d#e%f&g+h");
  EXPECT_EQ(out, "a%20b%2Fc%3Fd%23e%25f%26g%2Bh");
  out.clear();
  append_percent_encoded(out, std::string_view("\xc3\xa9\xff\x00", 4));
  EXPECT_EQ(out, "%C3%A9%FF%00");
}

TEST(Grouped, ThousandsSeparatedByCommas) {
  EXPECT_EQ(grouped(0), "0");
  EXPECT_EQ(grouped(999), "999");
  EXPECT_EQ(grouped(1000), "1,000");
  EXPECT_EQ(grouped(1234567), "1,234,567");
  EXPECT_EQ(grouped(18446744073709551615ull), "18,446,744,073,709,551,615");
}

}  // namespace
}  // namespace kbdata

// One spelling of the numbers a decimal text cannot show, and JSON's: a string of it.
TEST(NonFiniteText, OneSpellingAndJsonAsAString) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_STREQ(kbdata::non_finite_text(nan), "NaN");
  EXPECT_STREQ(kbdata::non_finite_text(-nan), "NaN");
  EXPECT_STREQ(kbdata::non_finite_text(kInf), "Infinity");
  EXPECT_STREQ(kbdata::non_finite_text(-kInf), "-Infinity");
  std::string json;
  kbdata::append_json_double(json, 4.6);
  json += ',';
  kbdata::append_json_double(json, nan);
  json += ',';
  kbdata::append_json_double(json, -kInf);
  EXPECT_EQ(json, "4.6,\"NaN\",\"-Infinity\"");
}

// CSV's one rule: quoted when empty or holding a comma, a quote, CR or LF; quotes doubled.
TEST(CsvField, QuotedOnlyWhenNeeded) {
  for (const std::string_view plain : {"a", "naïve", "1.5e-05", " spaced "}) {
    EXPECT_FALSE(kbdata::csv_needs_quotes(plain)) << plain;
  }
  for (const std::string_view quoted : {"", "a,b", "say \"hi\"", "two\nlines", "cr\r"}) {
    EXPECT_TRUE(kbdata::csv_needs_quotes(quoted)) << quoted;
  }
  std::string out;
  kbdata::append_csv_quoted(out, "say \"hi\", twice");
  EXPECT_EQ(out, "\"say \"\"hi\"\", twice\"");
}

// A table's line, the one layout of kbdata cat's tables and the reports': two spaces apart,
// padded to the widths (numbers on the left), no trailing blanks; the rule under the header too.
TEST(TableLine, PaddedTwoSpacesApartWithoutTrailingBlanks) {
  const std::vector<std::string> cells = {"7", "naïve", ""};
  const std::vector<size_t> widths = {3, 6, 4};
  std::string out;
  kbdata::append_table_line(
      out, widths, {true, false, false}, [&](size_t c) { return std::string_view(cells[c]); },
      [&](size_t c) { return kbdata::utf8_length(cells[c]); });
  EXPECT_EQ(out, "  7  naïve\n");
  out.clear();
  kbdata::append_table_rule(out, widths);
  EXPECT_EQ(out, "---  ------  ----\n");
  out.clear();
  const std::vector<size_t> empty_last = {2, 0};
  kbdata::append_table_rule(out, empty_last);
  EXPECT_EQ(out, "--\n");
}
