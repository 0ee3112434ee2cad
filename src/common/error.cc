#include "common/error.h"

#include <fmt/format.h>

namespace kbdata {

std::string Location::str() const {
  std::string out = file;
  std::string rest;
  auto add = [&rest](const std::string& part) {
    if (!rest.empty()) rest += ", ";
    rest += part;
  };
  if (row_group) add(fmt::format("row group {}", *row_group));
  if (!column.empty()) add(fmt::format("column '{}'", column));
  if (byte_offset) add(fmt::format("byte {}", *byte_offset));
  if (!rest.empty()) {
    if (!out.empty()) out += ": ";
    out += rest;
  }
  return out;
}

Error& Error::locate_file(const std::string& file) {
  if (location_.file.empty()) location_.file = file;
  render();
  return *this;
}

Error& Error::locate_row_group(int row_group) {
  if (!location_.row_group) location_.row_group = row_group;
  render();
  return *this;
}

Error& Error::locate_column(const std::string& column) {
  if (location_.column.empty()) location_.column = column;
  render();
  return *this;
}

Error& Error::locate_offset(int64_t byte_offset) {
  if (!location_.byte_offset) location_.byte_offset = byte_offset;
  render();
  return *this;
}

std::string library_spelling(const OptionName& option) {
  return option.value ? option.name + " " + *option.value : option.name;
}

std::string Error::message_spelled(OptionSpelling spelling) const {
  if (texts_.empty()) return message_;
  std::string out = texts_.front();
  for (size_t i = 0; i < options_.size(); ++i) {
    out += spelling(options_[i]);
    out += texts_[i + 1];
  }
  return out;
}

std::string Error::spelled(OptionSpelling spelling) const {
  if (options_.empty()) return rendered_;
  const std::string where = location_.str();
  const std::string message = message_spelled(spelling);
  return where.empty() ? message : where + ": " + message;
}

void Error::render() {
  std::string where = location_.str();
  rendered_ = where.empty() ? message_ : where + ": " + message_;
}

}  // namespace kbdata
