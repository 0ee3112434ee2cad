#include "plot/svg_text.h"

#include <charconv>
#include <cmath>

#include "common/text.h"

namespace kbdata::plot::svg {

std::string sanitize_text(std::string_view text) {
  std::string utf8;
  append_utf8_repaired(utf8, text);
  std::string out;
  out.reserve(utf8.size());
  for (size_t i = 0; i < utf8.size(); ++i) {
    const auto byte = static_cast<unsigned char>(utf8[i]);
    if (byte < 0x20 && byte != '\t' && byte != '\n' && byte != '\r') {
      out += "\xEF\xBF\xBD";
    } else if (byte == 0xEF && i + 2 < utf8.size() && utf8[i + 1] == '\xBF' &&
               (utf8[i + 2] == '\xBE' || utf8[i + 2] == '\xBF')) {
      out += "\xEF\xBF\xBD";
      i += 2;
    } else {
      out += utf8[i];
    }
  }
  return out;
}

void append_escaped_sanitized(std::string& out, std::string_view sanitized) {
  for (char c : sanitized) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
}

void append_escaped(std::string& out, std::string_view text) {
  append_escaped_sanitized(out, sanitize_text(text));
}

void append_coord(std::string& out, double value) {
  char buffer[32];
  double rounded = std::round(value * 10) / 10;
  if (rounded == 0) {
    rounded = 0;  // no "-0"
  }
  auto result =
      std::to_chars(buffer, buffer + sizeof(buffer), rounded, std::chars_format::fixed, 1);
  std::string_view text(buffer, static_cast<size_t>(result.ptr - buffer));
  if (text.ends_with(".0")) {
    text.remove_suffix(2);
  }
  out += text;
}

void append_attr(std::string& out, std::string_view name, double value) {
  out += ' ';
  out += name;
  out += "=\"";
  append_coord(out, value);
  out += '"';
}

void append_text_open(std::string& out, std::string_view cls, double x, double y) {
  out += "<text class=\"";
  out += cls;
  out += '"';
  append_attr(out, "x", x);
  append_attr(out, "y", y);
}

}  // namespace kbdata::plot::svg
