#include "cli/output.h"

#include <algorithm>

#include "common/error.h"

namespace kbdata::cli {
namespace {

size_t display_width(const std::string& text) {
  size_t points = 0;
  for (unsigned char c : text) {
    if ((c & 0xC0) != 0x80) ++points;
  }
  return points;
}

}  // namespace

void write_all(std::FILE* out, std::string_view text) {
  if (std::fwrite(text.data(), 1, text.size(), out) != text.size() || std::fflush(out) != 0) {
    IoError error("cannot write the output");
    error.locate_file(out == stdout ? "<stdout>" : "<output>");
    throw error;
  }
}

std::string format_table(const std::vector<std::vector<std::string>>& rows,
                         const std::vector<bool>& right_align) {
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], display_width(row[c]));
  }
  std::string out;
  auto emit = [&](const std::vector<std::string>& row) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      size_t pad = widths[c] - display_width(row[c]);
      bool right = c < right_align.size() && right_align[c];
      if (c) line += "  ";
      if (right) line.append(pad, ' ');
      line += row[c];
      if (!right) line.append(pad, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  };
  for (size_t r = 0; r < rows.size(); ++r) {
    emit(rows[r]);
    if (r == 0) {
      std::vector<std::string> dashes;
      for (size_t w : widths) dashes.push_back(std::string(w, '-'));
      emit(dashes);
    }
  }
  return out;
}

}  // namespace kbdata::cli
