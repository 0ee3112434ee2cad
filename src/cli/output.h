// Small helpers the commands share for writing to the terminal.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace kbdata::cli {

// Writes all of `text` to `out`; throws kbdata::IoError naming the stream on failure.
void write_all(std::FILE* out, std::string_view text);

// Aligns rows (the first is the header) into columns two spaces apart, with a dashed line under
// the header; columns flagged in `right_align` are right-aligned. Widths count code points.
[[nodiscard]] std::string format_table(const std::vector<std::vector<std::string>>& rows,
                                       const std::vector<bool>& right_align);

}  // namespace kbdata::cli
