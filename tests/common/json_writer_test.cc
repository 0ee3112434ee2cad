// common/json_writer.h: the three styles, every value, nesting and empty containers; the
// INDENTED style held to nlohmann::json's dump(2) (what `kbdata inspect --json` printed before it
// moved onto the writer) and every style parsed back by nlohmann::json.
#include "common/json_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

namespace {

using kbdata::JsonWriter;

// The same document in any style: every kind of value, nested, with empty containers.
std::string document(JsonWriter::Style style) {
  JsonWriter j(style);
  j.begin_object();
  j.member("text", "a \"quoted\"\n\x01 line");
  j.member("int", int64_t{-42});
  j.member("count", uint64_t{18446744073709551615u});
  j.member("small", 3);
  j.member("double", 0.25);
  j.member("yes", true);
  j.key("nothing").null();
  j.key("list").begin_array().number(1).string("two").begin_object().end_object().end_array();
  j.key("empty_list").begin_array().end_array();
  j.key("object").begin_object().member("inner", false).key("deeper").begin_array();
  j.begin_object().member("x", 1).end_object().end_array().end_object();
  j.key("raw").raw("[1,2]");
  j.end_object();
  return j.take();
}

TEST(JsonWriter, CompactHasNoSpaces) {
  EXPECT_EQ(document(JsonWriter::Style::COMPACT),
            "{\"text\":\"a \\\"quoted\\\"\\n\\u0001 line\",\"int\":-42,\"count\":"
            "18446744073709551615,\"small\":3,\"double\":0.25,\"yes\":true,\"nothing\":null,"
            "\"list\":[1,\"two\",{}],\"empty_list\":[],\"object\":{\"inner\":false,\"deeper\":"
            "[{\"x\":1}]},\"raw\":[1,2]}");
}

TEST(JsonWriter, SpacedIsHowPostgresqlPrintsJsonb) {
  EXPECT_EQ(document(JsonWriter::Style::SPACED),
            "{\"text\": \"a \\\"quoted\\\"\\n\\u0001 line\", \"int\": -42, \"count\": "
            "18446744073709551615, \"small\": 3, \"double\": 0.25, \"yes\": true, \"nothing\": "
            "null, \"list\": [1, \"two\", {}], \"empty_list\": [], \"object\": {\"inner\": "
            "false, \"deeper\": [{\"x\": 1}]}, \"raw\": [1,2]}");
}

TEST(JsonWriter, IndentedIsNlohmannsDumpOfTwo) {
  nlohmann::ordered_json expected =
      nlohmann::ordered_json::parse(document(JsonWriter::Style::COMPACT));
  // raw() is copied as it is: the one member whose spacing the writer does not decide.
  std::string dumped = expected.dump(2);
  const std::string raw = "\"raw\": [\n    1,\n    2\n  ]";
  dumped.replace(dumped.find(raw), raw.size(), "\"raw\": [1,2]");
  EXPECT_EQ(document(JsonWriter::Style::INDENTED), dumped);
}

TEST(JsonWriter, EveryStyleParsesBackToTheSameValue) {
  const nlohmann::json compact = nlohmann::json::parse(document(JsonWriter::Style::COMPACT));
  EXPECT_EQ(nlohmann::json::parse(document(JsonWriter::Style::SPACED)), compact);
  EXPECT_EQ(nlohmann::json::parse(document(JsonWriter::Style::INDENTED)), compact);
  EXPECT_EQ(compact["text"], "a \"quoted\"\n\x01 line");
}

TEST(JsonWriter, InvalidUtf8IsRepairedAndNonFiniteNumbersAreStrings) {
  JsonWriter j;
  j.begin_array();
  j.string(
      std::string("a\xff"
                  "b"));
  j.number(std::numeric_limits<double>::quiet_NaN());
  j.number(-std::numeric_limits<double>::infinity());
  j.end_array();
  EXPECT_EQ(j.text(),
            "[\"a\xEF\xBF\xBD"
            "b\",\"NaN\",\"-Infinity\"]");
}

TEST(JsonWriter, AWholeDocumentMayBeOneValue) {
  JsonWriter j(JsonWriter::Style::INDENTED);
  j.string("alone");
  EXPECT_EQ(j.text(), "\"alone\"");
  JsonWriter empty(JsonWriter::Style::INDENTED);
  empty.begin_object().end_object();
  EXPECT_EQ(empty.text(), "{}");
}

TEST(JsonWriter, ClosingWhatIsNotOpenIsAProgrammingError) {
  JsonWriter j;
  EXPECT_THROW(j.end_object(), std::logic_error);
  j.begin_object().key("k");
  EXPECT_THROW(j.end_object(), std::logic_error);
}

}  // namespace
