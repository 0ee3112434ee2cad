#include "pairs/diff.h"

#include <algorithm>
#include <cstdint>
#include <dtl/dtl.hpp>
#include <unordered_map>
#include <vector>

#include "source/cpp_regions.h"
#include "source/embedded.h"
#include "source/python_regions.h"

namespace kbdata::pairs {
namespace {

constexpr size_t kContext = 3;

// The lines of `text`, each with its '\n' (the last one may have none).
std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    const size_t nl = text.find('\n', start);
    const size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
    lines.push_back(text.substr(start, end - start));
    start = end;
  }
  return lines;
}

enum class Edit : uint8_t { COMMON, DELETE, ADD };

// One step of the edit script: a line of `before` kept or deleted, or a line of `after` added.
struct Step {
  Edit edit;
  uint32_t line;  // index into before's lines (COMMON, DELETE) or after's (ADD)
};

// The edit script of the middle lines a[0, n) -> b[0, m) appended to `steps` (line indices offset
// by `from`).
void middle_script(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b,
                   size_t from, size_t n, size_t m, std::vector<Step>& steps) {
  if (static_cast<double>(n) * static_cast<double>(m) > kMaxDiffCells) {
    for (size_t i = 0; i < n; ++i) steps.push_back({Edit::DELETE, static_cast<uint32_t>(from + i)});
    for (size_t j = 0; j < m; ++j) steps.push_back({Edit::ADD, static_cast<uint32_t>(from + j)});
    return;
  }
  // Lines as numbers: equal lines get equal numbers, so the algorithm compares integers.
  std::unordered_map<std::string_view, int> ids;
  std::vector<int> x(n), y(m);
  for (size_t i = 0; i < n; ++i) {
    x[i] = ids.try_emplace(a[from + i], static_cast<int>(ids.size())).first->second;
  }
  for (size_t j = 0; j < m; ++j) {
    y[j] = ids.try_emplace(b[from + j], static_cast<int>(ids.size())).first->second;
  }
  dtl::Diff<int, std::vector<int>> diff(x, y);
  diff.compose();
  size_t i = from, j = from;
  for (const auto& [value, info] : diff.getSes().getSequence()) {
    if (info.type == dtl::SES_COMMON) {
      steps.push_back({Edit::COMMON, static_cast<uint32_t>(i++)});
      ++j;
    } else if (info.type == dtl::SES_DELETE) {
      steps.push_back({Edit::DELETE, static_cast<uint32_t>(i++)});
    } else {
      steps.push_back({Edit::ADD, static_cast<uint32_t>(j++)});
    }
  }
}

// Every run of changes between two kept lines as its deletions, then its additions.
void deletions_first(std::vector<Step>& steps) {
  size_t k = 0;
  while (k < steps.size()) {
    if (steps[k].edit == Edit::COMMON) {
      ++k;
      continue;
    }
    size_t end = k;
    while (end < steps.size() && steps[end].edit != Edit::COMMON) ++end;
    std::stable_partition(steps.begin() + static_cast<std::ptrdiff_t>(k),
                          steps.begin() + static_cast<std::ptrdiff_t>(end),
                          [](const Step& s) { return s.edit == Edit::DELETE; });
    k = end;
  }
}

std::string range_text(size_t start, size_t count) {
  return count == 1 ? std::to_string(start) : std::to_string(start) + "," + std::to_string(count);
}

void append_line(std::string& out, char mark, std::string_view line) {
  out += mark;
  out += line;
  if (line.empty() || line.back() != '\n') out += "\n\\ No newline at end of file\n";
}

std::string header_name(std::string_view name) {
  if (name.empty()) return "submission";
  std::string out(name);
  for (char& c : out) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '/' || c == '\\' || c == ' ' || u < 0x20 || u == 0x7f) c = '_';
  }
  return out;
}

// `text` without the byte ranges [begin, end) of `cut` (in order, not overlapping).
void append_without(std::string& out, std::string_view text,
                    const std::vector<std::pair<uint32_t, uint32_t>>& cut) {
  size_t at = 0;
  for (const auto& [begin, end] : cut) {
    out.append(text.substr(at, begin - at));
    at = end;
  }
  out.append(text.substr(at));
}

std::vector<std::pair<uint32_t, uint32_t>> cpp_comments(std::string_view text, uint32_t offset) {
  std::vector<std::pair<uint32_t, uint32_t>> cut;
  for (const source::CppRegion& r : source::scan_cpp(text).regions) {
    if (r.region.comment) cut.emplace_back(offset + r.region.begin, offset + r.region.end);
  }
  return cut;
}

}  // namespace

std::string unified_diff(std::string_view before, std::string_view after, std::string_view name) {
  if (before == after) return "";
  const std::vector<std::string_view> a = split_lines(before);
  const std::vector<std::string_view> b = split_lines(after);
  size_t prefix = 0;
  while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix]) ++prefix;
  size_t suffix = 0;
  while (suffix < a.size() - prefix && suffix < b.size() - prefix &&
         a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix]) {
    ++suffix;
  }
  std::vector<Step> steps;
  for (size_t i = 0; i < prefix; ++i) steps.push_back({Edit::COMMON, static_cast<uint32_t>(i)});
  middle_script(a, b, prefix, a.size() - prefix - suffix, b.size() - prefix - suffix, steps);
  for (size_t i = a.size() - suffix; i < a.size(); ++i) {
    steps.push_back({Edit::COMMON, static_cast<uint32_t>(i)});
  }
  deletions_first(steps);

  const std::string file = header_name(name);
  std::string out = "--- a/" + file + "\n+++ b/" + file + "\n";
  // Lines of each side before step k, to number the hunks.
  size_t a_before = 0, b_before = 0, k = 0;
  auto advance = [&](size_t to) {
    for (; k < to; ++k) {
      if (steps[k].edit != Edit::ADD) ++a_before;
      if (steps[k].edit != Edit::DELETE) ++b_before;
    }
  };
  size_t next = 0;  // the first step not yet in a hunk
  while (true) {
    size_t first = next;
    while (first < steps.size() && steps[first].edit == Edit::COMMON) ++first;
    if (first == steps.size()) break;
    // The hunk's last change: runs of changes join while at most 2 x kContext kept lines part them.
    size_t last = first;
    for (size_t s = first + 1; s < steps.size(); ++s) {
      if (steps[s].edit == Edit::COMMON) {
        if (s - last > 2 * kContext) break;
      } else {
        last = s;
      }
    }
    const size_t begin = std::max(next, first >= kContext ? first - kContext : 0);
    const size_t end = std::min(steps.size(), last + 1 + kContext);
    advance(begin);
    size_t a_count = 0, b_count = 0;
    for (size_t s = begin; s < end; ++s) {
      if (steps[s].edit != Edit::ADD) ++a_count;
      if (steps[s].edit != Edit::DELETE) ++b_count;
    }
    out += "@@ -" + range_text(a_count == 0 ? a_before : a_before + 1, a_count) + " +" +
           range_text(b_count == 0 ? b_before : b_before + 1, b_count) + " @@\n";
    for (size_t s = begin; s < end; ++s) {
      const Step& step = steps[s];
      switch (step.edit) {
        case Edit::COMMON:
          append_line(out, ' ', a[step.line]);
          break;
        case Edit::DELETE:
          append_line(out, '-', a[step.line]);
          break;
        case Edit::ADD:
          append_line(out, '+', b[step.line]);
          break;
      }
    }
    next = end;
  }
  return out;
}

std::string normalised_code(std::string_view code, std::string_view file_name) {
  std::vector<std::pair<uint32_t, uint32_t>> cut;
  if (source::is_cpp_source(code, file_name)) {
    cut = cpp_comments(code, 0);
  } else {
    for (const source::Region& r : source::python_regions(code)) {
      if (r.comment) {
        cut.emplace_back(r.begin, r.end);
        continue;
      }
      const std::string_view body = code.substr(r.body_begin, r.body_end - r.body_begin);
      if (!source::reads_as_cpp(body)) continue;
      for (const auto& range : cpp_comments(body, r.body_begin)) cut.push_back(range);
    }
  }
  std::string text;
  append_without(text, code, cut);

  std::string out;
  out.reserve(text.size());
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    size_t last = end;
    while (last > start &&
           (text[last - 1] == ' ' || text[last - 1] == '\t' || text[last - 1] == '\r')) {
      --last;
    }
    if (last > start) {
      out.append(text, start, last - start);
      out += '\n';
    }
    start = end + 1;
  }
  return out;
}

}  // namespace kbdata::pairs
