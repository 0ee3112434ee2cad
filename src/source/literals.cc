#include "source/literals.h"

#include <cstdint>

#include "source/bytes.h"

namespace kbdata::source {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Reads the escape at body[i] == '\\'; appends what it stands for and returns the index after it.
// `unicode`: \u, \U and \N are escapes (a Python str); `cpp`: C++'s escapes (\0 octal, \e kept).
size_t read_escape(std::string_view body, size_t i, bool unicode, std::string& out) {
  if (i + 1 >= body.size()) {
    out += '\\';
    return i + 1;
  }
  const char c = body[i + 1];
  switch (c) {
    case '\n':
      return i + 2;
    case '\r':
      return i + 2 + (i + 2 < body.size() && body[i + 2] == '\n' ? 1 : 0);
    case '\\':
    case '\'':
    case '"':
    case '?':
      out += c;
      return i + 2;
    case 'a':
      out += '\a';
      return i + 2;
    case 'b':
      out += '\b';
      return i + 2;
    case 'f':
      out += '\f';
      return i + 2;
    case 'n':
      out += '\n';
      return i + 2;
    case 'r':
      out += '\r';
      return i + 2;
    case 't':
      out += '\t';
      return i + 2;
    case 'v':
      out += '\v';
      return i + 2;
    case 'x': {
      size_t j = i + 2;
      uint32_t v = 0;
      int digits = 0;
      while (j < body.size() && digits < 2 && hex_value(body[j]) >= 0) {
        v = v * 16 + static_cast<uint32_t>(hex_value(body[j]));
        ++j;
        ++digits;
      }
      if (digits == 0) {
        out.append(body.substr(i, 2));
        return i + 2;
      }
      if (unicode) {
        append_utf8(out, v);
      } else {
        out += static_cast<char>(v);
      }
      return j;
    }
    case 'u':
    case 'U': {
      if (!unicode) break;
      const int want = c == 'u' ? 4 : 8;
      size_t j = i + 2;
      uint32_t v = 0;
      int digits = 0;
      while (j < body.size() && digits < want && hex_value(body[j]) >= 0) {
        v = v * 16 + static_cast<uint32_t>(hex_value(body[j]));
        ++j;
        ++digits;
      }
      if (digits != want) break;
      append_utf8(out, v);
      return j;
    }
    default:
      if (c >= '0' && c <= '7') {
        size_t j = i + 1;
        uint32_t v = 0;
        int digits = 0;
        while (j < body.size() && digits < 3 && body[j] >= '0' && body[j] <= '7') {
          v = v * 8 + static_cast<uint32_t>(body[j] - '0');
          ++j;
          ++digits;
        }
        if (unicode) {
          append_utf8(out, v);
        } else {
          out += static_cast<char>(v & 0xFF);
        }
        return j;
      }
      break;
  }
  // Not an escape (or one kbdata does not read, \N{...}): kept as written.
  out += '\\';
  out += c;
  return i + 2;
}

void append_unescaped(std::string_view body, bool unicode, std::string& out) {
  size_t i = 0;
  while (i < body.size()) {
    const size_t slash = body.find('\\', i);
    if (slash == std::string_view::npos) {
      out.append(body.substr(i));
      return;
    }
    out.append(body.substr(i, slash - i));
    i = read_escape(body, slash, unicode, out);
  }
}

}  // namespace

void append_utf8(std::string& out, uint32_t cp) {
  if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

void append_python_string_value(std::string_view text, const Token& t, std::string& out) {
  const std::string_view body = token_body(text, t);
  if (t.raw()) {
    out.append(body);
    return;
  }
  append_unescaped(body, (t.flags & kTokenBytes) == 0, out);
}

void append_cpp_string_value(std::string_view text, const Token& t, std::string& out) {
  const std::string_view body = token_body(text, t);
  if (t.raw()) {
    out.append(body);
    return;
  }
  append_unescaped(body, false, out);
}

std::vector<FStringPart> python_fstring_parts(std::string_view text, const Token& t) {
  std::vector<FStringPart> parts;
  const std::string_view body = token_body(text, t);
  std::string constant;
  size_t i = 0;
  const auto flush = [&] {
    if (constant.empty()) return;
    std::string value;
    if (t.raw()) {
      value = constant;
    } else {
      append_unescaped(constant, true, value);
    }
    parts.push_back({false, std::move(value)});
    constant.clear();
  };
  while (i < body.size()) {
    const char c = body[i];
    if ((c == '{' || c == '}') && i + 1 < body.size() && body[i + 1] == c) {
      constant += c;
      i += 2;
      continue;
    }
    if (c != '{') {
      if (c == '\\' && i + 1 < body.size()) {
        constant.append(body.substr(i, 2));
        i += 2;
        continue;
      }
      constant += c;
      ++i;
      continue;
    }
    // A replacement field: to its matching '}' (brackets and strings inside skipped), its
    // expression ending at a top-level '!' (not '!='), ':' or '='.
    flush();
    size_t j = i + 1;
    int depth = 0;
    size_t expr_end = std::string_view::npos;
    char quote = 0;
    for (; j < body.size(); ++j) {
      const char d = body[j];
      if (quote != 0) {
        if (d == quote) quote = 0;
        continue;
      }
      if (d == '\'' || d == '"') {
        quote = d;
      } else if (d == '(' || d == '[' || d == '{') {
        ++depth;
      } else if ((d == ')' || d == ']') && depth > 0) {
        --depth;
      } else if (d == '}') {
        if (depth == 0) break;
        --depth;
      } else if (depth == 0 && expr_end == std::string_view::npos &&
                 ((d == '!' && j + 1 < body.size() && body[j + 1] != '=') || d == ':')) {
        expr_end = j;
      }
    }
    const size_t end = expr_end == std::string_view::npos ? j : expr_end;
    std::string_view expr = body.substr(i + 1, end - (i + 1));
    while (!expr.empty() && (expr.back() == ' ' || expr.back() == '=')) expr.remove_suffix(1);
    while (!expr.empty() && expr.front() == ' ') expr.remove_prefix(1);
    parts.push_back({true, std::string(expr)});
    i = j + 1;
  }
  flush();
  return parts;
}

std::optional<std::string> python_coding_cookie(std::string_view text) {
  size_t line_start = 0;
  for (int line = 0; line < 2 && line_start < text.size(); ++line) {
    size_t line_end = text.find_first_of("\r\n", line_start);
    if (line_end == std::string_view::npos) line_end = text.size();
    std::string_view l = text.substr(line_start, line_end - line_start);
    size_t p = 0;
    while (p < l.size() && (l[p] == ' ' || l[p] == '\t' || l[p] == '\f')) ++p;
    if (p < l.size() && l[p] == '#') {
      // `coding` then ':' or '=', blanks, then the name ([-\w.]+).
      for (size_t at = l.find("coding", p); at != std::string_view::npos;
           at = l.find("coding", at + 1)) {
        size_t q = at + 6;
        if (q >= l.size() || (l[q] != ':' && l[q] != '=')) continue;
        ++q;
        while (q < l.size() && (l[q] == ' ' || l[q] == '\t')) ++q;
        std::string name;
        while (q < l.size() && (is_ident(l[q]) || l[q] == '-' || l[q] == '.') &&
               static_cast<unsigned char>(l[q]) < 0x80) {
          char c = l[q++];
          if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
          name += c == '_' ? '-' : c;
        }
        if (!name.empty()) return name;
      }
    } else if (p < l.size()) {
      return std::nullopt;  // a line of code before the cookie: none counts (PEP 263)
    }
    line_start = line_end;
    if (line_start < text.size() && text[line_start] == '\r') ++line_start;
    if (line_start < text.size() && text[line_start] == '\n') ++line_start;
  }
  return std::nullopt;
}

bool is_utf8_encoding(std::string_view e) {
  return e == "utf-8" || e == "utf8" || e.starts_with("utf-8-") || e == "ascii" || e == "us-ascii";
}

namespace {

int base64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

// RFC 2152: '+' opens modified base64 of UTF-16BE, ended by '-' (dropped) or any other byte
// (kept); "+-" is '+'.
std::string utf7_to_utf8(std::string_view in) {
  std::string out;
  size_t i = 0;
  while (i < in.size()) {
    if (in[i] != '+') {
      out += in[i++];
      continue;
    }
    ++i;
    if (i < in.size() && in[i] == '-') {
      out += '+';
      ++i;
      continue;
    }
    uint32_t bits = 0;
    int nbits = 0;
    uint32_t high = 0;  // a pending high surrogate
    while (i < in.size() && base64_value(in[i]) >= 0) {
      bits = (bits << 6) | static_cast<uint32_t>(base64_value(in[i]));
      nbits += 6;
      ++i;
      if (nbits >= 16) {
        nbits -= 16;
        const uint32_t unit = (bits >> nbits) & 0xFFFF;
        if (unit >= 0xD800 && unit < 0xDC00) {
          high = unit;
        } else if (unit >= 0xDC00 && unit < 0xE000 && high != 0) {
          append_utf8(out, 0x10000 + ((high - 0xD800) << 10) + (unit - 0xDC00));
          high = 0;
        } else {
          append_utf8(out, unit);
          high = 0;
        }
      }
    }
    if (i < in.size() && in[i] == '-') ++i;
  }
  return out;
}

}  // namespace

std::optional<std::string> decode_to_utf8(std::string_view text, std::string_view encoding) {
  if (encoding == "utf-7" || encoding == "utf7" || encoding == "unicode-1-1-utf-7") {
    return utf7_to_utf8(text);
  }
  const bool latin = encoding == "latin-1" || encoding == "latin1" || encoding == "l1" ||
                     encoding.starts_with("iso-8859") || encoding.starts_with("iso8859") ||
                     encoding == "cp1252" || encoding == "windows-1252" || encoding == "cp819";
  if (!latin) return std::nullopt;
  std::string out;
  out.reserve(text.size());
  for (char c : text) append_utf8(out, static_cast<unsigned char>(c));
  return out;
}

}  // namespace kbdata::source
