#include "common/json_writer.h"

#include <stdexcept>

#include "common/text.h"

namespace kbdata {

void JsonWriter::newline(size_t depth) {
  text_ += '\n';
  text_.append(2 * depth, ' ');
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (empty_.empty()) return;  // the document's one value
  if (!empty_.back()) text_ += style_ == Style::SPACED ? ", " : ",";
  empty_.back() = false;
  if (style_ == Style::INDENTED) newline(empty_.size());
}

void JsonWriter::open(char bracket) {
  before_value();
  text_ += bracket;
  empty_.push_back(true);
}

void JsonWriter::close(char bracket) {
  if (empty_.empty() || after_key_) throw std::logic_error("JsonWriter: nothing to close");
  const bool empty = empty_.back();
  empty_.pop_back();
  if (style_ == Style::INDENTED && !empty) newline(empty_.size());
  text_ += bracket;
}

JsonWriter& JsonWriter::begin_object() {
  open('{');
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  close('}');
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  open('[');
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  close(']');
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view name) {
  string(name);
  text_ += style_ == Style::COMPACT ? ":" : ": ";
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::string(std::string_view text) {
  before_value();
  append_json_text(text_, text);
  return *this;
}

JsonWriter& JsonWriter::number(int64_t value) {
  before_value();
  text_ += std::to_string(value);
  return *this;
}

JsonWriter& JsonWriter::number(uint64_t value) {
  before_value();
  text_ += std::to_string(value);
  return *this;
}

JsonWriter& JsonWriter::number(double value) {
  before_value();
  append_json_double(text_, value);
  return *this;
}

JsonWriter& JsonWriter::boolean(bool value) {
  before_value();
  text_ += value ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::null() {
  before_value();
  text_ += "null";
  return *this;
}

JsonWriter& JsonWriter::raw(std::string_view json) {
  before_value();
  text_ += json;
  return *this;
}

}  // namespace kbdata
