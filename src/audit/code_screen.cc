#include "audit/code_screen.h"

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>
#include <utility>

#include "common/cpu.h"
#include "source/bytes.h"
#include "source/embedded.h"
#include "source/python_regions.h"
#include "source/substrings.h"

namespace kbdata::audit {

using source::Region;

namespace {

// Every word a Python rule of code_rules.cc compares with a name of the code, directly or as a
// part of a dotted name resolved through the imports (every part of such a name is a word of the
// code, or comes from a string through sys.modules, importlib.import_module or __import__, which
// are words here too). Words that only feed a fact another word must start (synchronize, copy_:
// a stream or a graph must be made first) are left out. The attribute and keyword forms
// (`X.Y = ...`, `X.Y += ...`) are found by their shape, not by a word (assigns_attribute).
constexpr std::string_view kPythonWords[] = {
    // result-pipe, caller-frame, identity-key, rng-state, graph
    "POPCORN_FD", "f_back", "f_locals", "f_globals", "f_code", "data_ptr", "get_rng_state",
    "set_rng_state", "get_rng_state_all", "set_rng_state_all", "getstate", "setstate", "get_state",
    "set_state", "replay",
    // call-counter (a counter in a global), harness access and its aliases, argv, environment
    "global", "nonlocal", "modules", "import_module", "argv", "environ", "getenv",
    // timer subclass and timer calls, patching calls
    "Event", "setattr", "patch", "object", "perf_counter", "perf_counter_ns", "time", "monotonic",
    "process_time", "default_timer",
    // caller-frame calls, gc, seeds, counters
    "_getframe", "inspect", "traceback", "get_objects", "get_referrers", "get_referents",
    "manual_seed", "manual_seed_all", "seed", "itertools",
    // dynamic and obfuscated exec, identity: only as a name of its own (bare_call)
    "exec", "eval", "compile", "id", "__import__",
    // network, installs, code loading
    "urllib", "urllib3", "requests", "http", "socket", "hub", "wget", "urlopen", "urlretrieve",
    "pip", "_internal", "subprocess", "system", "popen", "importlib", "runpy", "exec_module",
    // streams and graphs
    "Stream", "ExternalStream", "CUDAGraph", "graph", "make_graphed_callables",
    // not a trigger: where the function rules look (custom_kernel_at)
    "custom_kernel"};

// The Python names of floating-point types and their widths (code_rules.cc float_bits); a name
// narrower than the reference's is a trigger (precision-downgrade) where that rule reads it, after
// a dot (torch.float16, x.half()). float8* and float4* are prefixes.
using FloatName = FloatTypeName;
constexpr const auto& kPythonFloats = kPythonFloatTypes;

// Texts the rules look for inside strings, Python's and those of the embedded C++ (the benchmark
// line, installs, downloads), and the parts of every C++ name a C++ rule compares but the types
// (result pipe, environment, stream creation, graphs, timers). Matched anywhere in any string's
// body: a C++ name is a part of the string that holds it.
constexpr std::string_view kStringParts[] = {"POPCORN_FD",
                                             "benchmark.",
                                             "benchmark-count",
                                             "install",
                                             "-m pip",
                                             "uv pip",
                                             "wget ",
                                             "curl ",
                                             "getenv",
                                             "StreamCreate",
                                             "getStreamFromPool",
                                             "GraphLaunch",
                                             "BeginCapture",
                                             "GraphInstantiate",
                                             "ElapsedTime",
                                             "chrono",
                                             "clock_gettime",
                                             "secure_getenv"};

// The parts of the C++ names of floating-point types, by width: every name float_bits gives a
// width contains the part of its width.
constexpr std::array<FloatName, 9> kCppFloatParts = {{{"double", 64, false},
                                                      {"float", 32, false},
                                                      {"half", 16, false},
                                                      {"bfloat16", 16, false},
                                                      {"bf16", 16, false},
                                                      {"__nv_fp8", 8, false},
                                                      {"__hip_fp8", 8, false},
                                                      {"__nv_fp4", 4, false},
                                                      {"__hip_fp4", 4, false}}};

// The string texts and C++ name parts, alone and with the C++ type parts narrower than a reference
// of each width (4, 8, 16, 32, 64 bits and wider), each searched in one pass.
const source::Substrings& string_parts() {
  static const source::Substrings parts(
      std::vector<std::string_view>(std::begin(kStringParts), std::end(kStringParts)));
  return parts;
}

std::vector<std::string_view> cpp_float_parts_below(int bits) {
  std::vector<std::string_view> out;
  for (const FloatName& f : kCppFloatParts) {
    if (f.bits < bits) out.push_back(f.name);
  }
  return out;
}

size_t width_class(int bits) {
  size_t c = 0;
  for (int w : {4, 8, 16, 32, 64}) c += bits > w ? 1 : 0;
  return c;
}

}  // namespace

const source::Substrings* narrow_cpp_type_parts(int bits) {
  static const std::array<std::optional<source::Substrings>, 6> parts = [] {
    std::array<std::optional<source::Substrings>, 6> out;
    // A class's widest reference: the parts narrower than it are those narrower than any of it.
    constexpr std::array<int, 6> kWidest = {4, 8, 16, 32, 64, 65};
    for (size_t c = 1; c < out.size(); ++c) out[c].emplace(cpp_float_parts_below(kWidest[c]));
    return out;
  }();
  const auto& p = parts[width_class(bits)];
  return p ? &*p : nullptr;
}

namespace {

bool ident(char c) { return source::is_ident(c); }

// A first look at a word: whether some word of the vocabulary has its length and first two bytes
// (by their low six bits). Most names of the code fail here.
class WordFilter {
 public:
  constexpr WordFilter() {
    for (std::string_view w : kPythonWords) add(w);
    for (const FloatName& f : kPythonFloats) {
      if (!f.prefix) add(f.name);
    }
  }
  [[nodiscard]] bool may_be(const char* w, size_t n) const {
    if (n < 2 || n >= kMaxLength) return false;
    const size_t bit = index(n, w[0], w[1]);
    return ((bits_[bit / 64] >> (bit % 64)) & 1) != 0;
  }

 private:
  static constexpr size_t kMaxLength = 32;
  static constexpr size_t index(size_t n, char a, char b) {
    return (n * 64 + (static_cast<unsigned char>(a) & 63)) * 64 +
           (static_cast<unsigned char>(b) & 63);
  }
  constexpr void add(std::string_view w) {
    if (w.size() >= kMaxLength) throw "a vocabulary word is too long for the filter";
    const size_t bit = index(w.size(), w[0], w[1]);
    bits_[bit / 64] |= uint64_t{1} << (bit % 64);
  }
  std::array<uint64_t, kMaxLength * 64 * 64 / 64> bits_{};
};
constexpr WordFilter kWordFilter;

// A first look at every name of a chunk at once: whether its first three bytes (by their nibbles,
// in eight buckets of the vocabulary) may be a vocabulary word's.
constexpr source::NibbleFilter kTrigrams = [] {
  source::NibbleFilter t;
  size_t i = 0;
  for (std::string_view w : kPythonWords) t.add(w, i++);
  for (const FloatName& f : kPythonFloats) t.add(f.name, i++);
  return t;
}();

bool contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

// The positions of byte classes in a range of code, 32 at a time.
struct Chunk {
  uint32_t starts =
      0;  // a name's first byte: an identifier byte, not a digit, after a non-identifier
  uint32_t ident = 0;   // identifier bytes
  uint32_t equals = 0;  // '='
  uint32_t open = 0;    // ( [ {
  uint32_t close = 0;   // ) ] }
};

__attribute__((target("avx2"))) uint32_t any_of3(__m256i v, char a, char b, char c) {
  const __m256i hit = _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(a)),
                                                      _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b))),
                                      _mm256_cmpeq_epi8(v, _mm256_set1_epi8(c)));
  return static_cast<uint32_t>(_mm256_movemask_epi8(hit));
}

__attribute__((target("avx2"))) inline Chunk classify_avx2(const char* p, bool ident_before) {
  const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  const __m256i low =
      _mm256_sub_epi8(_mm256_or_si256(v, _mm256_set1_epi8(0x20)), _mm256_set1_epi8('a'));
  const __m256i letter = _mm256_cmpeq_epi8(_mm256_min_epu8(low, _mm256_set1_epi8(25)), low);
  const __m256i dig = _mm256_sub_epi8(v, _mm256_set1_epi8('0'));
  const __m256i is_digit = _mm256_cmpeq_epi8(_mm256_min_epu8(dig, _mm256_set1_epi8(9)), dig);
  const __m256i high = _mm256_cmpgt_epi8(_mm256_setzero_si256(), v);  // bytes >= 0x80
  const __m256i under = _mm256_cmpeq_epi8(v, _mm256_set1_epi8('_'));
  const __m256i word = _mm256_or_si256(_mm256_or_si256(letter, high), under);
  Chunk c;
  const auto w = static_cast<uint32_t>(_mm256_movemask_epi8(word));
  const auto d = static_cast<uint32_t>(_mm256_movemask_epi8(is_digit));
  c.ident = w | d;
  c.starts = w & ~((c.ident << 1) | (ident_before ? 1U : 0U));
  c.equals =
      static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('='))));
  c.open = any_of3(v, '(', '[', '{');
  c.close = any_of3(v, ')', ']', '}');
  return c;
}

Chunk classify_portable(const char* p, size_t n, bool ident_before) {
  Chunk c;
  for (size_t i = 0; i < n; ++i) {
    if (source::is_ident(p[i])) c.ident |= 1U << i;
    if (source::is_ident_start(p[i])) c.starts |= 1U << i;
    if (p[i] == '=') c.equals |= 1U << i;
    if (p[i] == '(' || p[i] == '[' || p[i] == '{') c.open |= 1U << i;
    if (p[i] == ')' || p[i] == ']' || p[i] == '}') c.close |= 1U << i;
  }
  c.starts &= ~((c.ident << 1) | (ident_before ? 1U : 0U));
  return c;
}

// The bracket depth tokenize_python has at `pos` (in code), counting the brackets of the code
// before it: an opening one adds one, a closing one takes one if there is one to take.
uint32_t brackets(uint32_t depth, uint32_t open, uint32_t close) {
  for (uint32_t m = open | close; m != 0; m &= m - 1) {
    if ((open & m & -m) != 0) {
      ++depth;
    } else if (depth > 0) {
      --depth;
    }
  }
  return depth;
}

// The same, counted at once when no closing bracket can find the depth at zero (every CPU with
// AVX2 has POPCNT).
__attribute__((target("popcnt"))) uint32_t brackets_popcnt(uint32_t depth, uint32_t open,
                                                           uint32_t close) {
  const auto closes = static_cast<uint32_t>(__builtin_popcount(close));
  if (depth >= closes) return depth + static_cast<uint32_t>(__builtin_popcount(open)) - closes;
  return brackets(depth, open, close);
}

class Screener {
 public:
  Screener(std::string_view code, const CodeContext& context)
      : text_(code), context_(context), regions_(source::python_regions(code)) {}

  Screen run() {
    Screen out;
    // Strings. One that reads as C++ by its text is an embedded source whatever it is passed to:
    // the caller audits it as the full pass does. Any other may be one (passed to a compiler by
    // name) or a Python string: neither may hold a text or a C++ name a rule reads.
    const source::Substrings* types = context_.reference_float_bits
                                          ? narrow_cpp_type_parts(*context_.reference_float_bits)
                                          : nullptr;
    for (const Region& r : regions_) {
      if (r.comment) continue;
      const std::string_view body = text_.substr(r.body_begin, r.body_end - r.body_begin);
      const char* readable = text_.data() + text_.size();
      const bool parts = string_parts().any_in(body, readable);
      const bool narrow = types != nullptr && types->any_in(body, readable);
      if (source::reads_as_cpp(body)) {
        if (parts || narrow) cpp_.push_back({&r, !parts});
        continue;
      }
      if (parts || narrow) return out;
    }
    // Code: the words and the shapes.
    uint32_t from = 0;
    for (size_t i = 0; i <= regions_.size(); ++i) {
      const uint32_t to = i < regions_.size() ? regions_[i].begin : text_.size();
      if (from < to && !screen_code(from, to, i)) return out;
      if (i < regions_.size()) from = regions_[i].end;
    }
    if (first_kernel_ != UINT32_MAX && !kernel_line_start(out)) return out;
    source::PythonLines lines(text_, regions_);
    for (const auto& [r, types_only] : cpp_) {
      source::Token t;
      t.kind = source::TokenKind::STRING;
      t.begin = r->begin;
      t.end = r->end;
      t.body_begin = r->body_begin;
      t.body_end = r->body_end;
      t.line = lines.at(r->begin);
      t.triple_quoted = r->triple;
      out.cpp.push_back({t, types_only});
    }
    out.full = false;
    return out;
  }

 private:
  // Whether the word [b, e) of code is one a rule reads (false: the full pass must run). Notes
  // where `custom_kernel` is.
  bool word_is_quiet(uint32_t b, uint32_t e, size_t regions_before) {
    const char* w = text_.data() + b;
    const size_t n = e - b;
    // A type is read after a dot (torch.float16, x.half()); a comment or a newline inside
    // brackets may come between.
    if (n >= 6 && std::memcmp(w, "float", 5) == 0 && narrower_python_float(w, n) &&
        dot_before(b, regions_before)) {
      return false;
    }
    if (!kWordFilter.may_be(w, n)) return true;
    const std::string_view word(w, n);
    if (narrower_python_float(w, n) && dot_before(b, regions_before)) return false;
    for (std::string_view v : kPythonWords) {
      if (v != word) continue;
      if (v == "custom_kernel") return kernel_at(b, regions_before);
      // os.environ, os.getenv: env-mode-check reads them only with a key that names a mode.
      if (v == "environ" || v == "getenv") return !mode_word_in_a_string();
      // exec(...), eval, compile, id, __import__: the rules read them as a name of their own, never
      // after a dot (torch.compile is not compile).
      const bool bare_call =
          v == "exec" || v == "eval" || v == "compile" || v == "id" || v == "__import__";
      return bare_call && right_after_dot(b, regions_before);
    }
    return true;
  }

  // Whether a string's body holds one of the words env-mode-check looks for in a key (code_rules.cc
  // kEnvModeWords).
  bool mode_word_in_a_string() {
    if (mode_words_ == -1) {
      mode_words_ = 0;
      for (const Region& r : regions_) {
        if (r.comment) continue;
        const std::string_view body = text_.substr(r.body_begin, r.body_end - r.body_begin);
        for (std::string_view m : kEnvModeWords) {
          if (contains(body, m)) mode_words_ = 1;
        }
      }
    }
    return mode_words_ == 1;
  }

  [[nodiscard]] bool narrower_python_float(const char* w, size_t n) const {
    if (!context_.reference_float_bits) return false;
    for (const FloatName& f : kPythonFloats) {
      const bool match =
          f.prefix ? n >= f.name.size() && std::memcmp(w, f.name.data(), f.name.size()) == 0
                   : n == f.name.size() && std::memcmp(w, f.name.data(), n) == 0;
      if (match && f.bits < *context_.reference_float_bits) return true;
    }
    return false;
  }

  // Whether the token before the word at `b` may be a dot (the rules skip comments, and newlines
  // inside brackets).
  [[nodiscard]] bool dot_before(uint32_t b, size_t regions_before) const {
    const int64_t q = significant_before(b, regions_before);
    return q >= 0 && text_[static_cast<size_t>(q)] == '.';
  }

  // Whether the token before the word at `b` is a dot on the same line: a word the screen lets
  // through on this is an attribute (a newline between may end the logical line).
  [[nodiscard]] bool right_after_dot(uint32_t b, size_t regions_before) const {
    const uint32_t gap_begin = regions_before > 0 ? regions_[regions_before - 1].end : 0;
    uint32_t q = b;
    while (q > gap_begin && (text_[q - 1] == ' ' || text_[q - 1] == '\t' || text_[q - 1] == '\f')) {
      --q;
    }
    return q > gap_begin && text_[q - 1] == '.';
  }

  // The last byte before `pos` that starts a token tokenize_python keeps for the rules: not a
  // space, a newline or a backslash, not in a comment (the rules skip comments). `regions_before`
  // is the number of regions before `pos`. -1 when there is none; -2 when the token is a string.
  [[nodiscard]] int64_t significant_before(uint32_t pos, size_t regions_before) const {
    int64_t q = static_cast<int64_t>(pos) - 1;
    for (;;) {
      const int64_t gap_begin =
          regions_before > 0 ? static_cast<int64_t>(regions_[regions_before - 1].end) : 0;
      for (; q >= gap_begin; --q) {
        const char c = text_[static_cast<size_t>(q)];
        if (c != ' ' && c != '\t' && c != '\f' && c != '\n' && c != '\r' && c != '\\') return q;
      }
      if (regions_before == 0) return -1;
      const Region& r = regions_[regions_before - 1];
      if (!r.comment) return -2;
      q = static_cast<int64_t>(r.begin) - 1;
      --regions_before;
    }
  }

  // Whether the '=' at `e` may end an assignment to an attribute, `X.Y =` or `X.Y +=` (where the
  // patch, harness and counter rules look).
  [[nodiscard]] bool assigns_attribute(uint32_t e, uint32_t gap_begin,
                                       size_t regions_before) const {
    uint32_t at = e;
    if (e > gap_begin && text_[e - 1] == '+') {
      at = e - 1;
    } else if (e + 1 < text_.size() && text_[e + 1] == '=') {
      return false;  // ==
    }
    int64_t q = significant_before(at, regions_before);
    // The name before it, then what comes before the name: a run of identifier bytes never holds a
    // region's start, so it is all in one gap.
    if (q < 0 || !ident(text_[static_cast<size_t>(q)])) return false;
    while (q >= 0 && ident(text_[static_cast<size_t>(q)])) --q;
    const auto before_name = static_cast<uint32_t>(q + 1);
    while (regions_before > 0 && regions_[regions_before - 1].end > before_name) --regions_before;
    q = significant_before(before_name, regions_before);
    return q >= 0 && text_[static_cast<size_t>(q)] == '.';
  }

  // `custom_kernel` at `b`: notes the first that follows `def` (false when the form is one the
  // screen does not follow).
  bool kernel_at(uint32_t b, size_t regions_before) {
    if (first_kernel_ != UINT32_MAX) return true;  // the function rules read from the first on
    const int64_t q = significant_before(b, regions_before);
    if (q < 2 || text_.substr(static_cast<size_t>(q) - 2, 3) != "def") return true;  // a use
    const auto d = static_cast<uint32_t>(q - 2);
    if (d > 0 && ident(text_[d - 1])) return true;  // a longer word: undef, ...
    if (in_region(d)) return false;
    first_kernel_ = d;
    kernel_depth_ = depth_before_line(d);
    return true;
  }

  // The bracket depth at the newline before the line of `d` (0 at the text's first line), from the
  // last chunks read: the line's newline is a few bytes before `d`, in its gap.
  [[nodiscard]] uint32_t depth_before_line(uint32_t d) const {
    uint32_t p0 = d;
    while (p0 > 0 && (text_[p0 - 1] == ' ' || text_[p0 - 1] == '\t' || text_[p0 - 1] == '\f')) {
      --p0;
    }
    if (p0 == 0) return 0;
    uint32_t nl = p0 - 1;
    if (text_[nl] == '\n' && nl > 0 && text_[nl - 1] == '\r') --nl;
    // The latest chunk that starts at or before nl.
    const std::pair<uint32_t, uint32_t>* from = nullptr;
    for (const auto& r : recent_) {
      if (r.first <= nl && (from == nullptr || r.first > from->first)) from = &r;
    }
    if (from == nullptr || nl - from->first > 4 * 32) return UINT32_MAX;  // not among them
    uint32_t depth = from->second;
    for (uint32_t q = from->first; q < nl; ++q) {
      const char c = text_[q];
      if (c == '(' || c == '[' || c == '{') ++depth;
      if ((c == ')' || c == ']' || c == '}') && depth > 0) --depth;
    }
    return depth;
  }

  // The line start of the first `def custom_kernel`, when it starts a logical line at depth 0.
  bool kernel_line_start(Screen& out) {
    uint32_t p0 = first_kernel_;
    while (p0 > 0 && (text_[p0 - 1] == ' ' || text_[p0 - 1] == '\t' || text_[p0 - 1] == '\f')) {
      --p0;
    }
    if (p0 > 0) {
      if (text_[p0 - 1] != '\n' && text_[p0 - 1] != '\r') return false;  // `; def`, a decorator
      uint32_t nl = p0 - 1;
      if (text_[nl] == '\n' && nl > 0 && text_[nl - 1] == '\r') --nl;
      if (in_region(nl)) return false;
      if (nl > 0 && text_[nl - 1] == '\\' && !in_region(nl - 1)) return false;  // a joined line
      if (kernel_depth_ != 0) return false;  // inside brackets, or not known
    }
    source::PythonLines lines(text_, regions_);
    out.custom_kernel = source::PythonLexStart{p0, lines.at(p0)};
    return true;
  }

  [[nodiscard]] bool in_region(uint32_t pos) const {
    for (const Region& r : regions_) {
      if (r.begin > pos) break;
      if (pos < r.end) return true;
    }
    return false;
  }

  // The depth after a chunk's brackets (`open`, `close`): an opening one adds one, a closing one
  // takes one if there is one to take.
  template <bool kPopcnt>
  void count_brackets(uint32_t open, uint32_t close) {
    depth_ = kPopcnt ? brackets_popcnt(depth_, open, close) : brackets(depth_, open, close);
  }

  // The code [from, to): false when it holds a word or a shape a rule reads. With the vector
  // instructions where the CPU has them: a chunk's classes and the first look at its names are
  // worked out in the loop that reads them.
  bool screen_code(uint32_t from, uint32_t to, size_t regions_before) {
    return use_avx2() ? screen_code_avx2(from, to, regions_before)
                      : screen_code_portable(from, to, regions_before);
  }

  __attribute__((target("avx2"))) bool screen_code_avx2(uint32_t from, uint32_t to,
                                                        size_t regions_before) {
    const char* t = text_.data();
    const source::NibbleFilterAvx2 first_look = source::load_avx2(kTrigrams);
    bool ident_before = false;
    for (uint32_t at = from; at < to; at += 32) {
      const size_t n = to - at < 32 ? to - at : 32;
      Chunk c;
      if (at + 34 <= text_.size()) {
        // A whole chunk is loaded when the text goes on that far (the bytes past `to` are
        // masked), with the two bytes after it for the names' first look.
        c = classify_avx2(t + at, ident_before);
        const __m256i b = source::buckets_avx2(first_look, t + at);
        // Only the names that may be a vocabulary word's, by their first bytes.
        c.starts &= ~static_cast<uint32_t>(
            _mm256_movemask_epi8(_mm256_cmpeq_epi8(b, _mm256_setzero_si256())));
      } else {
        c = classify_portable(t + at, n, ident_before);
      }
      ident_before = ((c.ident >> (n - 1)) & 1) != 0;
      if (!chunk_is_quiet<true>(at, n, c, to, regions_before)) return false;
    }
    return true;
  }

  bool screen_code_portable(uint32_t from, uint32_t to, size_t regions_before) {
    const char* t = text_.data();
    bool ident_before = false;
    for (uint32_t at = from; at < to; at += 32) {
      const size_t n = to - at < 32 ? to - at : 32;
      const Chunk c = classify_portable(t + at, n, ident_before);
      ident_before = ((c.ident >> (n - 1)) & 1) != 0;
      if (!chunk_is_quiet<false>(at, n, c, to, regions_before)) return false;
    }
    return true;
  }

  // The chunk of `n` bytes at `at` with its classes `c`: its brackets counted, its `=` and its
  // names looked at.
  template <bool kSimd>
  [[gnu::always_inline]] bool chunk_is_quiet(uint32_t at, size_t n, const Chunk& c, uint32_t to,
                                             size_t regions_before) {
    const char* t = text_.data();
    const uint32_t valid = n == 32 ? ~0U : (1U << n) - 1;
    recent_[recent_next_++ % recent_.size()] = {at, depth_};
    count_brackets<kSimd>(c.open & valid, c.close & valid);
    const uint32_t gap_begin = regions_before > 0 ? regions_[regions_before - 1].end : 0;
    for (uint32_t m = c.equals & valid; m != 0; m &= m - 1) {
      if (assigns_attribute(at + static_cast<uint32_t>(__builtin_ctz(m)), gap_begin,
                            regions_before)) {
        return false;
      }
    }
    for (uint32_t m = c.starts & valid; m != 0; m &= m - 1) {
      const auto bit = static_cast<uint32_t>(__builtin_ctz(m));
      const uint32_t b = at + bit;
      // The word's end from the chunk's identifier bytes, then byte by byte past the chunk.
      const uint32_t rest = ~(c.ident & valid) >> bit;
      uint32_t e = rest != 0 ? b + static_cast<uint32_t>(__builtin_ctz(rest)) : at + 32;
      if (rest == 0) {
        while (e < to && ident(t[e])) ++e;
      }
      if (!word_is_quiet(b, e, regions_before)) return false;
    }
    return true;
  }

  std::string_view text_;
  const CodeContext& context_;
  std::vector<Region> regions_;
  std::vector<std::pair<const Region*, bool>> cpp_;  // a C++ string, and whether types only
  uint32_t first_kernel_ = UINT32_MAX;
  int mode_words_ = -1;  // mode_word_in_a_string, once known
  uint32_t depth_ = 0;   // the bracket depth after the chunks read
  // The last chunks' starts and the depth there; kernel_depth_: the depth at the newline before
  // the first `def custom_kernel` (UINT32_MAX: not known).
  std::array<std::pair<uint32_t, uint32_t>, 4> recent_{};
  size_t recent_next_ = 0;
  uint32_t kernel_depth_ = UINT32_MAX;
};

}  // namespace

Screen screen_python(std::string_view code, const CodeContext& context) {
  return Screener(code, context).run();
}

}  // namespace kbdata::audit
