#include "common/text.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>

namespace kbdata {

namespace {

constexpr uint64_t kOnes = 0x0101010101010101ULL;
constexpr uint64_t kHighBits = 0x8080808080808080ULL;

uint64_t load_word(const uint8_t* p) {
  uint64_t word;
  std::memcpy(&word, p, sizeof(word));
  return word;
}

// True when some byte of `word` is below `limit`. REQUIRES: limit <= 128 (exact under that bound).
constexpr bool has_byte_below(uint64_t word, uint8_t limit) {
  return ((word - kOnes * limit) & ~word & kHighBits) != 0;
}

constexpr bool has_byte(uint64_t word, uint8_t byte) {
  return has_byte_below(word ^ (kOnes * byte), 1);
}

const uint8_t* as_bytes(std::string_view text) {
  return reinterpret_cast<const uint8_t*>(text.data());
}

// Length of the UTF-8 sequence that starts at p[0], of n >= 1 available bytes. Sets `valid` and
// returns the length of the well-formed sequence, or clears it and returns the length (>= 1) of
// the maximal subpart to replace: the lead byte and the continuation bytes that were still
// acceptable when the sequence broke off. Byte ranges are those of Unicode Table 3-7.
size_t scan_sequence(const uint8_t* p, size_t n, bool& valid) {
  const uint8_t lead = p[0];
  if (lead < 0x80) {
    valid = true;
    return 1;
  }
  size_t continuation_bytes;
  uint8_t low = 0x80;  // range of the second byte; later bytes are always 80..BF
  uint8_t high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    continuation_bytes = 1;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    continuation_bytes = 2;
    if (lead == 0xE0) low = 0xA0;   // no overlongs
    if (lead == 0xED) high = 0x9F;  // no surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    continuation_bytes = 3;
    if (lead == 0xF0) low = 0x90;   // no overlongs
    if (lead == 0xF4) high = 0x8F;  // nothing above U+10FFFF
  } else {
    valid = false;  // 80..C1 and F5..FF never start a sequence
    return 1;
  }
  for (size_t i = 1; i <= continuation_bytes; ++i) {
    if (i >= n || p[i] < low || p[i] > high) {
      valid = false;
      return i;
    }
    low = 0x80;
    high = 0xBF;
  }
  valid = true;
  return continuation_bytes + 1;
}

// Index of the first byte at or after `i` that is not ASCII, or n.
size_t skip_ascii(const uint8_t* p, size_t i, size_t n) {
  // 32 bytes a step while they are all ASCII (source code mostly is), then word by word.
  while (i + 32 <= n && ((load_word(p + i) | load_word(p + i + 8) | load_word(p + i + 16) |
                          load_word(p + i + 24)) &
                         kHighBits) == 0) {
    i += 32;
  }
  while (i + 8 <= n && (load_word(p + i) & kHighBits) == 0) i += 8;
  while (i < n && p[i] < 0x80) ++i;
  return i;
}

// For each byte, 0 if JSON copies it unchanged, 'u' for a \u00XX escape, else the letter that
// follows the backslash.
constexpr std::array<char, 256> make_json_escapes() {
  std::array<char, 256> table{};
  for (int c = 0; c < 0x20; ++c) table[c] = 'u';
  table['\b'] = 'b';
  table['\f'] = 'f';
  table['\n'] = 'n';
  table['\r'] = 'r';
  table['\t'] = 't';
  table['"'] = '"';
  table['\\'] = '\\';
  return table;
}

constexpr std::array<char, 256> kJsonEscapes = make_json_escapes();

constexpr bool word_needs_json_escape(uint64_t word) {
  return has_byte_below(word, 0x20) || has_byte(word, '"') || has_byte(word, '\\');
}

constexpr char kBase64Alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

constexpr char kReplacementCharacter[] = "\xEF\xBF\xBD";  // U+FFFD in UTF-8

template <typename T>
void append_shortest(std::string& out, T value) {
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  out.append(buffer, result.ptr);
}

}  // namespace

void append_base64(std::string& out, std::span<const uint8_t> bytes) {
  const size_t n = bytes.size();
  const size_t old_size = out.size();
  out.resize(old_size + (n + 2) / 3 * 4);
  char* dst = out.data() + old_size;
  const uint8_t* src = bytes.data();
  size_t i = 0;
  for (; i + 3 <= n; i += 3) {
    const uint32_t triple = (uint32_t{src[i]} << 16) | (uint32_t{src[i + 1]} << 8) | src[i + 2];
    *dst++ = kBase64Alphabet[(triple >> 18) & 63];
    *dst++ = kBase64Alphabet[(triple >> 12) & 63];
    *dst++ = kBase64Alphabet[(triple >> 6) & 63];
    *dst++ = kBase64Alphabet[triple & 63];
  }
  if (n - i == 1) {
    const uint32_t triple = uint32_t{src[i]} << 16;
    *dst++ = kBase64Alphabet[(triple >> 18) & 63];
    *dst++ = kBase64Alphabet[(triple >> 12) & 63];
    *dst++ = '=';
    *dst++ = '=';
  } else if (n - i == 2) {
    const uint32_t triple = (uint32_t{src[i]} << 16) | (uint32_t{src[i + 1]} << 8);
    *dst++ = kBase64Alphabet[(triple >> 18) & 63];
    *dst++ = kBase64Alphabet[(triple >> 12) & 63];
    *dst++ = kBase64Alphabet[(triple >> 6) & 63];
    *dst++ = '=';
  }
}

bool is_valid_utf8(std::string_view bytes) {
  const uint8_t* p = as_bytes(bytes);
  const size_t n = bytes.size();
  size_t i = 0;
  while (true) {
    i = skip_ascii(p, i, n);
    if (i == n) return true;
    bool valid;
    i += scan_sequence(p + i, n - i, valid);
    if (!valid) return false;
  }
}

void append_utf8_repaired(std::string& out, std::string_view bytes) {
  const uint8_t* p = as_bytes(bytes);
  const size_t n = bytes.size();
  size_t run_start = 0;  // start of the well-formed bytes not yet appended
  size_t i = 0;
  while (true) {
    i = skip_ascii(p, i, n);
    if (i == n) break;
    bool valid;
    const size_t length = scan_sequence(p + i, n - i, valid);
    if (!valid) {
      out.append(bytes.data() + run_start, i - run_start);
      out.append(kReplacementCharacter, 3);
      run_start = i + length;
    }
    i += length;
  }
  out.append(bytes.data() + run_start, n - run_start);
}

void append_json_string(std::string& out, std::string_view utf8) {
  const uint8_t* p = as_bytes(utf8);
  const size_t n = utf8.size();
  out.push_back('"');
  size_t run_start = 0;
  size_t i = 0;
  while (i < n) {
    if (i + 8 <= n && !word_needs_json_escape(load_word(p + i))) {
      i += 8;
      continue;
    }
    const char escape = kJsonEscapes[p[i]];
    if (escape != 0) {
      out.append(utf8.data() + run_start, i - run_start);
      if (escape == 'u') {
        const char sequence[] = {'\\', 'u', '0', '0', hex_digit(p[i] >> 4), hex_digit(p[i])};
        out.append(sequence, sizeof(sequence));
      } else {
        const char sequence[] = {'\\', escape};
        out.append(sequence, sizeof(sequence));
      }
      run_start = i + 1;
    }
    ++i;
  }
  out.append(utf8.data() + run_start, n - run_start);
  out.push_back('"');
}

void append_table_rule(std::string& out, std::span<const size_t> widths) {
  size_t longest = 0;
  for (size_t w : widths) longest = std::max(longest, w);
  const std::string dashes(longest, '-');
  append_table_line(
      out, widths, {}, [&](size_t c) { return std::string_view(dashes).substr(0, widths[c]); },
      [&](size_t c) { return widths[c]; });
}

void append_json_text(std::string& out, std::string_view bytes) {
  if (is_valid_utf8(bytes)) {
    append_json_string(out, bytes);
  } else {
    std::string repaired;
    append_utf8_repaired(repaired, bytes);
    append_json_string(out, repaired);
  }
}

void append_float(std::string& out, float value) { append_shortest(out, value); }

void append_double(std::string& out, double value) { append_shortest(out, value); }

const char* non_finite_text(double value) {
  return std::isnan(value) ? "NaN" : value > 0 ? "Infinity" : "-Infinity";
}

void append_json_double(std::string& out, double value) {
  if (std::isfinite(value)) {
    append_double(out, value);
    return;
  }
  out += '"';
  out += non_finite_text(value);
  out += '"';
}

bool csv_needs_quotes(std::string_view field) {
  return field.empty() || field.find_first_of(",\"\r\n") != std::string_view::npos;
}

void append_csv_quoted(std::string& out, std::string_view field) {
  out += '"';
  for (const char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

const char* terminal_escape(uint32_t code_point) {
  static constexpr const char* kC0[] = {
      "\\x00", "\\x01", "\\x02", "\\x03", "\\x04", "\\x05", "\\x06", "\\x07",
      "\\x08", "\\t",   "\\n",   "\\x0b", "\\x0c", "\\r",   "\\x0e", "\\x0f",
      "\\x10", "\\x11", "\\x12", "\\x13", "\\x14", "\\x15", "\\x16", "\\x17",
      "\\x18", "\\x19", "\\x1a", "\\x1b", "\\x1c", "\\x1d", "\\x1e", "\\x1f"};
  static constexpr const char* kC1[] = {
      "\\u0080", "\\u0081", "\\u0082", "\\u0083", "\\u0084", "\\u0085", "\\u0086", "\\u0087",
      "\\u0088", "\\u0089", "\\u008a", "\\u008b", "\\u008c", "\\u008d", "\\u008e", "\\u008f",
      "\\u0090", "\\u0091", "\\u0092", "\\u0093", "\\u0094", "\\u0095", "\\u0096", "\\u0097",
      "\\u0098", "\\u0099", "\\u009a", "\\u009b", "\\u009c", "\\u009d", "\\u009e", "\\u009f"};
  if (code_point < 0x20) return kC0[code_point];
  if (code_point == 0x7F) return "\\x7f";
  if (code_point >= 0x80 && code_point < 0xA0) return kC1[code_point - 0x80];
  switch (code_point) {
    case 0x061C:
      return "\\u061c";
    case 0x200E:
      return "\\u200e";
    case 0x200F:
      return "\\u200f";
    case 0x202A:
      return "\\u202a";
    case 0x202B:
      return "\\u202b";
    case 0x202C:
      return "\\u202c";
    case 0x202D:
      return "\\u202d";
    case 0x202E:
      return "\\u202e";
    case 0x2066:
      return "\\u2066";
    case 0x2067:
      return "\\u2067";
    case 0x2068:
      return "\\u2068";
    case 0x2069:
      return "\\u2069";
    default:
      return nullptr;
  }
}

void append_hex(std::string& out, std::span<const uint8_t> bytes) {
  const size_t at = out.size();
  out.resize(at + 2 * bytes.size());
  char* p = out.data() + at;
  for (uint8_t b : bytes) {
    *p++ = hex_digit(b >> 4);
    *p++ = hex_digit(b);
  }
}

void append_percent_encoded(std::string& out, std::string_view text) {
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if ((u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') || c == '-' ||
        c == '.' || c == '_' || c == '~') {
      out += c;
    } else {
      out += '%';
      out += hex_digit(u >> 4, true);
      out += hex_digit(u, true);
    }
  }
}

size_t append_table_cell(std::string& out, std::string_view text, size_t max_width) {
  const size_t limit = max_width > 0 ? max_width : SIZE_MAX;
  size_t width = 0;
  size_t cut_size = out.size();  // where to cut if truncated: the widest prefix < limit
  size_t cut_width = 0;
  const size_t n = text.size();
  for (size_t i = 0; i < n;) {
    size_t length = 1;
    const uint32_t code_point = decode_code_point(text, i, length);
    const char* escape = terminal_escape(code_point);
    const size_t unit_width = escape != nullptr ? std::strlen(escape) : 1;
    if (width + unit_width > limit) {
      out.resize(cut_size);
      out.append("…");
      return cut_width + 1;
    }
    if (escape != nullptr) {
      out.append(escape);
    } else {
      out.append(text.data() + i, length);
    }
    width += unit_width;
    i += length;
    if (width < limit) {
      cut_size = out.size();
      cut_width = width;
    }
  }
  return width;
}

uint32_t decode_code_point(std::string_view utf8, size_t i, size_t& length) {
  const auto* p = reinterpret_cast<const uint8_t*>(utf8.data());
  const size_t n = utf8.size();
  const uint8_t lead = p[i];
  length = 1;
  if (lead < 0x80) return lead;
  size_t want = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
  if (want == 1 || i + want > n) return lead;
  uint32_t code_point = lead & (want == 2 ? 0x1Fu : want == 3 ? 0x0Fu : 0x07u);
  for (size_t k = 1; k < want; ++k) {
    if ((p[i + k] & 0xC0) != 0x80) return lead;
    code_point = (code_point << 6) | (p[i + k] & 0x3Fu);
  }
  length = want;
  return code_point;
}

void append_terminal_safe(std::string& out, std::string_view utf8, bool keep_layout) {
  for (size_t i = 0; i < utf8.size();) {
    size_t length = 1;
    const uint32_t code_point = decode_code_point(utf8, i, length);
    const char* escape = terminal_escape(code_point);
    if (escape != nullptr && !(keep_layout && (code_point == '\n' || code_point == '\t'))) {
      out += escape;
    } else {
      out.append(utf8.data() + i, length);
    }
    i += length;
  }
}

size_t utf8_length(std::string_view utf8) {
  size_t count = 0;
  for (const char c : utf8) count += (static_cast<uint8_t>(c) & 0xC0) != 0x80;
  return count;
}

std::string markup_text(std::string_view text) {
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

void append_markup_entities(std::string& out, std::string_view sanitized) {
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

void append_markup_escaped(std::string& out, std::string_view text) {
  append_markup_entities(out, markup_text(text));
}

std::string grouped(uint64_t n) {
  const std::string digits = std::to_string(n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace kbdata
