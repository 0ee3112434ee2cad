// The one writer of JSON documents (objects and arrays, nested), whoever writes one: a result
// table's document of several tables (report::JsonDocument), `kbdata inspect --json`, the
// payloads `kbdata synth --db` seeds into the platform's jsonb columns. One rule for each value,
// common/text.h's: strings as append_json_string after UTF-8 repair (invalid bytes as U+FFFD),
// doubles as append_json_double (the shortest text that reads back, NaN and infinities as
// non_finite_text's strings), integers in decimal, true / false / null. Only the white space
// differs, by Style:
//
//   COMPACT   {"a":1,"b":[1,2],"c":{}}                     kbdata's own documents
//   SPACED    {"a": 1, "b": [1, 2], "c": {}}               as PostgreSQL prints jsonb
//   INDENTED  {\n  "a": 1,\n  "b": [\n    1,\n    2\n  ],\n  "c": {}\n}   two spaces a level
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kbdata {

class JsonWriter {
 public:
  enum class Style { COMPACT, SPACED, INDENTED };

  explicit JsonWriter(Style style = Style::COMPACT) : style_(style) {}

  // Containers; end_object / end_array close the innermost one.
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  // The name of the next member of the innermost object.
  JsonWriter& key(std::string_view name);

  // Values: in an array, or after key().
  JsonWriter& string(std::string_view text);  // any bytes: invalid UTF-8 is repaired
  JsonWriter& number(int64_t value);
  JsonWriter& number(uint64_t value);
  JsonWriter& number(int value) { return number(static_cast<int64_t>(value)); }
  JsonWriter& number(double value);
  JsonWriter& boolean(bool value);
  JsonWriter& null();
  // `json`, a JSON value's text already made (a result table's rows), as it is.
  JsonWriter& raw(std::string_view json);

  // A member: key(name) and the value.
  template <typename T>
  JsonWriter& member(std::string_view name, const T& value) {
    key(name);
    return value_of(value);
  }

  // The text so far (a whole document once every container is closed).
  [[nodiscard]] const std::string& text() const { return text_; }
  [[nodiscard]] std::string take() { return std::move(text_); }

 private:
  JsonWriter& value_of(std::string_view v) { return string(v); }
  JsonWriter& value_of(const std::string& v) { return string(v); }
  JsonWriter& value_of(const char* v) { return string(v); }
  JsonWriter& value_of(bool v) { return boolean(v); }
  JsonWriter& value_of(int v) { return number(v); }
  JsonWriter& value_of(int64_t v) { return number(v); }
  JsonWriter& value_of(uint64_t v) { return number(v); }
  JsonWriter& value_of(double v) { return number(v); }

  void before_value();  // the separator and line break a value needs where it goes
  void open(char bracket);
  void close(char bracket);
  void newline(size_t depth);

  Style style_;
  std::string text_;
  std::vector<bool> empty_;  // per open container: nothing in it yet
  bool after_key_ = false;
};

}  // namespace kbdata
