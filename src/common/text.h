// Small text helpers for the output path: base64, UTF-8 validation and repair, JSON string
// escaping, shortest round-trip floating-point text and code-point counting.
//
// Every function appends to a caller-owned std::string so that a writer can build a whole block of
// output in one buffer; none of them allocates beyond growing that buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kbdata {

// Appends the base64 encoding of `bytes` (RFC 4648 standard alphabet, '=' padding).
void append_base64(std::string& out, std::span<const uint8_t> bytes);

// True when `bytes` is well-formed UTF-8 (Unicode Table 3-7: no overlong forms, no surrogates, no
// code points above U+10FFFF, no truncated sequences).
[[nodiscard]] bool is_valid_utf8(std::string_view bytes);

// Appends `bytes` as well-formed UTF-8: well-formed sequences are copied, and each maximal subpart
// of an ill-formed subsequence is replaced by one U+FFFD (the "substitution of maximal subparts"
// practice of Unicode chapter 3.9, as in the WHATWG decoder).
void append_utf8_repaired(std::string& out, std::string_view bytes);

// Appends `utf8` as a JSON string literal (RFC 8259): in double quotes, with '"' and '\' escaped
// by a backslash, \b \f \n \r \t for those control characters and \u00XX for the other ones below
// U+0020. All other bytes are copied unchanged.
// REQUIRES: `utf8` is well-formed UTF-8 (use append_utf8_repaired first otherwise).
void append_json_string(std::string& out, std::string_view utf8);
// The same for any bytes: well-formed UTF-8 as it is, else repaired first (append_utf8_repaired).
// Every JSON string kbdata writes from data goes through here.
void append_json_text(std::string& out, std::string_view bytes);

// Append the shortest text that reads back as exactly `value` (std::to_chars without a format:
// "4.6", "1", "1e+20", "-0"). Non-finite values appear as to_chars writes them ("nan", "-nan",
// "inf", "-inf"); callers that need another spelling test for them first (non_finite_text).
void append_float(std::string& out, float value);
void append_double(std::string& out, double value);

// The one spelling of the numbers a decimal text cannot show, whoever writes them (every report,
// kbdata cat, VARIANT values as JSON, pairs): "NaN" (any NaN, whatever its sign), "Infinity",
// "-Infinity". REQUIRES: `value` is not finite.
[[nodiscard]] const char* non_finite_text(double value);

// A double as a JSON value: its shortest text (append_double), or, as JSON has no NaN or
// infinities, non_finite_text's spelling as a JSON string ("NaN").
void append_json_double(std::string& out, double value);

// CSV (RFC 4180), the one rule for every CSV kbdata writes (reports, kbdata cat): a field is
// quoted, its quotes doubled, when it is empty (a present empty text, told from a null, which is
// an empty field left unquoted) or holds a comma, a quote, CR or LF; otherwise it is as it is.
[[nodiscard]] bool csv_needs_quotes(std::string_view field);
// Appends `field` in quotes, its quotes doubled.
void append_csv_quoted(std::string& out, std::string_view field);

// How a terminal must show code point `code_point` so that it is seen, not obeyed: C0 controls as
// "\t", "\n", "\r" or "\xNN", DEL as "\x7f", C1 controls (U+0080..U+009F) and the bidirectional
// formatting characters (U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069, which can make
// code read differently from what it does) as "\uXXXX"; nullptr for every other code point.
[[nodiscard]] const char* terminal_escape(uint32_t code_point);

// Appends well-formed UTF-8 `utf8` with every code point terminal_escape names escaped; with
// `keep_layout`, '\n' and '\t' are copied as they are (code keeps its lines and indentation).
void append_terminal_safe(std::string& out, std::string_view utf8, bool keep_layout);

// The one rule for a table cell, whoever prints the table (kbdata cat's rows, every report):
// appends well-formed UTF-8 `utf8` with every code point terminal_escape names escaped (so a cell
// stays on one line and reads as stored) and, when `max_width` > 0 and the result would be wider,
// cuts it to max_width - 1 code points of output followed by "…". An escape counts its
// characters. Returns the width appended, in code points.
size_t append_table_cell(std::string& out, std::string_view utf8, size_t max_width);

// The one layout of a table's line, whoever prints a table (kbdata cat's rows, every report):
// the cells two spaces apart, each padded with blanks to its column's width (`widths[c]`, in code
// points; on the left where `right_align[c]`, else on the right), the line's trailing blanks
// dropped, then "\n". `text(c)` is cell c's text (a std::string_view), `width(c)` its width in
// code points. A template: kbdata cat lays out every row of its tables with it.
template <typename Text, typename Width>
void append_table_line(std::string& out, std::span<const size_t> widths,
                       const std::vector<bool>& right_align, Text&& text, Width&& width) {
  const size_t line_start = out.size();
  for (size_t c = 0; c < widths.size(); ++c) {
    if (c > 0) out.append(2, ' ');
    const size_t pad = widths[c] - width(c);
    const bool right = c < right_align.size() && right_align[c];
    if (right) out.append(pad, ' ');
    out.append(text(c));
    if (!right) out.append(pad, ' ');
  }
  const size_t end = out.find_last_not_of(' ');
  out.resize(end == std::string::npos || end < line_start ? line_start : end + 1);
  out.push_back('\n');
}
// The line under a table's header: as many dashes as each column is wide, laid out as a line.
void append_table_rule(std::string& out, std::span<const size_t> widths);

// Hexadecimal, the one place: a nibble's digit (lower case; `upper` for percent-encoding), and
// bytes appended as two lower-case digits each (digests, bytea, \x escapes).
[[nodiscard]] constexpr char hex_digit(unsigned nibble, bool upper = false) {
  return (upper ? "0123456789ABCDEF" : "0123456789abcdef")[nibble & 15];
}
void append_hex(std::string& out, std::span<const uint8_t> bytes);
inline void append_hex(std::string& out, std::string_view bytes) {
  append_hex(out, std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
}

// Appends `text` percent-encoded as one URL path segment or query value (RFC 3986): every byte
// but the unreserved characters (ASCII letters and digits, '-', '.', '_', '~') as %XX, upper-case.
// The hub's request URLs and kbdata serve's links.
void append_percent_encoded(std::string& out, std::string_view text);

// The width tables cut cells at, in code points ("…" included).
inline constexpr size_t kTableCellWidth = 40;

// The code point of the well-formed UTF-8 sequence at utf8[i] and its length in bytes (1 for a
// byte that starts no well-formed sequence).
[[nodiscard]] uint32_t decode_code_point(std::string_view utf8, size_t i, size_t& length);

// Number of code points in `utf8` (the bytes that are not continuation bytes 10xxxxxx).
// REQUIRES: `utf8` is well-formed UTF-8, or the count is only an estimate.
[[nodiscard]] size_t utf8_length(std::string_view utf8);

// Text for XML and HTML (kbdata's SVG charts, kbdata serve's pages), one rule for both:
//   markup_text             well-formed UTF-8 holding only characters XML 1.0 allows: ill-formed
//                           bytes, control characters other than tab, newline and carriage return,
//                           and U+FFFE / U+FFFF become U+FFFD
//   append_markup_entities  text already made so, with & < > " ' as entities: safe in element
//                           content and in double- or single-quoted attribute values
//   append_markup_escaped   both
[[nodiscard]] std::string markup_text(std::string_view text);
void append_markup_entities(std::string& out, std::string_view sanitized);
void append_markup_escaped(std::string& out, std::string_view text);

// n with thousands separated by commas ("1,234,567"): counts and sizes in messages.
[[nodiscard]] std::string grouped(uint64_t n);

}  // namespace kbdata
