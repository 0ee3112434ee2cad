#include "plot/svg_text.h"

#include <charconv>
#include <cmath>

#include "common/text.h"

namespace kbdata::plot::svg {

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
