// The HTML of `kbdata serve`'s pages (docs/serve.md): every text from the data escaped, the page
// frame with its embedded style sheet and script, code highlighted from kbdata's own lexers, diffs
// as tables. No external resource: the pages work without the internet.
#pragma once

#include <string>
#include <string_view>

#include "result/table.h"

namespace kbdata::serve {

// `text` for HTML text and quoted attribute values (common/text.h's markup rule, as the SVG
// charts): & < > " ' as entities; ill-formed UTF-8, control bytes other than tab, newline and
// carriage return, U+FFFE and U+FFFF as U+FFFD.
[[nodiscard]] std::string escape(std::string_view text);

// The content of a table cell of a page: the cell's text as the writer's tables show it
// (report::cell_text: scores as µs/ms/s, times "YYYY-MM-DD HH:MM:SS", lists "a,b"), escaped;
// a null is an empty cell.
[[nodiscard]] std::string html_cell(const result::Cell& cell, const result::Column& column);

// A whole page: <!doctype html>, the title, the navigation (home, search box), then inside
// <main id="page" data-page="KIND"> the title as <h1>, `notice` (text, when not empty) as
// <p class="notice">, and `body`. The style sheet and the script are the server's own
// (/static/style.css, /static/app.js).
[[nodiscard]] std::string page(std::string_view title, std::string_view kind, std::string_view body,
                               std::string_view notice = {});

// The embedded assets.
[[nodiscard]] std::string_view style_sheet();
[[nodiscard]] std::string_view script();

// `code` in <pre class="code">, highlighted: tokens of kbdata's Python lexer (or its C++ lexer
// for a C++ file, source::is_cpp_source) as <span class="tok-KIND"> (keyword, name, string,
// comment, number); the text between tokens as it is. Every byte of the code appears, escaped.
[[nodiscard]] std::string highlighted_code(std::string_view code, std::string_view file_name);

// A unified diff (pairs/diff.h) as <table class="diff">: a row per line, class "hunk" for an
// "@@" line, "add", "del" or "ctx", with the old and new line numbers.
[[nodiscard]] std::string diff_table(std::string_view unified_diff);

// The same diff side by side, <table class="diff split">: a row per line pair, the old line left
// and the new right; a run of deleted lines and the added lines after it share rows in order
// (the longer run's rest beside empty cells). Cells: class "del", "add", "ctx" or "empty", each
// after its line number; a hunk's "@@" line spans the row.
[[nodiscard]] std::string diff_table_split(std::string_view unified_diff);

}  // namespace kbdata::serve
