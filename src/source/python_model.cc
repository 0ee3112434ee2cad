#include "source/python_model.h"

#include <zlib.h>

#include <algorithm>
#include <array>

#include "source/bytes.h"
#include "source/identifiers.h"
#include "source/literals.h"

namespace kbdata::source {
namespace {

// The most bytes a folded string may hold, and all of a model's folded strings together beyond
// the code's own size: a code that doubles a string in a loop of names stops being followed.
constexpr size_t kMaxFolded = 4 << 20;
constexpr size_t kFoldBudget = 16 << 20;
// The deepest the reader recurses (brackets, operators, names bound to names); deeper
// expressions are UNKNOWN (hostile nesting must not exhaust the stack).
constexpr int kMaxDepth = 160;
// The most alternatives a value keeps, items of a display (a longer list, a table of numbers, is
// read for its facts but not kept: its values would take several times its bytes), and literal
// pieces.
constexpr size_t kMaxAlternatives = 8;
constexpr size_t kMaxItems = 16;
// A display of strings only (a source written as a list of its lines) is kept longer: folding
// joins it.
constexpr size_t kMaxStringItems = 4096;

bool keeps(size_t count, bool strings_only) {
  return count <= kMaxItems || (strings_only && count <= kMaxStringItems);
}

bool is_string(const Value& v) {
  return v.kind == Value::Kind::STR || v.kind == Value::Kind::BYTES;
}
constexpr size_t kMaxPieces = 64;

void add_pieces(std::vector<uint32_t>& to, const std::vector<uint32_t>& from) {
  for (uint32_t p : from) {
    if (to.size() >= kMaxPieces) return;
    to.push_back(p);
  }
}

constexpr std::string_view kBuiltins[] = {
    "exec",        "eval",     "compile",    "getattr",    "setattr",    "delattr",
    "vars",        "globals",  "locals",     "__import__", "id",         "open",
    "print",       "chr",      "ord",        "str",        "bytes",      "bytearray",
    "len",         "hasattr",  "type",       "object",     "isinstance", "range",
    "list",        "tuple",    "dict",       "set",        "map",        "zip",
    "iter",        "next",     "super",      "int",        "float",      "bool",
    "repr",        "input",    "breakpoint", "memoryview", "property",   "staticmethod",
    "classmethod", "callable", "format",     "hash",       "sorted",     "reversed",
    "enumerate",   "filter",   "sum",        "min",        "max",        "abs",
    "round",       "divmod",   "pow",        "all",        "any",        "frozenset",
    "slice",       "complex",  "hex",        "oct",        "bin",        "ascii",
    "issubclass",  "exit",     "quit",       "help",       "dir"};

bool is_builtin(std::string_view name) {
  for (std::string_view b : kBuiltins) {
    if (b == name) return true;
  }
  return false;
}

constexpr std::string_view kCompoundKeywords[] = {
    "if", "elif", "else", "for", "while", "with", "def", "class", "try", "except", "finally"};

StatementKind compound_kind(std::string_view w) {
  if (w == "if") return StatementKind::IF;
  if (w == "elif") return StatementKind::ELIF;
  if (w == "else") return StatementKind::ELSE;
  if (w == "for") return StatementKind::FOR;
  if (w == "while") return StatementKind::WHILE;
  if (w == "with") return StatementKind::WITH;
  if (w == "def") return StatementKind::DEF;
  if (w == "class") return StatementKind::CLASS;
  if (w == "try") return StatementKind::TRY;
  if (w == "except") return StatementKind::EXCEPT;
  if (w == "finally") return StatementKind::FINALLY;
  return StatementKind::SIMPLE;
}

bool is_compound_keyword(std::string_view w) {
  for (std::string_view k : kCompoundKeywords) {
    if (k == w) return true;
  }
  return false;
}

std::optional<int64_t> parse_int(std::string_view s) {
  std::string digits;
  for (char c : s) {
    if (c != '_') digits += c;
  }
  if (digits.empty()) return std::nullopt;
  int base = 10;
  size_t i = 0;
  if (digits.size() > 2 && digits[0] == '0') {
    const char b = static_cast<char>(digits[1] | 0x20);
    if (b == 'x') base = 16;
    if (b == 'o') base = 8;
    if (b == 'b') base = 2;
    if (base != 10) i = 2;
  }
  int64_t v = 0;
  for (; i < digits.size(); ++i) {
    const char c = digits[i];
    int d = -1;
    if (c >= '0' && c <= '9') d = c - '0';
    if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    if (d < 0 || d >= base) return std::nullopt;
    if (v > (INT64_MAX - d) / base) return std::nullopt;
    v = v * base + d;
  }
  return v;
}

int b64_value(char c, bool urlsafe) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == (urlsafe ? '-' : '+')) return 62;
  if (c == (urlsafe ? '_' : '/')) return 63;
  return -1;
}

std::optional<std::string> base64_decode(std::string_view in, bool urlsafe) {
  std::string out;
  uint32_t bits = 0;
  int n = 0;
  for (char c : in) {
    if (c == '=' || c == '\n' || c == '\r' || c == ' ') continue;
    const int v = b64_value(c, urlsafe);
    if (v < 0) return std::nullopt;
    bits = (bits << 6) | static_cast<uint32_t>(v);
    n += 6;
    if (n >= 8) {
      n -= 8;
      out += static_cast<char>((bits >> n) & 0xFF);
    }
  }
  return out;
}

std::optional<std::string> hex_decode(std::string_view in) {
  std::string out;
  int high = -1;
  for (char c : in) {
    if (c == ' ' || c == '\n') continue;
    int v = -1;
    if (c >= '0' && c <= '9') v = c - '0';
    if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
    if (c >= 'A' && c <= 'F') v = c - 'A' + 10;
    if (v < 0) return std::nullopt;
    if (high < 0) {
      high = v;
    } else {
      out += static_cast<char>(high * 16 + v);
      high = -1;
    }
  }
  return out;
}

// zlib or gzip data inflated, at most kMaxFolded bytes.
std::optional<std::string> inflate_bytes(std::string_view in) {
  z_stream s{};
  if (inflateInit2(&s, 15 + 32) != Z_OK) return std::nullopt;
  std::string out;
  s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  s.avail_in = static_cast<uInt>(in.size());
  char buf[16384];
  int status = Z_OK;
  while (status == Z_OK && out.size() < kMaxFolded) {
    s.next_out = reinterpret_cast<Bytef*>(buf);
    s.avail_out = sizeof buf;
    status = inflate(&s, Z_NO_FLUSH);
    out.append(buf, sizeof buf - s.avail_out);
    if (s.avail_out == sizeof buf && status == Z_OK) break;
  }
  inflateEnd(&s);
  if (status != Z_STREAM_END) return std::nullopt;
  return out;
}

std::string rot13(std::string_view in) {
  std::string out(in);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>('a' + (c - 'a' + 13) % 26);
    if (c >= 'A' && c <= 'Z') c = static_cast<char>('A' + (c - 'A' + 13) % 26);
  }
  return out;
}

Value unknown() { return {}; }

Value str_value(std::string text, bool partial = false) {
  Value v;
  v.kind = Value::Kind::STR;
  v.text = std::move(text);
  v.partial = partial;
  return v;
}

Value object_value(std::string path) {
  Value v;
  v.kind = Value::Kind::OBJECT;
  v.text = std::move(path);
  return v;
}

// The text a value gives when formatted into a string (str(v)), or nullopt when unknown.
std::optional<std::string> text_of(const Value& v) {
  if (v.kind == Value::Kind::STR && !v.partial) return v.text;
  if (v.kind == Value::Kind::INT) return std::to_string(v.number);
  return std::nullopt;
}

// The same, with an unknown part written "{?}".
std::string text_or_hole(const Value& v, bool& partial) {
  if (v.kind == Value::Kind::STR) {
    partial = partial || v.partial;
    return v.text;
  }
  if (const auto t = text_of(v)) return *t;
  partial = true;
  return "{?}";
}

Value alternatives(std::vector<Value> values) {
  std::vector<Value> kept;
  for (Value& v : values) {
    if (v.kind == Value::Kind::UNKNOWN) continue;
    if (v.kind == Value::Kind::ANY_OF) {
      for (Value& w : v.items) kept.push_back(std::move(w));
    } else {
      kept.push_back(std::move(v));
    }
  }
  // Distinct, at most kMaxAlternatives.
  std::vector<Value> out;
  for (Value& v : kept) {
    bool seen = false;
    for (const Value& w : out)
      seen = seen || (w.kind == v.kind && w.text == v.text && w.number == v.number &&
                      w.items.empty() && v.items.empty());
    if (!seen && out.size() < kMaxAlternatives) out.push_back(std::move(v));
  }
  if (out.empty()) return unknown();
  if (out.size() == 1) return std::move(out.front());
  Value any;
  any.kind = Value::Kind::ANY_OF;
  any.items = std::move(out);
  return any;
}

// Element `index` (0-based) of a value unpacked into a tuple target.
Value element_of(const Value& v, size_t index) {
  switch (v.kind) {
    case Value::Kind::SEQ:
      return index < v.items.size() ? v.items[index] : unknown();
    case Value::Kind::ANY_OF: {
      std::vector<Value> out;
      for (const Value& w : v.items) out.push_back(element_of(w, index));
      return alternatives(std::move(out));
    }
    default:
      return unknown();
  }
}

Value select_element(Value v, uint32_t path) {
  while (path != 0) {
    const uint32_t index = (path & 1023) - 1;
    v = element_of(v, index);
    path >>= 10;
  }
  return v;
}

// An item of an iterable (a `for` target).
Value item_of(const Value& v) {
  switch (v.kind) {
    case Value::Kind::SEQ:
      return alternatives(v.items);
    case Value::Kind::DICT: {
      std::vector<Value> keys;
      for (size_t i = 0; i < v.items.size(); i += 2) keys.push_back(v.items[i]);
      return alternatives(std::move(keys));
    }
    case Value::Kind::ANY_OF: {
      std::vector<Value> out;
      for (const Value& w : v.items) out.push_back(item_of(w));
      return alternatives(std::move(out));
    }
    default:
      return unknown();
  }
}

// What a fact keeps of a value: the strings, numbers and paths rules read, a display's first few
// items (at most two levels deep), never a whole table: a fact is a few words, whatever the code
// binds to a name it reads.
Value compact(const Value& v, int depth = 0) {
  constexpr size_t kFactItems = 16;
  Value out;
  out.kind = v.kind;
  out.partial = v.partial;
  out.decoded = v.decoded;
  out.number = v.number;
  out.literal = v.literal;
  out.text = v.text;
  if (v.kind == Value::Kind::ANY_OF || v.kind == Value::Kind::METHOD ||
      ((v.kind == Value::Kind::SEQ || v.kind == Value::Kind::DICT) && depth < 2)) {
    const size_t keep = v.kind == Value::Kind::DICT ? 2 * kFactItems : kFactItems;
    for (size_t i = 0; i < v.items.size() && i < keep; ++i) {
      out.items.push_back(compact(v.items[i], depth + 1));
    }
    if (v.items.size() > keep && v.kind != Value::Kind::ANY_OF) out.partial = true;
  }
  return out;
}

}  // namespace

bool Value::is_object(std::string_view path) const {
  bool found = false;
  each([&](const Value& v) { found = found || (v.kind == Kind::OBJECT && v.text == path); });
  return found;
}

// Reads the expressions of tokens [begin, end) of a model: their values, and (with `facts`) the
// calls, attribute and item reads they hold.
class ExpressionReader {
 public:
  ExpressionReader(const PythonModel& m, uint32_t scope, uint32_t statement, uint32_t begin,
                   uint32_t end, Facts* facts, int depth)
      : m_(m),
        scope_(scope),
        statement_(statement),
        pos_(begin),
        end_(std::min<uint32_t>(end, static_cast<uint32_t>(m.tokens_.size()))),
        facts_(facts),
        depth_(depth) {}

  [[nodiscard]] uint32_t pos() const { return pos_; }
  [[nodiscard]] bool at_end() const { return pos_ >= end_; }

  // a, b, c: a SEQ when there is a comma.
  Value expression_list() {
    std::vector<Value> items;
    bool comma = false;
    size_t count = 0;
    bool strings = true;
    while (pos_ < end_) {
      if (is_stop()) break;
      Value item = expression();
      strings = strings && is_string(item);
      if (keeps(++count, strings)) items.push_back(std::move(item));
      if (pos_ < end_ && m_.op(pos_, ",")) {
        comma = true;
        ++pos_;
        continue;
      }
      break;
    }
    if (!comma) return items.empty() ? unknown() : std::move(items.front());
    if (!keeps(count, strings)) return unknown();
    Value v;
    v.kind = Value::Kind::SEQ;
    v.items = std::move(items);
    return v;
  }

  // Every expression of the range, whatever stands between them (a statement's keywords).
  void read_all() {
    while (pos_ < end_) {
      const uint32_t before = pos_;
      (void)expression_list();
      if (pos_ == before) ++pos_;
    }
  }

  // One expression: a lambda, a conditional, a walrus or an operator expression.
  Value expression() {
    if (pos_ >= end_) return unknown();
    if (depth_ > kMaxDepth) {
      pos_ = end_;
      return unknown();
    }
    if (m_.keyword(pos_, "lambda")) {
      // lambda params: body -- the body is read for its facts.
      ++pos_;
      int nested = 0;
      while (pos_ < end_ && !(nested == 0 && m_.op(pos_, ":"))) {
        if (m_.op(pos_, "(") || m_.op(pos_, "[") || m_.op(pos_, "{")) ++nested;
        if ((m_.op(pos_, ")") || m_.op(pos_, "]") || m_.op(pos_, "}")) && nested > 0) --nested;
        ++pos_;
      }
      if (pos_ < end_) ++pos_;
      (void)sub_expression();
      Value f;
      f.kind = Value::Kind::UNKNOWN;
      return f;
    }
    if (m_.is_name(pos_) && m_.op(pos_ + 1, ":=")) {
      pos_ += 2;
      return sub_expression();
    }
    Value v = binary(1);
    if (m_.keyword(pos_, "if")) {
      ++pos_;
      (void)binary(1);
      if (m_.keyword(pos_, "else")) {
        ++pos_;
        Value other = sub_expression();
        return alternatives({std::move(v), std::move(other)});
      }
    }
    return v;
  }

  // A target's object and last trailer: `a.b.c` -> object a.b, name c; `a[k]` -> object a, key
  // k. Returns false for a target that is a name or another form.
  bool store_target(Value& object, std::string_view& name, Value& key, bool& item,
                    uint32_t& first) {
    first = pos_;
    if (pos_ >= end_) return false;
    uint32_t last_trailer = kNoIndex;
    // Find where the last trailer starts: walk the primary's trailers at the top level.
    uint32_t k = pos_;
    if (m_.op(k, "(") || m_.op(k, "[")) {
      k = m_.closing(k) + 1;
    } else if (m_.is_name(k)) {
      ++k;
    } else {
      return false;
    }
    while (k < end_) {
      if (m_.op(k, ".") && m_.is_name(k + 1)) {
        last_trailer = k;
        k += 2;
      } else if (m_.op(k, "(") || m_.op(k, "[")) {
        last_trailer = k;
        k = m_.closing(k) + 1;
      } else {
        break;
      }
    }
    if (last_trailer == kNoIndex || m_.op(last_trailer, "(")) return false;
    const uint32_t saved_end = end_;
    end_ = last_trailer;
    object = primary();
    end_ = saved_end;
    pos_ = last_trailer;
    if (m_.op(pos_, ".")) {
      name = m_.name(pos_ + 1);
      item = false;
      pos_ += 2;
    } else {
      const uint32_t close = m_.closing(pos_);
      key = sub_range(pos_ + 1, close).expression_list();
      item = true;
      pos_ = close + 1;
    }
    return true;
  }

 private:
  [[nodiscard]] bool is_stop() const {
    // Tokens that end an expression list: keywords of the enclosing statement or comprehension.
    const Token& t = m_.tokens_[pos_];
    if (t.kind == TokenKind::NAME) {
      const std::string_view w = m_.txt(pos_);
      return w == "for" || w == "in" || w == "from" || w == "as" || w == "else" || w == "import" ||
             w == "async";
    }
    if (t.kind == TokenKind::OP) {
      const std::string_view w = m_.txt(pos_);
      return w == ":" || w == "=" || w == ")" || w == "]" || w == "}" || w == ";";
    }
    return t.kind == TokenKind::NEWLINE;
  }

  ExpressionReader sub_range(uint32_t begin, uint32_t end) const {
    return ExpressionReader(m_, scope_, statement_, begin, std::min(end, end_), facts_, depth_ + 1);
  }

  Value sub_expression() {
    ++depth_;
    Value v = expression();
    --depth_;
    return v;
  }

  // The binding power of a binary operator (0: not one). By bytes, not string compares: this
  // runs after every operand of every expression.
  static int precedence(std::string_view op, bool name) {
    if (name) {
      if (op.size() == 2) {
        if (op[0] == 'o' && op[1] == 'r') return 1;
        if (op[0] == 'i' && (op[1] == 'n' || op[1] == 's')) return 4;
      } else if (op.size() == 3) {
        if (op[0] == 'a' && op[1] == 'n' && op[2] == 'd') return 2;
        if (op[0] == 'n' && op[1] == 'o' && op[2] == 't') return 4;
      }
      return 0;
    }
    if (op.size() == 1) {
      switch (op[0]) {
        case '<':
        case '>':
          return 4;
        case '|':
          return 5;
        case '^':
          return 6;
        case '&':
          return 7;
        case '+':
        case '-':
          return 9;
        case '*':
        case '@':
        case '/':
        case '%':
          return 10;
        default:
          return 0;
      }
    }
    if (op.size() != 2) return 0;
    const char a = op[0];
    const char b = op[1];
    if (b == '=' && (a == '=' || a == '>' || a == '<' || a == '!')) return 4;
    if ((a == '<' && b == '<') || (a == '>' && b == '>')) return 8;
    if (a == '/' && b == '/') return 10;
    if (a == '*' && b == '*') return 12;
    return 0;
  }

  Value binary(int min_prec) {
    if (depth_ > kMaxDepth) {
      pos_ = end_;
      return unknown();
    }
    ++depth_;
    Value left = unary();
    while (pos_ < end_) {
      const Token& t = m_.tokens_[pos_];
      if (t.kind != TokenKind::OP && t.kind != TokenKind::NAME) break;
      const std::string_view op = m_.txt(pos_);
      const int prec = precedence(op, t.kind == TokenKind::NAME);
      if (prec == 0 || prec < min_prec) break;
      ++pos_;
      if ((op == "not" && m_.keyword(pos_, "in")) || (op == "is" && m_.keyword(pos_, "not"))) {
        ++pos_;
      }
      Value right = binary(op == "**" ? prec : prec + 1);
      left = combine(op, std::move(left), std::move(right));
    }
    --depth_;
    return left;
  }

  // Prefix operators (not, await, -, +, ~, a star), then a primary.
  Value unary() {
    bool known = true;
    bool negative = false;
    while (pos_ < end_) {
      if (m_.keyword(pos_, "not") || m_.keyword(pos_, "await") || m_.op(pos_, "*") ||
          m_.op(pos_, "**")) {
        known = false;
      } else if (m_.op(pos_, "-")) {
        negative = !negative;
      } else if (!m_.op(pos_, "+") && !m_.op(pos_, "~")) {
        break;
      } else if (m_.op(pos_, "~")) {
        known = false;
      }
      ++pos_;
    }
    if (pos_ >= end_) return unknown();
    Value v = primary();
    if (!known) return unknown();
    if (negative) {
      if (v.kind != Value::Kind::INT) return unknown();
      v.number = -v.number;
    }
    return v;
  }

  Value combine(std::string_view op, Value a, Value b) {
    using K = Value::Kind;
    if (op == "+") {
      if (a.kind == K::INT && b.kind == K::INT) {
        a.number += b.number;
        return a;
      }
      if ((a.kind == K::STR || b.kind == K::STR) && a.kind != K::BYTES && b.kind != K::BYTES) {
        bool partial = false;
        std::string s = text_or_hole(a, partial);
        s += text_or_hole(b, partial);
        Value v = str_value(std::move(s), partial);
        v.pieces = std::move(a.pieces);
        add_pieces(v.pieces, b.pieces);
        return folded(std::move(v), a.decoded || b.decoded);
      }
      if (a.kind == K::BYTES && b.kind == K::BYTES) {
        a.text += b.text;
        a.partial = a.partial || b.partial;
        a.decoded = a.decoded || b.decoded;
        a.literal = 0;
        add_pieces(a.pieces, b.pieces);
        return folded(std::move(a), a.decoded);
      }
      if (a.kind == K::SEQ && b.kind == K::SEQ) {
        for (Value& v : b.items) a.items.push_back(std::move(v));
        return a;
      }
      return unknown();
    }
    if (op == "%" && a.kind == K::STR) return percent_format(a, b);
    if (op == "*") {
      if (a.kind == K::INT && b.kind == K::INT) {
        a.number *= b.number;
        return a;
      }
      if (a.kind == K::INT) std::swap(a, b);
      if ((a.kind == K::STR || a.kind == K::BYTES) && b.kind == K::INT && b.number >= 0 &&
          a.text.size() * static_cast<size_t>(b.number) <= kMaxFolded) {
        std::string s;
        for (int64_t i = 0; i < b.number; ++i) s += a.text;
        a.text = std::move(s);
        a.literal = 0;
        return folded(std::move(a), a.decoded);
      }
      return unknown();
    }
    if (a.kind == K::INT && b.kind == K::INT) {
      if (op == "-") return int_value(a.number - b.number);
      if (op == "//" && b.number != 0) return int_value(a.number / b.number);
      if (op == "<<" && b.number >= 0 && b.number < 62) return int_value(a.number << b.number);
      if (op == "|") return int_value(a.number | b.number);
      if (op == "&") return int_value(a.number & b.number);
      if (op == "^") return int_value(a.number ^ b.number);
    }
    if (op == "or") return alternatives({std::move(a), std::move(b)});
    return unknown();
  }

  static Value int_value(int64_t n) {
    Value v;
    v.kind = Value::Kind::INT;
    v.number = n;
    return v;
  }

  // Counts a folded string against the model's budget; over it, the value is UNKNOWN.
  Value folded(Value v, bool decoded) {
    v.decoded = decoded;
    v.literal = 0;
    if (v.text.size() > kMaxFolded) return unknown();
    m_.folded_bytes_ += v.text.size();
    if (m_.folded_bytes_ > kFoldBudget + 2 * m_.text_.size()) return unknown();
    return v;
  }

  Value percent_format(const Value& format, const Value& args) {
    std::vector<const Value*> items;
    if (args.kind == Value::Kind::SEQ) {
      for (const Value& v : args.items) items.push_back(&v);
    } else {
      items.push_back(&args);
    }
    std::string out;
    bool partial = format.partial;
    size_t next = 0;
    const std::string& f = format.text;
    for (size_t i = 0; i < f.size(); ++i) {
      if (f[i] != '%' || i + 1 >= f.size()) {
        out += f[i];
        continue;
      }
      if (f[i + 1] == '%') {
        out += '%';
        ++i;
        continue;
      }
      size_t j = i + 1;
      while (j < f.size() && is_one_of("0123456789.-+ #*", f[j])) ++j;
      if (j >= f.size()) break;
      const char conv = f[j];
      if (is_one_of("sdirxXuc", conv) && next < items.size()) {
        const Value& v = *items[next++];
        if (conv == 'c' && v.kind == Value::Kind::INT) {
          append_utf8(out, static_cast<uint32_t>(v.number));
        } else {
          out += text_or_hole(v, partial);
        }
      } else {
        out += "{?}";
        partial = true;
      }
      i = j;
    }
    Value v = str_value(std::move(out), partial);
    v.pieces = format.pieces;
    add_pieces(v.pieces, args.pieces);
    for (const Value& a : args.items) add_pieces(v.pieces, a.pieces);
    return folded(std::move(v), format.decoded);
  }

  Value primary() {
    uint32_t callee = pos_;
    Value v = atom();
    std::string_view last = last_;
    while (pos_ < end_) {
      if (m_.op(pos_, ".") && m_.is_name(pos_ + 1)) {
        const std::string_view attr = m_.name(pos_ + 1);
        const uint32_t name_token = pos_ + 1;
        if (facts_ != nullptr) {
          facts_->attributes.push_back({name_token, statement_, compact(v), attr});
        }
        v = attribute(std::move(v), attr);
        last = attr;
        pos_ += 2;
        continue;
      }
      if (m_.op(pos_, "(")) {
        v = call(std::move(v), last, callee, pos_);
        last = {};
        continue;
      }
      if (m_.op(pos_, "[")) {
        v = subscript(std::move(v), pos_);
        last = {};
        continue;
      }
      break;
    }
    last_ = last;
    (void)callee;
    return v;
  }

  Value atom() {
    last_ = {};
    const Token& t = m_.tokens_[pos_];
    switch (t.kind) {
      case TokenKind::NAME: {
        const std::string_view w = m_.txt(pos_);
        if (w == "None" || w == "True" || w == "False") {
          ++pos_;
          Value v;
          v.kind = w == "None" ? Value::Kind::NONE : Value::Kind::INT;
          v.number = w == "True" ? 1 : 0;
          return v;
        }
        if (w == "yield") {
          ++pos_;
          if (m_.keyword(pos_, "from")) ++pos_;
          if (pos_ < end_ && !is_stop()) (void)expression_list();
          return unknown();
        }
        const std::string_view name = m_.name(pos_);
        last_ = name;
        ++pos_;
        if (depth_ > kMaxDepth) return unknown();
        return m_.value_of_name(name, scope_, statement_);
      }
      case TokenKind::NUMBER: {
        const auto n = parse_int(m_.txt(pos_));
        ++pos_;
        return n ? int_value(*n) : unknown();
      }
      case TokenKind::STRING:
        return strings();
      case TokenKind::OP: {
        const std::string_view w = m_.txt(pos_);
        if (w == "(" || w == "[" || w == "{") return display(w[0]);
        if (w == "...") {
          ++pos_;
          Value v;
          v.kind = Value::Kind::NONE;
          return v;
        }
        ++pos_;
        // A '.' with nothing before it (a broken text): the name after it is an attribute of
        // nothing known, never a name of its own (`.id(x)` is no call of the builtin id).
        if (w == "." && pos_ < end_ && m_.is_name(pos_)) ++pos_;
        return unknown();
      }
      default:
        ++pos_;
        return unknown();
    }
  }

  // Adjacent string literals, concatenated.
  Value strings() {
    const uint32_t first = pos_;
    std::string text;
    bool partial = false;
    bool bytes = false;
    uint32_t count = 0;
    bool formatted = false;
    while (pos_ < end_ && m_.tokens_[pos_].kind == TokenKind::STRING) {
      const Token& t = m_.tokens_[pos_];
      bytes = (t.flags & kTokenBytes) != 0;
      if ((t.flags & kTokenFormat) != 0) {
        formatted = true;
        for (const FStringPart& part : python_fstring_parts(m_.text_, t)) {
          if (!part.field) {
            text += part.text;
            continue;
          }
          text += field_text(part.text, partial);
        }
      } else {
        append_python_string_value(m_.text_, t, text);
      }
      ++count;
      ++pos_;
      if (text.size() > kMaxFolded) return unknown();
    }
    Value v = str_value(std::move(text), partial);
    if (bytes) v.kind = Value::Kind::BYTES;
    if (count == 1 && !formatted) v.literal = first + 1;
    for (uint32_t k = first; k < first + count && v.pieces.size() < kMaxPieces; ++k) {
      v.pieces.push_back(k);
    }
    return v;
  }

  // The text of an f-string's replacement field: a name (or dotted name) bound to a constant.
  std::string field_text(std::string_view expr, bool& partial) {
    const size_t dot = expr.find('.');
    const std::string_view root = expr.substr(0, dot);
    bool simple = !root.empty();
    for (char c : expr) simple = simple && (is_ident_char(c) || c == '.');
    if (simple && dot == std::string_view::npos) {
      const Value& v = m_.value_of_name(root, scope_, statement_);
      return text_or_hole(v, partial);
    }
    partial = true;
    return "{?}";
  }

  static bool is_ident_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           static_cast<unsigned char>(c) >= 0x80;
  }

  // ( ... ), [ ... ], { ... }
  Value display(char open) {
    const uint32_t close = m_.closing(pos_);
    ExpressionReader inner = sub_range(pos_ + 1, close);
    pos_ = close + 1;
    if (inner.at_end()) {
      Value v;
      v.kind = open == '{' ? Value::Kind::DICT : Value::Kind::SEQ;
      return v;
    }
    if (open == '{') return inner.dict_or_set();
    Value first = inner.expression();
    if (inner.comprehension()) return unknown();
    if (open == '(' && inner.at_end()) return first;  // (x): x
    std::vector<Value> items;
    bool strings = is_string(first);
    items.push_back(std::move(first));
    size_t count = 1;
    while (!inner.at_end()) {
      if (m_.op(inner.pos_, ",")) ++inner.pos_;
      if (inner.at_end()) break;
      const uint32_t before = inner.pos_;
      Value item = inner.expression();
      strings = strings && is_string(item);
      if (keeps(++count, strings)) items.push_back(std::move(item));
      if (inner.pos_ == before) ++inner.pos_;
    }
    if (!keeps(count, strings)) return unknown();
    Value v;
    v.kind = Value::Kind::SEQ;
    v.items = std::move(items);
    return v;
  }

  // After a display's first item: `for` makes it a comprehension, whose rest is read for its
  // facts.
  bool comprehension() {
    if (!m_.keyword(pos_, "for") && !m_.keyword(pos_, "async")) return false;
    read_all();
    return true;
  }

  Value dict_or_set() {
    std::vector<Value> items;
    bool dict = false;
    bool too_many = false;
    while (!at_end()) {
      if (m_.op(pos_, "**")) {
        ++pos_;
        (void)expression();
        dict = true;
      } else {
        const uint32_t before = pos_;
        Value key = expression();
        if (comprehension()) return unknown();
        if (m_.op(pos_, ":")) {
          dict = true;
          ++pos_;
          Value value = expression();
          if (comprehension()) return unknown();
          if (items.size() < 2 * kMaxItems) {  // a dict: values of any kind
            items.push_back(std::move(key));
            items.push_back(std::move(value));
          } else {
            too_many = true;
          }
        } else if (items.size() < 2 * kMaxItems) {
          items.push_back(std::move(key));
        } else {
          too_many = true;
        }
        if (pos_ == before) ++pos_;
      }
      if (m_.op(pos_, ",")) {
        ++pos_;
      } else if (!at_end()) {
        ++pos_;
      }
    }
    if (too_many) return unknown();
    Value v;
    v.kind = dict ? Value::Kind::DICT : Value::Kind::SEQ;
    v.items = std::move(items);
    return v;
  }

  Value attribute(Value object, std::string_view name) {
    using K = Value::Kind;
    switch (object.kind) {
      case K::OBJECT:
        if (name == "__dict__") {
          object.kind = K::VARS;
          return object;
        }
        object.text += '.';
        object.text += name;
        return object;
      case K::STR:
      case K::BYTES: {
        Value m;
        m.kind = K::METHOD;
        m.text = std::string(name);
        m.items.push_back(std::move(object));
        return m;
      }
      case K::ANY_OF: {
        std::vector<Value> out;
        for (Value& v : object.items) out.push_back(attribute(std::move(v), name));
        return alternatives(std::move(out));
      }
      default:
        return unknown();
    }
  }

  Value subscript(Value object, uint32_t open) {
    const uint32_t close = m_.closing(open);
    ExpressionReader inner = sub_range(open + 1, close);
    pos_ = close + 1;
    // A slice: [::-1] reverses a string; any other is unknown.
    bool slice = false;
    for (uint32_t k = open + 1; k < close; ++k) {
      if (m_.op(k, ":") && m_.tokens_[k].depth == m_.tokens_[open].depth + 1) slice = true;
    }
    Value key;
    if (slice) {
      inner.read_all();
      const bool reverse = close == open + 5 && m_.op(open + 1, ":") && m_.op(open + 2, ":") &&
                           m_.op(open + 3, "-") && m_.txt(open + 4) == "1";
      if (reverse && (object.kind == Value::Kind::STR || object.kind == Value::Kind::BYTES) &&
          !object.partial) {
        std::reverse(object.text.begin(), object.text.end());
        object.literal = 0;
        return object;
      }
    } else {
      key = inner.expression_list();
      inner.read_all();
    }
    if (facts_ != nullptr) {
      facts_->items.push_back({open, statement_, compact(object), compact(key)});
    }
    if (slice) return unknown();
    return item(object, key);
  }

  static Value item(const Value& object, const Value& key) {
    using K = Value::Kind;
    if (object.kind == K::ANY_OF) {
      std::vector<Value> out;
      for (const Value& v : object.items) out.push_back(item(v, key));
      return alternatives(std::move(out));
    }
    if (object.kind == K::SEQ && key.kind == K::INT) {
      const int64_t n = static_cast<int64_t>(object.items.size());
      const int64_t i = key.number < 0 ? key.number + n : key.number;
      return i >= 0 && i < n ? object.items[static_cast<size_t>(i)] : unknown();
    }
    if (object.kind == K::DICT) {
      for (size_t i = 0; i + 1 < object.items.size(); i += 2) {
        const Value& k = object.items[i];
        if (k.kind == key.kind && k.text == key.text && k.number == key.number) {
          return object.items[i + 1];
        }
      }
      return unknown();
    }
    if (key.kind == K::STR && !key.partial) {
      if (object.kind == K::VARS) {
        return object_value(object.text.empty() ? key.text : object.text + "." + key.text);
      }
      if (object.kind == K::OBJECT && (object.text == "builtins")) {
        return object_value("builtins." + key.text);
      }
      if (object.kind == K::OBJECT && object.text == "sys.modules") return object_value(key.text);
    }
    if ((object.kind == K::STR || object.kind == K::BYTES) && key.kind == K::INT &&
        !object.partial) {
      const int64_t n = static_cast<int64_t>(object.text.size());
      const int64_t i = key.number < 0 ? key.number + n : key.number;
      if (i >= 0 && i < n) return str_value(std::string(1, object.text[static_cast<size_t>(i)]));
    }
    return unknown();
  }

  Value call(Value function, std::string_view last, uint32_t callee, uint32_t open) {
    const uint32_t close = m_.closing(open);
    std::vector<Arg> args;
    const uint16_t depth = m_.tokens_[open].depth;
    uint32_t b = open + 1;
    for (uint32_t k = open + 1; k <= close; ++k) {
      const bool boundary = k == close || (m_.op(k, ",") && m_.tokens_[k].depth == depth + 1);
      if (!boundary) continue;
      if (k > b) {
        Arg a;
        a.begin = b;
        a.end = k;
        uint32_t s = b;
        if (m_.op(s, "*")) {
          a.star = 1;
          ++s;
        } else if (m_.op(s, "**")) {
          a.star = 2;
          ++s;
        } else if (m_.is_name(s) && m_.op(s + 1, "=")) {
          a.keyword = m_.name(s);
          s += 2;
        }
        ExpressionReader r = sub_range(s, k);
        a.value = r.expression();
        if (r.comprehension()) a.value = unknown();
        r.read_all();
        args.push_back(std::move(a));
      }
      b = k + 1;
    }
    pos_ = close + 1;
    Value result = apply(function, args);
    if (facts_ != nullptr) {
      CallFact c;
      c.callee = callee;
      c.open = open;
      c.close = close;
      c.statement = statement_;
      c.function = compact(function);
      c.last = last;
      c.args = std::move(args);
      for (Arg& a : c.args) a.value = compact(a.value);
      facts_->calls.push_back(std::move(c));
    }
    return result;
  }

  // What calling `function` with `args` gives, as far as the builtins and the decoders go.
  Value apply(const Value& function, const std::vector<Arg>& args) {
    using K = Value::Kind;
    const auto arg = [&](size_t i) -> const Value* {
      size_t n = 0;
      for (const Arg& a : args) {
        if (!a.keyword.empty() || a.star != 0) continue;
        if (n++ == i) return &a.value;
      }
      return nullptr;
    };
    const auto kwarg = [&](std::string_view name) -> const Value* {
      for (const Arg& a : args) {
        if (a.keyword == name) return &a.value;
      }
      return nullptr;
    };
    if (function.kind == K::ANY_OF) {
      std::vector<Value> out;
      for (const Value& f : function.items) out.push_back(apply(f, args));
      return alternatives(std::move(out));
    }
    if (function.kind == K::METHOD && !function.items.empty()) {
      return string_method(function.text, function.items.front(), args);
    }
    if (function.kind != K::OBJECT) return unknown();
    const std::string& f = function.text;
    const Value* a0 = arg(0);
    const Value* a1 = arg(1);
    if (f == "builtins.getattr" && a0 != nullptr && a1 != nullptr && a1->kind == K::STR &&
        !a1->partial) {
      std::vector<Value> out;
      a0->each([&](const Value& o) {
        if (o.kind == K::OBJECT) out.push_back(object_value(o.text + "." + a1->text));
      });
      return alternatives(std::move(out));
    }
    if (f == "builtins.vars" && a0 != nullptr) {
      std::vector<Value> out;
      a0->each([&](const Value& o) {
        if (o.kind == K::OBJECT) {
          Value v = o;
          v.kind = K::VARS;
          out.push_back(std::move(v));
        }
      });
      return alternatives(std::move(out));
    }
    if ((f == "builtins.__import__" || f == "importlib.import_module" ||
         f == "importlib.__import__") &&
        a0 != nullptr && a0->kind == K::STR && !a0->partial) {
      return object_value(a0->text);
    }
    if (f == "builtins.compile" && a0 != nullptr) {
      Value c;
      c.kind = K::CODE;
      c.partial = a0->kind != K::STR || a0->partial;
      c.decoded = a0->decoded;
      c.text = a0->kind == K::STR ? a0->text : "";
      return c;
    }
    if (f == "builtins.chr" && a0 != nullptr && a0->kind == K::INT) {
      std::string s;
      append_utf8(s, static_cast<uint32_t>(a0->number));
      Value v = str_value(std::move(s));
      v.decoded = true;
      return v;
    }
    if (f == "builtins.str" && a0 != nullptr && (a0->kind == K::STR || a0->kind == K::INT)) {
      bool partial = false;
      return str_value(text_or_hole(*a0, partial), partial);
    }
    if ((f == "builtins.bytes" || f == "builtins.bytearray") && a0 != nullptr) {
      if (a0->kind == K::STR) {
        Value v = *a0;
        v.kind = K::BYTES;
        v.literal = 0;
        return v;
      }
      if (a0->kind == K::SEQ) {
        Value v;
        v.kind = K::BYTES;
        v.decoded = true;
        for (const Value& i : a0->items) {
          if (i.kind != K::INT) return decoded_unknown(K::BYTES);
          v.text += static_cast<char>(i.number & 0xFF);
        }
        return v;
      }
    }
    if (std::optional<Value> d = decoded(f, a0, a1 != nullptr ? a1 : kwarg("encoding"))) return *d;
    if (f == "functools.partial" && a0 != nullptr && a0->kind == K::FUNCTION) return *a0;
    // Any other call of a module's function or class: what it returns, by path.
    return object_value(f + "()");
  }

  // What decoder `f` (bytes.fromhex, base64, zlib, codecs.decode, ...) makes of its first
  // argument `a0` (codecs': in `encoding`): a literal decoded, anything else an unknown decoded
  // value; nullopt when `f` is no decoder.
  std::optional<Value> decoded(const std::string& f, const Value* a0, const Value* enc) {
    using K = Value::Kind;
    const auto text_arg = [&]() -> const Value* {
      return a0 != nullptr && (a0->kind == K::STR || a0->kind == K::BYTES) && !a0->partial
                 ? a0
                 : nullptr;
    };
    if (f == "builtins.bytes.fromhex" || f == "builtins.bytearray.fromhex" ||
        f == "binascii.unhexlify" || f == "binascii.a2b_hex" || f == "base64.b16decode") {
      if (const Value* t = text_arg()) {
        if (auto d = hex_decode(t->text)) return decoded_bytes(std::move(*d));
      }
      return decoded_unknown(K::BYTES);
    }
    if (f == "base64.b64decode" || f == "base64.standard_b64decode" || f == "base64.decodebytes" ||
        f == "base64.urlsafe_b64decode" || f == "binascii.a2b_base64" ||
        f == "base64.decodestring") {
      if (const Value* t = text_arg()) {
        if (auto d = base64_decode(t->text, f == "base64.urlsafe_b64decode")) {
          return decoded_bytes(std::move(*d));
        }
      }
      return decoded_unknown(K::BYTES);
    }
    if (f == "zlib.decompress" || f == "gzip.decompress") {
      if (const Value* t = text_arg()) {
        if (auto d = inflate_bytes(t->text)) return decoded_bytes(std::move(*d));
      }
      return decoded_unknown(K::BYTES);
    }
    if (f == "codecs.decode" || f == "codecs.encode") {
      const Value* t = text_arg();
      if (t != nullptr && enc != nullptr && enc->kind == K::STR) {
        const std::string& e = enc->text;
        if (e == "rot13" || e == "rot_13" || e == "rot-13") {
          Value v = str_value(rot13(t->text));
          v.decoded = true;
          return v;
        }
        if (e == "hex" || e == "hex_codec") {
          if (auto d = hex_decode(t->text)) return decoded_bytes(std::move(*d));
        }
        if (e == "base64" || e == "base64_codec") {
          if (auto d = base64_decode(t->text, false)) return decoded_bytes(std::move(*d));
        }
        if (e == "zlib" || e == "zlib_codec") {
          if (auto d = inflate_bytes(t->text)) return decoded_bytes(std::move(*d));
        }
      }
      return decoded_unknown(K::STR);
    }
    if (f.starts_with("base64.") || f.starts_with("lzma.") || f.starts_with("bz2.") ||
        f == "marshal.loads" || f.starts_with("binascii.a2b") || f == "pickle.loads") {
      return decoded_unknown(K::BYTES);
    }
    return std::nullopt;
  }

  Value decoded_bytes(std::string bytes) {
    Value v;
    v.kind = Value::Kind::BYTES;
    v.text = std::move(bytes);
    return folded(std::move(v), true);
  }
  static Value decoded_unknown(Value::Kind kind) {
    Value v;
    v.kind = kind;
    v.partial = true;
    v.decoded = true;
    v.text = "{?}";
    return v;
  }

  Value string_method(std::string_view method, const Value& s, const std::vector<Arg>& args) {
    using K = Value::Kind;
    std::vector<const Value*> positional;
    for (const Arg& a : args) {
      if (a.keyword.empty() && a.star == 0) positional.push_back(&a.value);
    }
    if (method == "join" && !positional.empty()) {
      const Value& seq = *positional.front();
      if (seq.kind != K::SEQ) return str_value("{?}", true);
      bool partial = s.partial;
      std::string out;
      for (size_t i = 0; i < seq.items.size(); ++i) {
        if (i > 0) out += s.text;
        out += text_or_hole(seq.items[i], partial);
        if (out.size() > kMaxFolded) return unknown();
      }
      Value v = str_value(std::move(out), partial);
      if (s.kind == K::BYTES) v.kind = K::BYTES;
      v.pieces = s.pieces;
      for (const Value& item : seq.items) add_pieces(v.pieces, item.pieces);
      return folded(std::move(v), s.decoded);
    }
    if (method == "replace" && positional.size() >= 2) {
      const Value& from = *positional[0];
      const Value& to = *positional[1];
      if (from.kind != s.kind || to.kind != s.kind || from.partial || to.partial ||
          from.text.empty()) {
        Value v = s;
        v.partial = true;
        v.literal = 0;
        return v;
      }
      std::string out;
      size_t at = 0;
      for (size_t found = s.text.find(from.text); found != std::string::npos;
           found = s.text.find(from.text, at)) {
        out.append(s.text, at, found - at);
        out += to.text;
        at = found + from.text.size();
        if (out.size() > kMaxFolded) return unknown();
      }
      out.append(s.text, at);
      Value v = s;
      v.text = std::move(out);
      add_pieces(v.pieces, to.pieces);
      return folded(std::move(v), s.decoded);
    }
    if (method == "format") return brace_format(s, args);
    if (method == "lower" || method == "upper" || method == "strip" || method == "lstrip" ||
        method == "rstrip" || method == "casefold") {
      Value v = s;
      v.literal = 0;
      if (method == "lower" || method == "casefold") {
        for (char& c : v.text) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
      } else if (method == "upper") {
        for (char& c : v.text) c = (c >= 'a' && c <= 'z') ? static_cast<char>(c - 32) : c;
      } else if (positional.empty()) {
        const auto blank = [](char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; };
        size_t b = 0;
        size_t e = v.text.size();
        if (method != "rstrip") {
          while (b < e && blank(v.text[b])) ++b;
        }
        if (method != "lstrip") {
          while (e > b && blank(v.text[e - 1])) --e;
        }
        v.text = v.text.substr(b, e - b);
      }
      return v;
    }
    if (method == "encode" && s.kind == K::STR) {
      Value v = s;
      v.kind = K::BYTES;
      v.literal = 0;
      return v;
    }
    if (method == "decode" && s.kind == K::BYTES) {
      Value v = s;
      v.kind = K::STR;
      v.literal = 0;
      return v;
    }
    return unknown();
  }

  Value brace_format(const Value& s, const std::vector<Arg>& args) {
    std::vector<const Arg*> positional;
    for (const Arg& a : args) {
      if (a.keyword.empty() && a.star == 0) positional.push_back(&a);
    }
    std::string out;
    bool partial = s.partial;
    size_t auto_index = 0;
    const std::string& f = s.text;
    for (size_t i = 0; i < f.size(); ++i) {
      const char c = f[i];
      if ((c == '{' || c == '}') && i + 1 < f.size() && f[i + 1] == c) {
        out += c;
        ++i;
        continue;
      }
      if (c != '{') {
        out += c;
        continue;
      }
      const size_t close = f.find('}', i);
      if (close == std::string::npos) {
        out.append(f, i);
        break;
      }
      std::string_view field(f.data() + i + 1, close - i - 1);
      field = field.substr(0, field.find_first_of("!:"));
      const Value* v = nullptr;
      if (field.empty()) {
        if (auto_index < positional.size()) v = &positional[auto_index++]->value;
      } else if (field[0] >= '0' && field[0] <= '9') {
        const size_t n = static_cast<size_t>(std::atoi(std::string(field).c_str()));
        if (n < positional.size()) v = &positional[n]->value;
      } else {
        for (const Arg& a : args) {
          if (a.keyword == field) v = &a.value;
        }
      }
      if (v != nullptr) {
        out += text_or_hole(*v, partial);
      } else {
        out += "{?}";
        partial = true;
      }
      i = close;
    }
    Value v = str_value(std::move(out), partial);
    v.pieces = s.pieces;
    for (const Arg& a : args) add_pieces(v.pieces, a.value.pieces);
    return folded(std::move(v), s.decoded);
  }

  const PythonModel& m_;
  uint32_t scope_;
  uint32_t statement_;
  uint32_t pos_;
  uint32_t end_;
  Facts* facts_;
  int depth_;
  std::string_view last_;  // the last name of the primary read last

 public:
  // For eval's callers: the reader's position after reading.
  friend class PythonModel;
};

PythonModel::PythonModel(std::string_view text, PythonLexStart start, ModelParts parts)
    : text_(text) {
  lex(start);
  split_statements();
  build_scopes();
  if (parts == ModelParts::STRUCTURE) return;
  collect_bindings();
  index_bindings();
}

namespace {

// The storage of the last model a thread built, reused by its next (the pages of a fresh buffer
// cost more than filling it): a code's tokens take about 3.5 bytes per byte, and most codes are
// tens of kilobytes. A buffer larger than kKeptTokens is freed, not kept.
struct Spare {
  std::vector<Token> tokens;
  std::vector<uint32_t> match;
  std::vector<Statement> statements;
  std::vector<Binding> bindings;
  std::vector<uint32_t> by_name;
};
thread_local Spare spare;
constexpr size_t kKeptTokens = size_t{1} << 20;

}  // namespace

PythonModel::~PythonModel() {
  if (tokens_.capacity() <= kKeptTokens && tokens_.capacity() > spare.tokens.capacity()) {
    spare.tokens = std::move(tokens_);
    spare.match = std::move(match_);
    spare.statements = std::move(statements_);
    spare.bindings = std::move(bindings_);
    spare.by_name = std::move(by_name_);
  }
}

void PythonModel::lex(PythonLexStart start) {
  tokens_ = std::move(spare.tokens);
  match_ = std::move(spare.match);
  statements_ = std::move(spare.statements);
  statements_.clear();
  bindings_ = std::move(spare.bindings);
  bindings_.clear();
  by_name_ = std::move(spare.by_name);
  by_name_.clear();  // a STRUCTURE model has no bindings: lookup finds nothing
  tokenize_python_range(text_, start, static_cast<uint32_t>(text_.size()), tokens_, Comments::DROP);
  for (uint32_t k = 0; k < tokens_.size(); ++k) {
    if ((tokens_[k].flags & kTokenNonAscii) == 0) continue;
    std::string folded;
    append_nfkc_identifier(folded, token_text(text_, tokens_[k]));
    if (folded == token_text(text_, tokens_[k])) continue;
    owned_.push_back(std::move(folded));
    folded_names_.emplace(k, owned_.back());
  }
  // Matching brackets.
  match_.assign(tokens_.size(), kNoIndex);
  std::vector<uint32_t> open;
  for (uint32_t k = 0; k < tokens_.size(); ++k) {
    const Token& t = tokens_[k];
    if (t.kind == TokenKind::NEWLINE) {
      for (uint32_t o : open) match_[o] = k;  // left open: to the statement's end
      open.clear();
      continue;
    }
    if (t.kind != TokenKind::OP || t.end - t.begin != 1) continue;
    const char c = text_[t.begin];
    if (c == '(' || c == '[' || c == '{') {
      open.push_back(k);
    } else if ((c == ')' || c == ']' || c == '}') && !open.empty()) {
      match_[open.back()] = k;
      open.pop_back();
    }
  }
  for (uint32_t o : open) match_[o] = static_cast<uint32_t>(tokens_.size());
}

// The name of NAME token k holding non-ASCII bytes: NFKC-normalised when that changes it.
std::string_view PythonModel::folded_name(uint32_t k) const {
  const auto it = folded_names_.find(k);
  if (it != folded_names_.end()) return it->second;
  return token_text(text_, tokens_[k]);
}

uint32_t PythonModel::closing(uint32_t k) const {
  if (k < match_.size() && match_[k] != kNoIndex) return match_[k];
  return std::min<uint32_t>(k + 1, static_cast<uint32_t>(tokens_.size()));
}

uint32_t PythonModel::statement_of(uint32_t k) const {
  const auto it = std::upper_bound(statements_.begin(), statements_.end(), k,
                                   [](uint32_t t, const Statement& s) { return t < s.begin; });
  if (it == statements_.begin()) return 0;
  return static_cast<uint32_t>(it - statements_.begin() - 1);
}

std::string_view PythonModel::line_text(uint32_t k) const {
  if (k >= tokens_.size()) return {};
  size_t b = tokens_[k].begin;
  while (b > 0 && text_[b - 1] != '\n') --b;
  size_t e = tokens_[k].begin;
  while (e < text_.size() && text_[e] != '\n') ++e;
  std::string_view s = text_.substr(b, e - b);
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == '\r')) s.remove_suffix(1);
  return s;
}

void PythonModel::split_statements() {
  const uint32_t n = static_cast<uint32_t>(tokens_.size());
  uint32_t k = 0;
  // The indentation of the logical line being read (a body after a header's ':' is deeper).
  while (k < n) {
    if (tokens_[k].kind == TokenKind::NEWLINE) {
      ++k;
      continue;
    }
    const uint32_t line_indent = python_indent(text_, tokens_[k]);
    uint32_t indent = line_indent;
    // The logical line: to its NEWLINE.
    uint32_t line_end = k;
    while (line_end < n && tokens_[line_end].kind != TokenKind::NEWLINE) ++line_end;
    uint32_t s = k;
    while (s < line_end) {
      Statement st;
      st.begin = s;
      st.indent = indent;
      // A compound header ends at its ':'; a simple statement at ';' or the line's end.
      const std::string_view first = txt(s);
      uint32_t head = s;
      if (first == "async" && s + 1 < line_end) head = s + 1;
      const bool compound = tokens_[head].kind == TokenKind::NAME &&
                            is_compound_keyword(txt(head)) && !(txt(head) == "else" && false);
      if (tokens_[s].kind == TokenKind::OP && first == "@") {
        st.kind = StatementKind::DECORATOR;
      } else if (compound) {
        st.kind = compound_kind(txt(head));
      } else if (first == "return") {
        st.kind = StatementKind::RETURN;
      } else if (first == "import" || (first == "from" && tokens_[s].kind == TokenKind::NAME)) {
        st.kind = StatementKind::IMPORT;
      } else if (first == "global" || first == "nonlocal") {
        st.kind = StatementKind::GLOBAL;
      }
      uint32_t e = s;
      int lambdas = 0;
      bool header_done = false;
      for (; e < line_end; ++e) {
        const Token& t = tokens_[e];
        if (t.depth != 0) continue;
        if (t.kind == TokenKind::NAME && txt(e) == "lambda") ++lambdas;
        if (t.kind != TokenKind::OP) continue;
        const std::string_view w = txt(e);
        if (w == ";" && !compound) break;
        if (w == ":" && compound) {
          if (lambdas > 0) {
            --lambdas;
            continue;
          }
          header_done = true;
          break;
        }
      }
      st.end = e;
      st.colon = compound && header_done ? e : e;
      statements_.push_back(st);
      if (compound && header_done) {
        // A body on the header's line is deeper than the header.
        s = e + 1;
        indent = indent + 1;
        continue;
      }
      s = e + (e < line_end ? 1 : 0);  // past the ';'
    }
    k = line_end + 1;
  }
  // Blocks: a compound statement's body runs while the statements are deeper than it.
  std::vector<uint32_t> stack;
  for (uint32_t i = 0; i < statements_.size(); ++i) {
    while (!stack.empty() && statements_[i].indent <= statements_[stack.back()].indent) {
      statements_[stack.back()].block_end = i;
      stack.pop_back();
    }
    statements_[i].block_end = i + 1;
    const StatementKind kind = statements_[i].kind;
    const bool compound = kind != StatementKind::SIMPLE && kind != StatementKind::RETURN &&
                          kind != StatementKind::IMPORT && kind != StatementKind::GLOBAL &&
                          kind != StatementKind::DECORATOR;
    if (compound) stack.push_back(i);
  }
  while (!stack.empty()) {
    statements_[stack.back()].block_end = static_cast<uint32_t>(statements_.size());
    stack.pop_back();
  }
}

void PythonModel::build_scopes() {
  Scope module;
  module.first = 0;
  module.end = static_cast<uint32_t>(statements_.size());
  scopes_.push_back(module);
  // (scope, end statement) of the open function and class bodies.
  std::vector<std::pair<uint32_t, uint32_t>> stack = {{0, module.end}};
  for (uint32_t i = 0; i < statements_.size(); ++i) {
    while (stack.size() > 1 && i >= stack.back().second) stack.pop_back();
    Statement& st = statements_[i];
    st.scope = stack.back().first;
    if (st.kind != StatementKind::DEF && st.kind != StatementKind::CLASS) continue;
    uint32_t k = st.begin;
    if (keyword(k, "async")) ++k;
    ++k;  // def / class
    if (!is_name(k)) continue;
    Scope s;
    s.parent = st.scope;
    s.statement = i;
    s.first = i + 1;
    s.end = std::max(st.block_end, i + 1);
    s.name = name(k);
    s.is_class = st.kind == StatementKind::CLASS;
    if (!s.is_class && op(k + 1, "(")) {
      const uint32_t close = closing(k + 1);
      const uint16_t depth = tokens_[k + 1].depth + 1;
      bool at_param = true;
      uint8_t star = 0;
      for (uint32_t p = k + 2; p < close; ++p) {
        if (tokens_[p].depth != depth) continue;
        if (op(p, ",")) {
          at_param = true;
          star = 0;
        } else if (at_param && op(p, "*")) {
          star = 1;
        } else if (at_param && op(p, "**")) {
          star = 2;
        } else if (at_param && is_name(p)) {
          s.params.push_back({name(p), p, star});
          at_param = false;
        } else {
          at_param = false;
        }
      }
    }
    scopes_.push_back(std::move(s));
    stack.emplace_back(static_cast<uint32_t>(scopes_.size() - 1), scopes_.back().end);
  }
}

// The names an import statement binds, and the modules it imports (imported_).
void PythonModel::import_bindings(const Statement& st, const Binding& base) {
  uint32_t k = st.begin;
  if (keyword(k, "import")) {
    ++k;
    while (k < st.end && is_name(k)) {
      std::string path(name(k));
      const uint32_t root = k;
      ++k;
      while (op(k, ".") && is_name(k + 1)) {
        path += '.';
        path += name(k + 1);
        k += 2;
      }
      imported_.push_back(path);
      Binding b = base;
      b.kind = Binding::Kind::IMPORT;
      if (keyword(k, "as") && is_name(k + 1)) {
        b.name = name(k + 1);
        b.target = k + 1;
        b.path = path;
        k += 2;
      } else {
        b.name = name(root);
        b.target = root;
        b.path = std::string(name(root));
      }
      bindings_.push_back(std::move(b));
      if (!op(k, ",")) break;
      ++k;
    }
  } else {
    ++k;  // from
    std::string module;
    while (k < st.end && (op(k, ".") || op(k, "..."))) {
      module += txt(k);
      ++k;
    }
    if (is_name(k) && !keyword(k, "import")) {
      module += name(k);
      ++k;
      while (op(k, ".") && is_name(k + 1)) {
        module += '.';
        module += name(k + 1);
        k += 2;
      }
    }
    imported_.push_back(module);
    if (!keyword(k, "import")) return;
    ++k;
    if (op(k, "(")) ++k;
    while (k < st.end && is_name(k)) {
      Binding b = base;
      b.kind = Binding::Kind::IMPORT;
      b.path = module.empty() || module.back() == '.' ? module + std::string(name(k))
                                                      : module + "." + std::string(name(k));
      b.name = name(k);
      b.target = k;
      if (keyword(k + 1, "as") && is_name(k + 2)) {
        b.name = name(k + 2);
        b.target = k + 2;
        k += 3;
      } else {
        ++k;
      }
      bindings_.push_back(std::move(b));
      if (!op(k, ",")) break;
      ++k;
    }
  }
}

// The names a simple statement binds: targets = ... = value, an annotated target, an augmented
// name.
void PythonModel::assignment_bindings(const Statement& st, const Binding& base) {
  const AssignmentShape shape = assignment_shape(st);
  if (shape.augmented != kNoIndex) {
    if (is_name(st.begin) && st.begin + 1 == shape.augmented) {
      Binding b = base;
      b.kind = Binding::Kind::AUGMENT;
      b.name = name(st.begin);
      b.target = st.begin;
      b.value_begin = shape.augmented + 1;
      b.value_end = st.end;
      bindings_.push_back(std::move(b));
    }
  } else if (!shape.equals.empty()) {
    Binding b = base;
    b.kind = Binding::Kind::ASSIGN;
    b.value_begin = shape.equals.back() + 1;
    b.value_end = st.end;
    uint32_t target = st.begin;
    for (uint32_t e : shape.equals) {
      const uint32_t target_end =
          shape.annotation != kNoIndex && shape.annotation < e ? shape.annotation : e;
      add_target_bindings(target, target_end, b);
      target = e + 1;
    }
  }
}

PythonModel::AssignmentShape PythonModel::assignment_shape(const Statement& st) const {
  AssignmentShape shape;
  for (uint32_t k = st.begin; k < st.end; ++k) {
    const Token& t = tokens_[k];
    if (t.depth != 0) continue;
    if (t.kind == TokenKind::NAME && txt(k) == "lambda") break;
    if (t.kind != TokenKind::OP) continue;
    const std::string_view w = txt(k);
    if (w == "=") {
      shape.equals.push_back(k);
    } else if (w == ":" && shape.equals.empty() && shape.annotation == kNoIndex) {
      shape.annotation = k;
    } else if (w.size() >= 2 && w.back() == '=' && w != "==" && w != "!=" && w != "<=" &&
               w != ">=" && w != ":=" && shape.equals.empty()) {
      shape.augmented = k;
      break;
    }
  }
  return shape;
}

// Walrus targets anywhere in the statement (a comprehension's bind in the enclosing scope).
void PythonModel::walrus_bindings(const Statement& st, const Binding& base) {
  for (uint32_t k = st.begin; k + 1 < st.end; ++k) {
    if (!is_name(k) || !op(k + 1, ":=")) continue;
    Binding b = base;
    b.kind = Binding::Kind::WALRUS;
    b.name = name(k);
    b.target = k;
    b.value_begin = k + 2;
    uint32_t e = k + 2;
    const uint16_t depth = tokens_[k].depth;
    const uint32_t limit = std::min<uint32_t>(st.end, k + 4096);
    while (e < limit &&
           !(tokens_[e].depth == depth && (op(e, ",") || op(e, ")") || op(e, "]") || op(e, "}")))) {
      if (tokens_[e].depth < depth) break;
      ++e;
    }
    b.value_end = e;
    bindings_.push_back(std::move(b));
  }
}

void PythonModel::collect_bindings() {
  const auto add = [&](Binding b) { bindings_.push_back(std::move(b)); };
  // The scope each def / class statement opens.
  std::vector<uint32_t> scope_of_statement(statements_.size(), kNoIndex);
  for (uint32_t s = 1; s < scopes_.size(); ++s) scope_of_statement[scopes_[s].statement] = s;
  for (uint32_t i = 0; i < statements_.size(); ++i) {
    const Statement& st = statements_[i];
    Binding base;
    base.scope = st.scope;
    base.statement = i;
    switch (st.kind) {
      case StatementKind::IMPORT:
        import_bindings(st, base);
        break;
      case StatementKind::DEF:
      case StatementKind::CLASS: {
        const uint32_t s = scope_of_statement[i];
        if (s == kNoIndex) break;
        uint32_t k = st.begin + (keyword(st.begin, "async") ? 2 : 1);
        Binding b = base;
        b.kind = st.kind == StatementKind::DEF ? Binding::Kind::DEF : Binding::Kind::CLASS;
        b.name = scopes_[s].name;
        b.target = k;
        b.number = s;
        add(std::move(b));
        for (uint32_t p = 0; p < scopes_[s].params.size(); ++p) {
          Binding pb;
          pb.kind = Binding::Kind::PARAM;
          pb.scope = s;
          pb.statement = i;
          pb.name = scopes_[s].params[p].name;
          pb.target = scopes_[s].params[p].token;
          pb.number = p;
          add(std::move(pb));
        }
        break;
      }
      case StatementKind::GLOBAL:
        for (uint32_t k = st.begin + 1; k < st.end; ++k) {
          if (is_name(k)) scopes_[st.scope].globals.push_back(name(k));
        }
        break;
      case StatementKind::FOR: {
        uint32_t in = st.begin + 1;
        while (in < st.colon && !(keyword(in, "in") && tokens_[in].depth == 0)) ++in;
        if (in >= st.colon) break;
        Binding b = base;
        b.kind = Binding::Kind::FOR;
        b.value_begin = in + 1;
        b.value_end = st.colon;
        add_target_bindings(st.begin + 1, in, b);
        break;
      }
      case StatementKind::WITH: {
        uint32_t item = st.begin + 1;
        for (uint32_t k = st.begin + 1; k <= st.colon; ++k) {
          const bool boundary = k == st.colon || (op(k, ",") && tokens_[k].depth == 0);
          if (!boundary) continue;
          for (uint32_t a = item; a < k; ++a) {
            if (keyword(a, "as") && tokens_[a].depth == 0) {
              Binding b = base;
              b.kind = Binding::Kind::WITH;
              b.value_begin = item;
              b.value_end = a;
              add_target_bindings(a + 1, k, b);
              break;
            }
          }
          item = k + 1;
        }
        break;
      }
      case StatementKind::SIMPLE:
        assignment_bindings(st, base);
        break;
      default:
        break;
    }
    walrus_bindings(st, base);
  }
  binding_values_.resize(bindings_.size());
  binding_state_.assign(bindings_.size(), 0);
}

// The names a target binds: `a`, `a, b`, `(a, [b, *c])`; attributes and items bind none.
void PythonModel::add_target_bindings(uint32_t begin, uint32_t end, Binding base) {
  if (begin >= end) return;
  const auto level = [&](uint32_t element) {
    uint32_t n = 0;
    while (element != 0) {
      ++n;
      element >>= 10;
    }
    return n;
  };
  // The parts at the range's own depth, split by commas.
  const uint16_t depth = tokens_[begin].depth;
  std::vector<std::pair<uint32_t, uint32_t>> parts;
  uint32_t b = begin;
  bool comma = false;
  for (uint32_t k = begin; k <= end; ++k) {
    if (k == end || (op(k, ",") && tokens_[k].depth == depth)) {
      if (k > b) parts.emplace_back(b, k);
      comma = comma || k < end;
      b = k + 1;
    }
  }
  const uint32_t lvl = level(base.element);
  for (size_t i = 0; i < parts.size(); ++i) {
    auto [pb, pe] = parts[i];
    Binding b2 = base;
    if (comma && lvl < 3) b2.element = base.element | (static_cast<uint32_t>(i + 1) << (10 * lvl));
    if (comma && lvl >= 3) b2.starred = true;  // too deep to follow
    if (op(pb, "*")) {
      b2.starred = true;
      ++pb;
    }
    if (pe == pb + 1 && is_name(pb)) {
      b2.name = name(pb);
      b2.target = pb;
      bindings_.push_back(std::move(b2));
      continue;
    }
    if ((op(pb, "(") || op(pb, "[")) && closing(pb) == pe - 1) {
      add_target_bindings(pb + 1, pe - 1, b2);
    }
  }
}

void PythonModel::index_bindings() {
  by_name_.resize(bindings_.size());
  for (uint32_t b = 0; b < by_name_.size(); ++b) by_name_[b] = b;
  // By scope, then name (shorter first: most names differ in length and are never compared
  // byte by byte); bindings are collected in statement order, and the index breaks ties by it.
  std::sort(by_name_.begin(), by_name_.end(), [&](uint32_t x, uint32_t y) {
    const Binding& a = bindings_[x];
    const Binding& b = bindings_[y];
    if (a.scope != b.scope) return a.scope < b.scope;
    if (a.name.size() != b.name.size()) return a.name.size() < b.name.size();
    if (const int c = a.name.compare(b.name); c != 0) return c < 0;
    return x < y;
  });
}

std::span<const uint32_t> PythonModel::lookup(std::string_view n, uint32_t scope,
                                              uint32_t at) const {
  // Of a name bound many times, the last few bindings stand for it.
  constexpr size_t kMostBindings = 8;
  const auto last_few = [&](std::span<const uint32_t> list) {
    const size_t from = list.size() > kMostBindings ? list.size() - kMostBindings : 0;
    return list.subspan(from);
  };
  // The bindings of (s, n): a run of by_name_.
  const auto bound_in = [&](uint32_t in) {
    const auto less = [&](uint32_t b, const std::pair<uint32_t, std::string_view>& key) {
      const Binding& x = bindings_[b];
      if (x.scope != key.first) return x.scope < key.first;
      if (x.name.size() != key.second.size()) return x.name.size() < key.second.size();
      return x.name < key.second;
    };
    const auto greater = [&](const std::pair<uint32_t, std::string_view>& key, uint32_t b) {
      const Binding& x = bindings_[b];
      if (x.scope != key.first) return key.first < x.scope;
      if (x.name.size() != key.second.size()) return key.second.size() < x.name.size();
      return key.second < x.name;
    };
    const std::pair<uint32_t, std::string_view> key(in, n);
    const auto lo = std::lower_bound(by_name_.begin(), by_name_.end(), key, less);
    const auto hi = std::upper_bound(lo, by_name_.end(), key, greater);
    return std::span<const uint32_t>(by_name_.data() + (lo - by_name_.begin()),
                                     static_cast<size_t>(hi - lo));
  };
  if (scope >= scopes_.size()) scope = 0;
  uint32_t s = scope;
  const auto& globals = scopes_[s].globals;
  const bool global = std::find(globals.begin(), globals.end(), n) != globals.end();
  if (global) s = 0;
  bool first = !global;
  while (s != kNoIndex) {
    const std::span<const uint32_t> list = bound_in(s);
    if (!list.empty()) {
      if (first) {
        // The last binding of a statement before `at` (the list is in statement order).
        const auto before =
            std::lower_bound(list.begin(), list.end(), at,
                             [&](uint32_t b, uint32_t a) { return bindings_[b].statement < a; });
        if (before != list.begin()) {
          return std::span<const uint32_t>(&*(before - 1), 1);
        }
        if (s != 0 && !scopes_[s].is_class) return last_few(list);  // a local bound later
      } else {
        return last_few(list);
      }
    }
    // Enclosing scopes; a function does not see its class's names.
    const bool from_function = !scopes_[s].is_class;
    s = scopes_[s].parent;
    while (s != kNoIndex && s != 0 && scopes_[s].is_class && from_function) s = scopes_[s].parent;
    first = false;
  }
  return {};
}

const Value& PythonModel::value_of_name(std::string_view n, uint32_t scope, uint32_t at) const {
  static const Value kUnknown;
  const std::span<const uint32_t> found = lookup(n, scope, at);
  if (found.empty()) {
    if (n != "__builtins__" && !is_builtin(n)) return kUnknown;
    auto [it, added] = builtin_values_.try_emplace(n);
    if (added)
      it->second = object_value(n == "__builtins__" ? "builtins" : "builtins." + std::string(n));
    return it->second;
  }
  if (found.size() == 1) return value_of_binding(found.front());
  const auto cached = alternatives_.find(found.data());
  if (cached != alternatives_.end() && cached->second.first == found.size()) {
    return cached->second.second;
  }
  std::vector<Value> values;
  for (uint32_t b : found) values.push_back(value_of_binding(b));
  Value v = alternatives(std::move(values));
  auto& slot = alternatives_[found.data()];
  slot = {found.size(), std::move(v)};
  return slot.second;
}

const std::string& PythonModel::object_path(std::string_view n, uint32_t scope, uint32_t at) const {
  static const std::string kNone;
  static thread_local std::string builtin;
  const std::span<const uint32_t> found = lookup(n, scope, at);
  if (found.empty()) {
    if (n == "__builtins__") {
      builtin = "builtins";
      return builtin;
    }
    if (!is_builtin(n)) return kNone;
    builtin = "builtins." + std::string(n);
    return builtin;
  }
  // Of several bindings, the last that is an object.
  for (auto it = found.rbegin(); it != found.rend(); ++it) {
    const std::string& p = object_path_of_binding(*it);
    if (!p.empty()) return p;
  }
  return kNone;
}

const std::string& PythonModel::object_path_of_binding(uint32_t b) const {
  static const std::string kNone;
  if (b >= bindings_.size()) return kNone;
  if (binding_paths_.empty()) {
    binding_paths_.resize(bindings_.size());
    binding_path_state_.assign(bindings_.size(), 0);
  }
  if (binding_path_state_[b] == 2) return binding_paths_[b];
  if (binding_path_state_[b] == 1) return kNone;
  binding_path_state_[b] = 1;
  const Binding& binding = bindings_[b];
  std::string path;
  switch (binding.kind) {
    case Binding::Kind::IMPORT:
      path = binding.path;
      break;
    case Binding::Kind::ASSIGN:
    case Binding::Kind::WALRUS:
    case Binding::Kind::WITH: {
      const auto [vb, ve] = value_tokens(binding);
      if (vb == ve || !is_name(vb)) break;  // a literal, a display, an element not written out
      // NAME(.NAME)*: the root's path and the parts.
      uint32_t k = vb + 1;
      while (op(k, ".") && is_name(k + 1)) k += 2;
      if (k == ve) {
        std::string root = object_path(name(vb), binding.scope, binding.statement);
        if (!root.empty()) {
          for (uint32_t j = vb + 2; j < ve; j += 2) {
            root += '.';
            root += name(j);
          }
          path = std::move(root);
        }
        break;
      }
      // A call of an object (getattr(m, "x"), importlib.import_module("m"), a class): worked out.
      if (!object_path(name(vb), binding.scope, binding.statement).empty()) {
        value_of_binding(b).each([&](const Value& v) {
          if (path.empty() && v.kind == Value::Kind::OBJECT) path = v.text;
        });
      }
      break;
    }
    case Binding::Kind::FOR:
      value_of_binding(b).each([&](const Value& v) {
        if (path.empty() && v.kind == Value::Kind::OBJECT) path = v.text;
      });
      break;
    default:
      break;
  }
  binding_paths_[b] = std::move(path);
  binding_path_state_[b] = 2;
  return binding_paths_[b];
}

const Value& PythonModel::value_of_binding(uint32_t b) const {
  static const Value kUnknown;
  if (b >= bindings_.size()) return kUnknown;
  if (binding_state_[b] == 2) return *binding_values_[b];
  if (binding_state_[b] == 1) return kUnknown;  // a cycle
  // A chain of names each bound to the next: followed kMaxDepth deep.
  thread_local int depth = 0;
  if (depth > kMaxDepth / 4) return kUnknown;
  ++depth;
  binding_state_[b] = 1;
  const Binding& binding = bindings_[b];
  Value v;
  switch (binding.kind) {
    case Binding::Kind::IMPORT:
      v = object_value(binding.path);
      break;
    case Binding::Kind::DEF:
    case Binding::Kind::CLASS:
      v.kind = Value::Kind::FUNCTION;
      v.number = binding.number;
      break;
    case Binding::Kind::PARAM:
      break;
    case Binding::Kind::ASSIGN:
    case Binding::Kind::WALRUS:
    case Binding::Kind::WITH:
      v = binding.starred ? unknown()
                          : select_element(eval(binding.value_begin, binding.value_end,
                                                binding.scope, binding.statement),
                                           binding.element);
      break;
    case Binding::Kind::AUGMENT: {
      const Value before = value_of_name(binding.name, binding.scope, binding.statement);
      Value rhs = eval(binding.value_begin, binding.value_end, binding.scope, binding.statement);
      if (op(binding.target + 1, "+=")) {
        ExpressionReader r(*this, binding.scope, binding.statement, 0, 0, nullptr, 0);
        v = r.combine("+", before, std::move(rhs));
      }
      break;
    }
    case Binding::Kind::FOR:
      v = binding.starred ? unknown()
                          : select_element(item_of(eval(binding.value_begin, binding.value_end,
                                                        binding.scope, binding.statement)),
                                           binding.element);
      break;
  }
  --depth;
  binding_values_[b] = std::make_unique<Value>(std::move(v));
  binding_state_[b] = 2;
  return *binding_values_[b];
}

Value PythonModel::eval(uint32_t begin, uint32_t end, uint32_t scope, uint32_t at) const {
  ExpressionReader r(*this, scope, at, begin, end, nullptr, 0);
  return r.expression_list();
}

PythonModel::Dotted PythonModel::dotted(uint32_t k) const { return dotted(k, statement_of(k)); }

PythonModel::Dotted PythonModel::dotted(uint32_t k, uint32_t st) const {
  Dotted d;
  d.end = k + 1;
  d.last = name(k);
  const uint32_t scope = st < statements_.size() ? statements_[st].scope : 0;
  std::string path = object_path(name(k), scope, st);
  uint32_t e = k + 1;
  while (op(e, ".") && is_name(e + 1)) {
    if (!path.empty()) {
      path += '.';
      path += name(e + 1);
    }
    d.last = name(e + 1);
    e += 2;
  }
  d.end = e;
  d.path = std::move(path);
  return d;
}

std::vector<std::string_view> PythonModel::targets_of(uint32_t st) const {
  std::vector<std::string_view> out;
  // Bindings are in statement order (parameters sit at their def's statement).
  auto it = std::lower_bound(bindings_.begin(), bindings_.end(), st,
                             [](const Binding& b, uint32_t s) { return b.statement < s; });
  for (; it != bindings_.end() && it->statement == st; ++it) {
    if (it->kind != Binding::Kind::PARAM) out.push_back(it->name);
  }
  return out;
}

std::pair<uint32_t, uint32_t> PythonModel::value_tokens(const Binding& b) const {
  uint32_t begin = b.value_begin;
  uint32_t end = b.value_end;
  const auto strip = [&] {
    while (begin + 1 < end && op(begin, "(") && closing(begin) == end - 1) {
      ++begin;
      --end;
    }
  };
  for (uint32_t path = b.element; path != 0; path >>= 10) {
    strip();
    if (begin >= end) return {begin, begin};
    // The display's elements, split by the commas at its own depth.
    const uint16_t depth = tokens_[begin].depth;
    std::vector<std::pair<uint32_t, uint32_t>> parts;
    uint32_t from = begin;
    for (uint32_t k = begin; k <= end; ++k) {
      if (k < end && !(op(k, ",") && tokens_[k].depth == depth)) continue;
      if (k > from) parts.emplace_back(from, k);
      from = k + 1;
    }
    const uint32_t index = (path & 1023) - 1;
    const bool display = parts.size() > 1 || (end > begin && op(end - 1, ","));
    if (!display || index >= parts.size()) return {begin, begin};
    begin = parts[index].first;
    end = parts[index].second;
  }
  strip();
  return {begin, end};
}

std::optional<uint32_t> PythonModel::function_named(std::string_view n) const {
  const std::span<const uint32_t> found = lookup(n, 0, static_cast<uint32_t>(statements_.size()));
  for (auto it = found.rbegin(); it != found.rend(); ++it) {
    const Binding& b = bindings_[*it];
    if (b.kind == Binding::Kind::DEF) return b.number;
    if (b.kind != Binding::Kind::ASSIGN) continue;
    // NAME = f, NAME = wrapper(f, ...): the first name of the value that is a function; NAME =
    // Class(...): the class's __call__.
    for (uint32_t k = b.value_begin; k < b.value_end; ++k) {
      if (!is_name(k)) continue;
      const Value& v = value_of_name(name(k), b.scope, b.statement);
      if (v.kind != Value::Kind::FUNCTION || v.number < 0 ||
          static_cast<size_t>(v.number) >= scopes_.size()) {
        continue;
      }
      const auto s = static_cast<uint32_t>(v.number);
      if (!scopes_[s].is_class) return s;
      if (k == b.value_begin && op(k + 1, "(")) {
        for (uint32_t m = s + 1; m < scopes_.size(); ++m) {
          if (scopes_[m].parent == s && scopes_[m].name == "__call__") return m;
        }
      }
      break;
    }
  }
  return std::nullopt;
}

const Facts& PythonModel::facts() const {
  if (!facts_) walk();
  return *facts_;
}

// A decorator: the callee (the primary up to its last call) and the def or class it decorates,
// its expression read for its facts.
DecoratorFact PythonModel::decorator_fact(uint32_t i,
                                          const std::vector<uint32_t>& scope_of_statement,
                                          Facts& f) const {
  const Statement& st = statements_[i];
  ExpressionReader r(*this, st.scope, i, st.begin + 1, st.end, &f, 0);
  DecoratorFact d;
  d.statement = i;
  d.token = st.begin + 1;
  // The callee: the primary up to its last call.
  uint32_t e = st.begin + 1;
  uint32_t open = kNoIndex;
  while (e < st.end) {
    if (op(e, "(")) {
      open = e;
      break;
    }
    ++e;
  }
  d.value = compact(eval(st.begin + 1, open == kNoIndex ? st.end : open, st.scope, i));
  d.open = open;
  r.read_all();
  // The def or class it decorates: the next statement that is not a decorator.
  for (uint32_t j = i + 1; j < statements_.size(); ++j) {
    if (statements_[j].kind == StatementKind::DECORATOR) continue;
    d.decorated = scope_of_statement[j];
    break;
  }
  return d;
}

// A class statement: its bases (keywords such as metaclass= left out), read for their facts.
ClassFact PythonModel::class_fact(uint32_t i, uint32_t scope, Facts& f) const {
  const Statement& st = statements_[i];
  ClassFact c;
  c.statement = i;
  c.scope = scope;
  uint32_t k = st.begin + 2;
  if (op(k, "(")) {
    const uint32_t close = closing(k);
    const uint16_t depth = tokens_[k].depth + 1;
    uint32_t b = k + 1;
    for (uint32_t j = k + 1; j <= close; ++j) {
      if (j == close || (op(j, ",") && tokens_[j].depth == depth)) {
        if (j > b && !(is_name(b) && op(b + 1, "="))) {
          ExpressionReader r(*this, st.scope, i, b, j, &f, 0);
          c.bases.push_back(compact(r.expression()));
          r.read_all();
        }
        b = j + 1;
      }
    }
  }
  return c;
}

// The stores of the targets in [b, e) of statement i, split by top-level commas, recursing into
// parenthesised tuples; a target that is a name stores nothing.
void PythonModel::store_facts(uint32_t i, uint32_t b, uint32_t e, bool augmented, Facts& f) const {
  const Statement& st = statements_[i];
  std::vector<std::pair<uint32_t, uint32_t>> parts;
  std::vector<std::pair<uint32_t, uint32_t>> todo = {{b, e}};
  while (!todo.empty()) {
    auto [pb, pe] = todo.back();
    todo.pop_back();
    if (pb >= pe) continue;
    const uint16_t depth = tokens_[pb].depth;
    uint32_t s = pb;
    std::vector<std::pair<uint32_t, uint32_t>> split;
    for (uint32_t k = pb; k <= pe; ++k) {
      if (k == pe || (op(k, ",") && tokens_[k].depth == depth)) {
        if (k > s) split.emplace_back(s, k);
        s = k + 1;
      }
    }
    for (auto [sb, se] : split) {
      if (op(sb, "*")) ++sb;
      if ((op(sb, "(") || op(sb, "[")) && closing(sb) == se - 1 && split.size() >= 1 &&
          se - sb > 2) {
        // (a.x, b[0]) or a parenthesised single target
        bool has_comma = false;
        for (uint32_t k = sb + 1; k < se - 1; ++k) {
          has_comma = has_comma || (op(k, ",") && tokens_[k].depth == tokens_[sb].depth + 1);
        }
        if (has_comma) {
          todo.emplace_back(sb + 1, se - 1);
          continue;
        }
      }
      parts.emplace_back(sb, se);
    }
  }
  for (auto [pb, pe] : parts) {
    if (pe == pb + 1) continue;  // a name
    ExpressionReader r(*this, st.scope, i, pb, pe, &f, 0);
    StoreFact s;
    s.statement = i;
    s.augmented = augmented;
    if (r.store_target(s.object, s.name, s.key, s.item, s.token)) {
      s.object = compact(s.object);
      s.key = compact(s.key);
      f.stores.push_back(std::move(s));
    }
    r.read_all();
  }
}

// A simple statement: assignment targets that are attributes or items are stores; the rest,
// expressions (a call standing alone: its result unused).
void PythonModel::simple_facts(uint32_t i, Facts& f) const {
  const Statement& st = statements_[i];
  const auto reader = [&](uint32_t b, uint32_t e) {
    return ExpressionReader(*this, st.scope, i, b, e, &f, 0);
  };
  const AssignmentShape shape = assignment_shape(st);
  if (shape.augmented != kNoIndex) {
    ExpressionReader r = reader(shape.augmented + 1, st.end);
    r.read_all();
    store_facts(i, st.begin, shape.augmented, true, f);
  } else if (!shape.equals.empty()) {
    ExpressionReader r = reader(shape.equals.back() + 1, st.end);
    r.read_all();
    uint32_t target = st.begin;
    for (uint32_t e : shape.equals) {
      const uint32_t target_end =
          shape.annotation != kNoIndex && shape.annotation < e ? shape.annotation : e;
      store_facts(i, target, target_end, false, f);
      target = e + 1;
    }
  } else {
    const size_t calls_before = f.calls.size();
    uint32_t b = st.begin;
    // Statement keywords: raise, assert, del, pass, ... are read past.
    if (is_name(b)) {
      const std::string_view w = txt(b);
      if (w == "raise" || w == "assert" || w == "del" || w == "yield" || w == "await" ||
          w == "pass" || w == "break" || w == "continue" || w == "print") {
        if (w != "yield" && w != "await" && w != "print") ++b;
      }
    }
    ExpressionReader r = reader(b, st.end);
    r.read_all();
    // A call standing alone: its result unused.
    for (size_t c = calls_before; c < f.calls.size(); ++c) {
      if (f.calls[c].callee == st.begin && f.calls[c].close + 1 == st.end) {
        f.calls[c].result_unused = true;
      }
    }
  }
}

void PythonModel::walk() const {
  facts_ = std::make_unique<Facts>();
  Facts& f = *facts_;
  std::vector<uint32_t> scope_of_statement(statements_.size(), kNoIndex);
  for (uint32_t s = 1; s < scopes_.size(); ++s) scope_of_statement[scopes_[s].statement] = s;
  for (uint32_t i = 0; i < statements_.size(); ++i) {
    const Statement& st = statements_[i];
    const auto reader = [&](uint32_t b, uint32_t e) {
      return ExpressionReader(*this, st.scope, i, b, e, &f, 0);
    };
    switch (st.kind) {
      case StatementKind::IMPORT:
      case StatementKind::GLOBAL:
      case StatementKind::TRY:
      case StatementKind::FINALLY:
      case StatementKind::ELSE:
        break;
      case StatementKind::RETURN: {
        ExpressionReader r = reader(st.begin + 1, st.end);
        ReturnFact ret;
        ret.statement = i;
        ret.begin = st.begin + 1;
        ret.end = st.end;
        ret.value = compact(r.expression_list());
        r.read_all();
        f.returns.push_back(std::move(ret));
        break;
      }
      case StatementKind::DECORATOR:
        f.decorators.push_back(decorator_fact(i, scope_of_statement, f));
        break;
      case StatementKind::CLASS:
        f.classes.push_back(class_fact(i, scope_of_statement[i], f));
        break;
      case StatementKind::DEF: {
        // Default values and decorators' calls are read for their facts.
        uint32_t k = st.begin + (keyword(st.begin, "async") ? 3 : 2);
        if (op(k, "(")) {
          const uint32_t close = closing(k);
          for (uint32_t j = k + 1; j < close; ++j) {
            if (op(j, "=") && tokens_[j].depth == tokens_[k].depth + 1) {
              uint32_t e = j + 1;
              while (e < close && !(op(e, ",") && tokens_[e].depth == tokens_[k].depth + 1)) ++e;
              ExpressionReader r = reader(j + 1, e);
              r.read_all();
              j = e;
            }
          }
        }
        break;
      }
      case StatementKind::IF:
      case StatementKind::ELIF:
      case StatementKind::WHILE:
      case StatementKind::EXCEPT:
      case StatementKind::OTHER_COMPOUND: {
        ExpressionReader r = reader(st.begin + 1, st.colon);
        r.read_all();
        break;
      }
      case StatementKind::FOR: {
        uint32_t in = st.begin + 1;
        while (in < st.colon && !(keyword(in, "in") && tokens_[in].depth == 0)) ++in;
        ExpressionReader r = reader(std::min(in + 1, st.colon), st.colon);
        r.read_all();
        break;
      }
      case StatementKind::WITH: {
        ExpressionReader r = reader(st.begin + 1, st.colon);
        r.read_all();
        break;
      }
      case StatementKind::SIMPLE:
        simple_facts(i, f);
        break;
    }
  }
}

}  // namespace kbdata::source
