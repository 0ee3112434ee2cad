#include "serve/html.h"

#include <algorithm>
#include <cstdlib>
#include <unordered_set>
#include <variant>
#include <vector>

#include "common/text.h"
#include "report/writer.h"
#include "source/embedded.h"
#include "source/tokens.h"

namespace kbdata::serve {
namespace {

constexpr std::string_view kStyle = R"css(
:root { color-scheme: light; --fg: #1d2430; --muted: #5b6473; --line: #dde2ea; --accent: #2f5fb3; }
body { font: 14px/1.45 system-ui, sans-serif; color: var(--fg); margin: 0; }
header { display: flex; gap: 1.5em; align-items: center; padding: .6em 1.2em;
         border-bottom: 1px solid var(--line); background: #f6f8fb; }
header a.home { font-weight: 600; color: var(--fg); text-decoration: none; }
header form { margin-left: auto; }
main { padding: 1em 1.2em; max-width: 1200px; }
a { color: var(--accent); }
h1 { font-size: 1.4em; margin: .2em 0 .6em; }
h2 { font-size: 1.1em; margin: 1.4em 0 .5em; }
table { border-collapse: collapse; margin: .4em 0 1em; }
th, td { border-bottom: 1px solid var(--line); padding: .25em .7em; text-align: left;
         vertical-align: top; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.note { color: #8a4b00; background: #fff6e6; padding: .3em .6em; border-radius: 4px; }
.notice { color: #7a1010; background: #fdeaea; padding: .4em .6em; border-radius: 4px; }
.muted { color: var(--muted); }
.verdict-cheat { color: #b00020; font-weight: 600; }
.error { color: #b00020; }
tr.placed-row { background: #fff4d6; font-weight: 600; }
form.place input { width: 8em; }
.verdict-suspicious { color: #9a6700; font-weight: 600; }
.verdict-clean { color: #1a7f37; }
figure.chart svg { max-width: 100%; height: auto; }
pre.code { background: #f6f8fb; border: 1px solid var(--line); padding: .8em; overflow: auto;
           font: 12.5px/1.4 ui-monospace, monospace; }
.tok-keyword { color: #8959a8; font-weight: 600; }
.tok-string { color: #718c00; }
.tok-comment { color: #8e908c; font-style: italic; }
.tok-number { color: #f5871f; }
table.diff { font: 12.5px/1.35 ui-monospace, monospace; width: 100%; }
table.diff td { border: 0; padding: 0 .5em; white-space: pre-wrap; }
table.diff td.ln { color: var(--muted); text-align: right; user-select: none; width: 3em; }
table.diff tr.add { background: #e6ffec; }
table.diff tr.del { background: #ffebe9; }
table.diff tr.hunk { background: #ddf4ff; color: var(--muted); }
table.diff.split td.del { background: #ffebe9; }
table.diff.split td.add { background: #e6ffec; }
table.diff.split td.ctx, table.diff.split td.empty { width: 50%; }
dl.meta { display: grid; grid-template-columns: max-content auto; gap: .2em 1em; }
dl.meta dt { color: var(--muted); }
dl.meta dd { margin: 0; }
)css";

constexpr std::string_view kScript = R"js(
// kbdata serve: the few things a page does in the browser. Pages work without it.
document.addEventListener('DOMContentLoaded', () => {
  for (const form of document.querySelectorAll('form.compare')) {
    form.addEventListener('change', () => form.submit());
  }
});
)js";

const std::unordered_set<std::string_view>& python_keywords() {
  static const std::unordered_set<std::string_view> k = {
      "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
      "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
      "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
      "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};
  return k;
}

const std::unordered_set<std::string_view>& cpp_keywords() {
  static const std::unordered_set<std::string_view> k = {
      "auto",      "bool",     "break",      "case",       "char",       "class",    "const",
      "constexpr", "continue", "default",    "do",         "double",     "else",     "enum",
      "extern",    "float",    "for",        "if",         "inline",     "int",      "long",
      "namespace", "return",   "short",      "signed",     "sizeof",     "static",   "struct",
      "switch",    "template", "typedef",    "typename",   "unsigned",   "using",    "void",
      "volatile",  "while",    "__global__", "__device__", "__shared__", "__host__", "#include",
      "#define",   "#pragma"};
  return k;
}

}  // namespace

std::string escape(std::string_view text) {
  std::string out;
  append_markup_escaped(out, text);
  return out;
}

std::string html_cell(const result::Cell& cell, const result::Column& column) {
  if (std::holds_alternative<std::monostate>(cell)) return "";
  return escape(report::cell_text(cell, column));
}

std::string page(std::string_view title, std::string_view kind, std::string_view body,
                 std::string_view notice) {
  std::string out =
      "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<title>";
  out += escape(title);
  out +=
      " · kbdata</title><link rel=\"stylesheet\" href=\"/static/style.css\">"
      "<script src=\"/static/app.js\" defer></script></head><body>"
      "<header><a class=\"home\" href=\"/\">kbdata</a>"
      "<form action=\"/search\" method=\"get\" role=\"search\">"
      "<input type=\"search\" name=\"q\" placeholder=\"submission id, user or problem\" "
      "aria-label=\"search\"> <button>Search</button></form></header>\n<main id=\"page\" "
      "data-page=\"";
  out += escape(kind);
  out += "\">\n<h1>";
  out += escape(title);
  out += "</h1>\n";
  if (!notice.empty()) {
    out += "<p class=\"notice\">";
    out += escape(notice);
    out += "</p>\n";
  }
  out += body;
  out += "\n</main></body></html>\n";
  return out;
}

std::string_view style_sheet() { return kStyle; }
std::string_view script() { return kScript; }

std::string highlighted_code(std::string_view code, std::string_view file_name) {
  const bool cpp = source::is_cpp_source(code, file_name);
  const std::vector<source::Token> tokens =
      cpp ? source::tokenize_cpp(code) : source::tokenize_python(code);
  const auto& keywords = cpp ? cpp_keywords() : python_keywords();
  std::string out = "<pre class=\"code\"><code>";
  size_t at = 0;
  for (const source::Token& t : tokens) {
    if (t.begin < at || t.end > code.size() || t.end <= t.begin) continue;
    out += escape(code.substr(at, t.begin - at));
    const std::string_view text = code.substr(t.begin, t.end - t.begin);
    const char* kind = nullptr;
    switch (t.kind) {
      case source::TokenKind::NAME:
        kind = keywords.contains(text) ? "keyword" : nullptr;
        break;
      case source::TokenKind::STRING:
        kind = "string";
        break;
      case source::TokenKind::COMMENT:
        kind = "comment";
        break;
      case source::TokenKind::NUMBER:
        kind = "number";
        break;
      default:
        break;
    }
    if (kind != nullptr) {
      out += "<span class=\"tok-";
      out += kind;
      out += "\">";
      out += escape(text);
      out += "</span>";
    } else {
      out += escape(text);
    }
    at = t.end;
  }
  out += escape(code.substr(at));
  out += "</code></pre>";
  return out;
}

namespace {

// One line of a unified diff as the tables show it: a hunk's "@@" line (its text), or a deleted,
// added or kept line with its numbers in the old and the new text (0 where it has none).
struct DiffLine {
  enum class Kind { HUNK, DEL, ADD, CTX } kind;
  std::string_view text;  // without the mark
  long old_line = 0;
  long new_line = 0;
};

// The lines of a unified diff (pairs/diff.h), numbered from the hunks' "@@ -l,s +l,s @@"; the
// "---"/"+++" header and "\ No newline" lines left out.
std::vector<DiffLine> diff_lines(std::string_view diff) {
  std::vector<DiffLine> lines;
  long old_line = 0, new_line = 0;
  size_t start = 0;
  while (start < diff.size()) {
    size_t end = diff.find('\n', start);
    if (end == std::string_view::npos) end = diff.size();
    const std::string_view line = diff.substr(start, end - start);
    start = end + 1;
    if (line.empty() || line.starts_with("--- ") || line.starts_with("+++ ") ||
        line.starts_with("\\ ")) {
      continue;
    }
    if (line.starts_with("@@")) {
      const size_t minus = line.find('-');
      const size_t plus = line.find('+');
      if (minus != std::string_view::npos) {
        old_line = std::strtol(line.data() + minus + 1, nullptr, 10);
      }
      if (plus != std::string_view::npos)
        new_line = std::strtol(line.data() + plus + 1, nullptr, 10);
      lines.push_back({DiffLine::Kind::HUNK, line, 0, 0});
    } else if (line[0] == '-') {
      lines.push_back({DiffLine::Kind::DEL, line.substr(1), old_line++, 0});
    } else if (line[0] == '+') {
      lines.push_back({DiffLine::Kind::ADD, line.substr(1), 0, new_line++});
    } else {
      lines.push_back({DiffLine::Kind::CTX, line.substr(1), old_line++, new_line++});
    }
  }
  return lines;
}

std::string number(long n) { return n == 0 ? std::string() : std::to_string(n); }

}  // namespace

std::string diff_table(std::string_view diff) {
  std::string out = "<table class=\"diff\">";
  for (const DiffLine& l : diff_lines(diff)) {
    const std::string text = escape(l.text);
    switch (l.kind) {
      case DiffLine::Kind::HUNK:
        out += "<tr class=\"hunk\"><td class=\"ln\"></td><td class=\"ln\"></td><td>" + text +
               "</td></tr>";
        break;
      case DiffLine::Kind::ADD:
        out += "<tr class=\"add\"><td class=\"ln\"></td><td class=\"ln\">" + number(l.new_line) +
               "</td><td>+" + text + "</td></tr>";
        break;
      case DiffLine::Kind::DEL:
        out += "<tr class=\"del\"><td class=\"ln\">" + number(l.old_line) +
               "</td><td class=\"ln\"></td><td>-" + text + "</td></tr>";
        break;
      case DiffLine::Kind::CTX:
        out += "<tr class=\"ctx\"><td class=\"ln\">" + number(l.old_line) +
               "</td><td class=\"ln\">" + number(l.new_line) + "</td><td> " + text + "</td></tr>";
        break;
    }
  }
  out += "</table>";
  return out;
}

std::string diff_table_split(std::string_view diff) {
  std::string out = "<table class=\"diff split\">";
  auto cell = [](const char* kind, long n, std::string_view text) {
    return "<td class=\"ln\">" + number(n) + "</td><td class=\"" + std::string(kind) + "\">" +
           escape(text) + "</td>";
  };
  const std::vector<DiffLine> lines = diff_lines(diff);
  size_t k = 0;
  while (k < lines.size()) {
    const DiffLine& l = lines[k];
    if (l.kind == DiffLine::Kind::HUNK) {
      out += "<tr class=\"hunk\"><td colspan=\"4\">" + escape(l.text) + "</td></tr>";
      ++k;
    } else if (l.kind == DiffLine::Kind::CTX) {
      out += "<tr class=\"pair\">" + cell("ctx", l.old_line, l.text) +
             cell("ctx", l.new_line, l.text) + "</tr>";
      ++k;
    } else {
      // A run of deletions and the additions right after it share rows, in order.
      size_t dels = k;
      while (dels < lines.size() && lines[dels].kind == DiffLine::Kind::DEL) ++dels;
      size_t adds = dels;
      while (adds < lines.size() && lines[adds].kind == DiffLine::Kind::ADD) ++adds;
      const size_t deleted = dels - k, added = adds - dels;
      for (size_t i = 0; i < std::max(deleted, added); ++i) {
        out += "<tr class=\"pair\">";
        out += i < deleted ? cell("del", lines[k + i].old_line, lines[k + i].text)
                           : cell("empty", 0, "");
        out += i < added ? cell("add", lines[dels + i].new_line, lines[dels + i].text)
                         : cell("empty", 0, "");
        out += "</tr>";
      }
      k = adds;
    }
  }
  out += "</table>";
  return out;
}

}  // namespace kbdata::serve
