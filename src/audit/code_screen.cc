#include "audit/code_screen.h"

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "common/cpu.h"
#include "source/bytes.h"
#include "source/embedded.h"
#include "source/literals.h"
#include "source/python_model.h"
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
    // names resolved through the builtins and what they do with strings
    "getattr", "vars", "globals", "__builtins__", "builtins", "__dict__",
    // native code and the process's memory, descriptors
    "mprotect", "VirtualProtect", "memmove", "from_address", "cuMemGetAddressRange",
    "cuMemGetAddressRange_v2", "ptrace", "dup2",
    // compiling calls: their sources may be folded from any expression; a source written out
    "load_inline", "compile_kernel", "_compile_kernel", "RawKernel", "RawModule", "SourceModule",
    "write",
    // streams and graphs
    "Stream", "ExternalStream", "CUDAGraph", "graph", "make_graphed_callables",
    // not a trigger: where the function rules look (custom_kernel_at)
    "custom_kernel"};

// The Python names of floating-point types and their widths (code_rules.cc float_bits); a name
// narrower than the reference's is a trigger (precision-downgrade) where that rule reads it, after
// a dot (torch.float16, x.half()). float8* and float4* are prefixes.
using FloatName = FloatTypeName;
constexpr const auto& kPythonFloats = kPythonFloatTypes;

// Texts the rules look for inside strings, Python's and those of the embedded C++ (the result
// pipe, even split in adjacent literals, the benchmark line, installs, downloads, the process's
// memory). Matched anywhere in any string's body.
constexpr std::string_view kStringParts[] = {"POPCORN", "benchmark.", "benchmark-count",
                                             "install", "-m pip",     "uv pip",
                                             "wget ",   "curl ",      "/proc/"};

// The parts of every C++ name a C++ rule compares but the types (result pipe, environment, stream
// creation, graphs, timers, native code, a C++ extension's allocations): looked for, with the
// texts above, in the strings that read as C++. The writes to a tensor (zero_, fill_, copy_, any
// method ending in `_`) are found by their shape instead (may_call_underscore_method): as parts
// they matched names such as `stage_prefill_launch`.
constexpr std::string_view kCppParts[] = {"getenv",      "StreamCreate", "getStreamFromPool",
                                          "GraphLaunch", "BeginCapture", "GraphInstantiate",
                                          "ElapsedTime", "chrono",       "clock_gettime",
                                          "mprotect",    "dup",          "cuMemGetAddressRange",
                                          "ptrace",      "Memset",       "empty",
                                          "zeros",       "ones",         "system",
                                          "popen",       "Protect",      "full"};

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
const source::Substrings& cpp_string_parts() {
  static const source::Substrings parts = [] {
    std::vector<std::string_view> all(std::begin(kStringParts), std::end(kStringParts));
    all.insert(all.end(), std::begin(kCppParts), std::end(kCppParts));
    return source::Substrings(all);
  }();
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

std::vector<std::string_view> screen_vocabulary() {
  std::vector<std::string_view> out(std::begin(kPythonWords), std::end(kPythonWords));
  for (const FloatName& f : kPythonFloats) out.push_back(f.name);
  out.insert(out.end(), std::begin(kStringParts), std::end(kStringParts));
  out.insert(out.end(), std::begin(kCppParts), std::end(kCppParts));
  for (const FloatName& f : kCppFloatParts) out.push_back(f.name);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

namespace {

bool ident(char c) { return source::is_ident(c); }

// A byte no Python token holds, which the lexer makes an operator of its own (tokens.h): a control
// byte other than whitespace, DEL, `$`, `?` or a backtick.
bool unknown_byte(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (u < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f') || u == 0x7f || c == '$' ||
         c == '?' || c == '`';
}

// A first look at a word: whether some word of the vocabulary has its length and first two bytes,
// and some its length and last two (by their low five bits). Most names of the code fail here.
class WordFilter {
 public:
  constexpr WordFilter() {
    for (std::string_view w : kPythonWords) add(w);
    for (const FloatName& f : kPythonFloats) {
      if (!f.prefix) add(f.name);
    }
  }
  [[nodiscard, gnu::always_inline]] bool may_be(const char* w, size_t n) const {
    if (n < 2 || n >= kMaxLength) return false;
    return has(firsts_, index(n, w[0], w[1])) && has(lasts_, index(n, w[n - 2], w[n - 1]));
  }

 private:
  static constexpr size_t kMaxLength = 32;
  // A word's length and two of its bytes, by their low five bits (letters of either case alike).
  static constexpr size_t index(size_t n, char a, char b) {
    return (n * 32 + (static_cast<unsigned char>(a) & 31)) * 32 +
           (static_cast<unsigned char>(b) & 31);
  }
  using Bits = std::array<uint64_t, kMaxLength * 32 * 32 / 64>;
  static constexpr bool has(const Bits& bits, size_t bit) {
    return ((bits[bit / 64] >> (bit % 64)) & 1) != 0;
  }
  constexpr void add(std::string_view w) {
    if (w.size() >= kMaxLength) throw "a vocabulary word is too long for the filter";
    const size_t first = index(w.size(), w[0], w[1]);
    const size_t last = index(w.size(), w[w.size() - 2], w[w.size() - 1]);
    firsts_[first / 64] |= uint64_t{1} << (first % 64);
    lasts_[last / 64] |= uint64_t{1} << (last % 64);
  }
  Bits firsts_{};  // by the length and the first two bytes
  Bits lasts_{};   // by the length and the last two bytes
};
constexpr WordFilter kWordFilter;

// The vocabulary's words of each length (kPythonWords; the float names are looked at on their
// own): a word that passed the first look is compared with these only.
const std::vector<std::string_view>& vocabulary_of_length(size_t n) {
  static const auto by_length = [] {
    std::array<std::vector<std::string_view>, 33> out;
    for (std::string_view w : kPythonWords) out[w.size()].push_back(w);
    return out;
  }();
  static const std::vector<std::string_view> none;
  return n < by_length.size() ? by_length[n] : none;
}

// A first look at every name of a block at once: whether its first three bytes (by their nibbles,
// in eight buckets of the vocabulary) may be a vocabulary word's. Each word goes to the bucket it
// widens least, so that a bucket holds words alike in their first bytes: on synth's NVFP4 code
// 24% of the names of the first 20,000 codes pass, against 62% with the words dealt round the
// buckets.
// Made when the program starts (as a constant expression it would pass clang's step limit).
const source::NibbleFilter kTrigrams = [] {
  source::NibbleFilter t;
  for (std::string_view w : kPythonWords) t.add(w, t.narrowest_bucket_for(w));
  for (const FloatName& f : kPythonFloats) t.add(f.name, t.narrowest_bucket_for(f.name));
  return t;
}();

bool contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

// Whether C++ `body` may call a method whose name ends in `_` (input-write reads any such method
// of a tensor parameter, `a.mul_(b)`, not only the fill methods among the C++ parts): a name
// ending in `_` with a `(` after it and a `.` before it, blanks, line breaks, backslashes (and the
// byte an escape's backslash takes) and comments between (a comment in between counts as a yes).
bool may_call_underscore_method(std::string_view body) {
  const auto blank = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
  };
  for (size_t i = body.find('_'); i != std::string_view::npos; i = body.find('_', i + 1)) {
    if (i + 1 < body.size() && source::is_ident(body[i + 1])) continue;
    size_t j = i + 1;
    while (j < body.size() && (blank(body[j]) || body[j] == '\\')) j += body[j] == '\\' ? 2 : 1;
    if (j >= body.size() || (body[j] != '(' && body[j] != '/')) continue;
    size_t k = i;
    while (k > 0 && source::is_ident(body[k - 1])) --k;
    bool line_before = false;
    while (k > 0 && (blank(body[k - 1]) || body[k - 1] == '\\' || (k > 1 && body[k - 2] == '\\'))) {
      line_before = line_before || body[k - 1] == '\n' || body[k - 1] == '\r' ||
                    (k > 1 && body[k - 2] == '\\');
      --k;
    }
    if (k > 0 && (body[k - 1] == '.' || body[k - 1] == '/')) return true;
    if (line_before) {
      // A line comment may end the line before the name.
      size_t line = k;
      while (line > 0 && body[line - 1] != '\n' && body[line - 1] != '\r') --line;
      if (body.substr(line, k - line).find("//") != std::string_view::npos) return true;
    }
  }
  return false;
}

// The positions of byte classes in a block of code, 64 at a time (bit i: the block's byte i).
struct Block {
  uint64_t starts =
      0;  // a name's first byte: an identifier byte, not a digit, after a non-identifier
  uint64_t ident = 0;   // identifier bytes
  uint64_t equals = 0;  // '='
  uint64_t open = 0;    // ( [ {
  uint64_t close = 0;   // ) ] }
  uint64_t high = 0;    // bytes from 0x80: a name Python reads in NFKC
};
constexpr uint32_t kBlock = 64;

// The classes of a byte by its two nibbles (a bit of the class table of its low nibble and of its
// high one both set): each class a set of low nibbles under a set of high ones. Bytes from 0x80
// (UTF-8) are identifier bytes by their top bit.
enum NibbleClass : uint8_t {
  kLettersAtoO = 1,   // A-O a-o: high 4 or 6, low 1-F
  kLettersPtoZ = 2,   // P-Z p-z: high 5 or 7, low 0-A
  kUnderscore = 4,    // _: 5F
  kDigit = 8,         // 0-9: high 3, low 0-9
  kEquals = 16,       // =: 3D
  kParen = 32,        // ( ): 28 29
  kSquareCurly = 64,  // [ ] { }: 5B 5D 7B 7D
};

struct NibbleClasses {
  std::array<uint8_t, 16> low{};
  std::array<uint8_t, 16> high{};
};

constexpr NibbleClasses kNibbleClasses = [] {
  NibbleClasses t;
  const auto add = [&t](uint8_t cls, std::initializer_list<int> highs, int low_from, int low_to) {
    for (int h : highs) t.high[static_cast<size_t>(h)] |= cls;
    for (int l = low_from; l <= low_to; ++l) t.low[static_cast<size_t>(l)] |= cls;
  };
  add(kLettersAtoO, {4, 6}, 1, 15);
  add(kLettersPtoZ, {5, 7}, 0, 10);
  add(kUnderscore, {5}, 15, 15);
  add(kDigit, {3}, 0, 9);
  add(kEquals, {3}, 13, 13);
  add(kParen, {2}, 8, 9);
  add(kSquareCurly, {5, 7}, 11, 11);
  add(kSquareCurly, {5, 7}, 13, 13);
  return t;
}();

// The classes of 32 bytes at p as bit masks (`word`: the bytes a name may start with; starts not
// yet worked out), and the bytes where a vocabulary word may start by its first three (p[0..33]
// readable).
struct Classes32 {
  uint32_t word = 0;
  uint32_t ident = 0;
  uint32_t equals = 0;
  uint32_t open = 0;
  uint32_t close = 0;
  uint32_t maybe_vocabulary = 0;
  uint32_t high = 0;
};

// The vector constants of the classification, loaded once per gap (few enough to stay in
// registers).
struct ClassifyConstants {
  __m256i low_classes;
  __m256i high_classes;
  __m256i nibble;
  __m256i word_classes;
  source::NibbleFilterAvx2 first_look;
};

// A table of 16 bytes in both halves of a vector, for _mm256_shuffle_epi8.
__attribute__((target("avx2"))) inline __m256i nibble_table(const std::array<uint8_t, 16>& t) {
  return _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(t.data())));
}

// Bit `k` of each byte of v, as a mask (a shift of 16-bit lanes moves each byte's bit k to its
// top: the bits that cross from the low byte land below it).
template <int kBit>
__attribute__((target("avx2"))) inline uint32_t bit_of_bytes(__m256i v) {
  return static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_slli_epi16(v, 7 - kBit)));
}

__attribute__((target("avx2"))) inline Classes32 classify32_avx2(const char* p,
                                                                 const ClassifyConstants& k) {
  const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  const __m256i cls = _mm256_and_si256(
      _mm256_shuffle_epi8(k.low_classes, _mm256_and_si256(v, k.nibble)),
      _mm256_shuffle_epi8(k.high_classes, _mm256_and_si256(_mm256_srli_epi16(v, 4), k.nibble)));
  const auto not_word = static_cast<uint32_t>(_mm256_movemask_epi8(
      _mm256_cmpeq_epi8(_mm256_and_si256(cls, k.word_classes), _mm256_setzero_si256())));
  const auto high = static_cast<uint32_t>(_mm256_movemask_epi8(v));
  Classes32 c;
  c.word = ~not_word | high;
  c.ident = c.word | bit_of_bytes<3>(cls);
  c.equals = bit_of_bytes<4>(cls);
  // ( and [ { open, ) and ] } close: bit 0 of '(' is clear and of ')' set; bit 1 of [ { set and of
  // ] } clear.
  const uint32_t paren = bit_of_bytes<5>(cls);
  const uint32_t square_curly = bit_of_bytes<6>(cls);
  const uint32_t bit0 = bit_of_bytes<0>(v);
  const uint32_t bit1 = bit_of_bytes<1>(v);
  c.open = (paren & ~bit0) | (square_curly & bit1);
  c.close = (paren & bit0) | (square_curly & ~bit1);
  c.high = high;
  const __m256i b = source::buckets_avx2(k.first_look, p);
  c.maybe_vocabulary =
      ~static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(b, _mm256_setzero_si256())));
  return c;
}

// The classes of the 64 bytes at p (p[0..65] readable); a name's start only where a vocabulary
// word may start.
__attribute__((target("avx2"))) inline Block classify_avx2(const char* p, bool ident_before,
                                                           const ClassifyConstants& k) {
  const Classes32 lo = classify32_avx2(p, k);
  const Classes32 hi = classify32_avx2(p + 32, k);
  const auto wide = [](uint32_t l, uint32_t h) { return uint64_t{l} | (uint64_t{h} << 32); };
  Block c;
  c.ident = wide(lo.ident, hi.ident);
  c.starts = wide(lo.word, hi.word) & ~((c.ident << 1) | (ident_before ? 1U : 0U)) &
             wide(lo.maybe_vocabulary, hi.maybe_vocabulary);
  c.equals = wide(lo.equals, hi.equals);
  c.open = wide(lo.open, hi.open);
  c.close = wide(lo.close, hi.close);
  c.high = wide(lo.high, hi.high);
  return c;
}

Block classify_portable(const char* p, size_t n, bool ident_before) {
  Block c;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t bit = uint64_t{1} << i;
    if (source::is_ident(p[i])) c.ident |= bit;
    if (source::is_ident_start(p[i])) c.starts |= bit;
    if (p[i] == '=') c.equals |= bit;
    if (p[i] == '(' || p[i] == '[' || p[i] == '{') c.open |= bit;
    if (p[i] == ')' || p[i] == ']' || p[i] == '}') c.close |= bit;
    if (static_cast<unsigned char>(p[i]) >= 0x80) c.high |= bit;
  }
  c.starts &= ~((c.ident << 1) | (ident_before ? 1U : 0U));
  return c;
}

// The bracket depth after a block's brackets, from `depth` before them, as tokenize_python counts
// it: an opening one adds one, a closing one takes one if there is one to take. Worked out from the
// lowest the brackets take the depth below its start (a walk without a branch per bracket): the
// depth after is the start, or that lowest point lifted to zero, plus the block's sum.
uint32_t brackets(uint32_t depth, uint64_t open, uint64_t close) {
  int64_t sum = 0;
  int64_t lowest = 0;
  for (uint64_t m = open | close; m != 0; m &= m - 1) {
    sum += (open & m & -m) != 0 ? 1 : -1;
    lowest = sum < lowest ? sum : lowest;
  }
  return static_cast<uint32_t>(sum + std::max<int64_t>(depth, -lowest));
}

// The same, counted at once when no closing bracket can find the depth at zero (every CPU with
// AVX2 has POPCNT).
__attribute__((target("popcnt"))) inline uint32_t brackets_popcnt(uint32_t depth, uint64_t open,
                                                                  uint64_t close) {
  const auto closes = static_cast<uint32_t>(__builtin_popcountll(close));
  if (depth >= closes) return depth + static_cast<uint32_t>(__builtin_popcountll(open)) - closes;
  return brackets(depth, open, close);
}

class Screener {
 public:
  Screener(std::string_view code, const CodeContext& context)
      : text_(code), context_(context), regions_(source::python_regions(code)) {}

  Screen run() {
    Screen out;
    // A coding cookie may make another text of the bytes: the full pass reads it in its encoding.
    if (const auto cookie = source::python_coding_cookie(text_);
        cookie && !source::is_utf8_encoding(*cookie)) {
      out.reason = "coding cookie";
      return out;
    }
    // Code: the words and the shapes.
    uint32_t from = 0;
    for (size_t i = 0; i <= regions_.size(); ++i) {
      const uint32_t to = i < regions_.size() ? regions_[i].begin : text_.size();
      if (from < to && !screen_code(from, to, i)) {
        out.reason = reason_;
        return out;
      }
      if (i < regions_.size()) {
        depth_at_region_.push_back(depth_);
        from = regions_[i].end;
      }
    }
    // A compiling call's sources may be folded from any expression: the screen follows only a
    // call given literals and names each bound once to one literal (plain_call).
    // Each call's names are looked up through the text: a few calls only (more go to the full
    // pass, which reads them in one walk).
    if (compile_calls_.size() > kMostCompileCalls) {
      out.reason = "compiling call";
      return out;
    }
    for (uint32_t call : compile_calls_) {
      if (!plain_call(call)) {
        out.reason = "compiling call";
        return out;
      }
    }
    // Strings. One that reads as C++ by its text is an embedded source whatever it is passed to:
    // the caller audits it as the full pass does. Any other is a Python string, or (in a code with
    // a compiling call) maybe a C++ source given to it: it may hold no text a rule reads.
    const source::Substrings* types = context_.reference_float_bits
                                          ? narrow_cpp_type_parts(*context_.reference_float_bits)
                                          : nullptr;
    const source::Substrings& other_parts =
        compile_calls_.empty() ? string_parts() : cpp_string_parts();
    for (size_t i = 0; i < regions_.size(); ++i) {
      const Region& r = regions_[i];
      if (r.comment) continue;
      // A string that is a statement of its own (a docstring) is prose: no rule reads it.
      if (statement_string(i)) continue;
      const std::string_view body = text_.substr(r.body_begin, r.body_end - r.body_begin);
      const char* readable = text_.data() + text_.size();
      const bool narrow = types != nullptr && types->any_in(body, readable);
      if (source::reads_as_cpp(body)) {
        // A code that writes to a file may write a C++ source folded from pieces.
        if (writes_) {
          out.reason = "C++ written out";
          return out;
        }
        const bool parts =
            cpp_string_parts().any_in(body, readable) || may_call_underscore_method(body);
        if (parts || narrow) cpp_.push_back({&r, !parts});
        continue;
      }
      if (narrow || other_parts.any_in(body, readable) ||
          (!compile_calls_.empty() && may_call_underscore_method(body))) {
        out.reason = "string part";
        return out;
      }
    }
    if (first_kernel_ != UINT32_MAX && !kernel_line_start(out)) {
      out.reason = "custom_kernel form";
      return out;
    }
    // A type narrower than 32 bits with the reference unknown: precision-downgrade needs a cast
    // down and a cast back in one scope; the tokens, statements and scopes tell (no expression is
    // evaluated).
    if (!cast_type_.empty() && dtype_argument_in_code() &&
        may_cast_down_and_back(source::PythonModel(text_, {}, source::ModelParts::STRUCTURE))) {
      out.reason = "word " + std::string(cast_type_);
      return out;
    }
    source::PythonLines lines(text_, regions_);
    for (const auto& [r, types_only] : cpp_) {
      source::Token t;
      t.kind = source::TokenKind::STRING;
      t.begin = r->begin;
      t.end = r->end;
      t.line = lines.at(r->begin);
      t.flags = static_cast<uint8_t>((r->triple ? source::kTokenTriple : 0) |
                                     (r->body_end < r->end ? source::kTokenClosed : 0));
      out.cpp.push_back({t, types_only});
    }
    out.full = false;
    return out;
  }

 private:
  // Whether the word [b, e) of code is one a rule reads (false: the full pass must run). The first
  // look, inline: most names are no vocabulary word and no float type.
  [[gnu::always_inline]] bool word_is_quiet(uint32_t b, uint32_t e, size_t regions_before) {
    const char* w = text_.data() + b;
    const size_t n = e - b;
    if (!(n >= 6 && std::memcmp(w, "float", 5) == 0) && !kWordFilter.may_be(w, n)) return true;
    return word_is_quiet_slow(b, e, regions_before);
  }

  // The same, for a word that passed the first look. Notes where `custom_kernel` is.
  [[gnu::noinline]] bool word_is_quiet_slow(uint32_t b, uint32_t e, size_t regions_before) {
    const char* w = text_.data() + b;
    const size_t n = e - b;
    // A type is read after a dot (torch.float16, x.half(); a comment or a newline inside
    // brackets may come between) or where an import binds it (from torch import float16).
    if (n >= 6 && std::memcmp(w, "float", 5) == 0 && narrower_python_float(w, n) &&
        type_is_read(b, regions_before)) {
      return cast_type_is_quiet(b, e);
    }
    if (!kWordFilter.may_be(w, n)) return true;
    const std::string_view word(w, n);
    if (narrower_python_float(w, n) && type_is_read(b, regions_before)) {
      return cast_type_is_quiet(b, e);
    }
    for (std::string_view v : vocabulary_of_length(n)) {
      if (v[0] != w[0] || v != word) continue;
      if (v == "custom_kernel") return kernel_at(b, regions_before);
      if (is_compile_call(v)) {
        compile_calls_.push_back(b);
        return true;
      }
      // x.write(...): a C++ source may be folded and written out (for nvcc): see the strings.
      if (v == "write") {
        writes_ = writes_ || right_after_dot(b, regions_before);
        return true;
      }
      // os.environ, os.getenv: env-mode-check reads them only with a key that names a mode.
      if (v == "environ" || v == "getenv") return !mode_word_in_a_string();
      // exec(...), eval, compile, id, __import__: the rules read them as a name of their own, never
      // after a dot (torch.compile is not compile).
      const bool bare_call =
          v == "exec" || v == "eval" || v == "compile" || v == "id" || v == "__import__";
      return bare_call && attribute_of_an_operand(b, regions_before);
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

  // A type narrower than the reference's; without a reference, any narrower than float32
  // (precision-downgrade then reads a cast down and back to an input's dtype).
  [[nodiscard]] bool narrower_python_float(const char* w, size_t n) const {
    const int limit = context_.reference_float_bits.value_or(32);
    for (const FloatName& f : kPythonFloats) {
      const bool match =
          f.prefix ? n >= f.name.size() && std::memcmp(w, f.name.data(), f.name.size()) == 0
                   : n == f.name.size() && std::memcmp(w, f.name.data(), n) == 0;
      if (match && f.bits < limit) return true;
    }
    return false;
  }

  // Whether the floating-point type's name at `b` is where a rule may read it: after a dot, or
  // where an import may bind it (after `import`, or a `,` or `(` of an import's list).
  [[nodiscard]] bool type_is_read(uint32_t b, size_t regions_before) const {
    const int64_t q = significant_before(b, regions_before);
    if (q < 0) return false;
    const char c = text_[static_cast<size_t>(q)];
    if (c == '.' || c == ',' || c == '(') return true;
    if (!ident(c)) return false;
    int64_t s = q;
    while (s > 0 && ident(text_[static_cast<size_t>(s - 1)])) --s;
    return text_.substr(static_cast<size_t>(s), static_cast<size_t>(q - s + 1)) == "import";
  }

  // The type [b, e), narrower than the reference's, read by precision-downgrade: with the
  // reference known, the full pass must run (false); with it unknown, the rule fires only on a
  // cast down and a cast back in one scope, which run() asks once the rest of the code is quiet.
  bool cast_type_is_quiet(uint32_t b, uint32_t e) {
    if (context_.reference_float_bits) return false;
    if (cast_type_.empty()) cast_type_ = text_.substr(b, e - b);
    return true;
  }

  // Whether `X.dtype` stands in code where it may be a cast back's argument (not followed by `.`,
  // `(` or `[`): the cheap text form of may_cast_down_and_back's second half.
  [[nodiscard]] bool dtype_argument_in_code() const {
    const char* t = text_.data();
    for (size_t at = text_.find("dtype"); at != std::string_view::npos;
         at = text_.find("dtype", at + 1)) {
      const auto p = static_cast<uint32_t>(at);
      const uint32_t e = p + 5;
      if ((p > 0 && ident(t[p - 1])) || (e < text_.size() && ident(t[e]))) continue;
      if (region_at(p) != nullptr) continue;
      const auto before = static_cast<size_t>(
          std::upper_bound(regions_.begin(), regions_.end(), p,
                           [](uint32_t x, const Region& r) { return x < r.begin; }) -
          regions_.begin());
      if (!dot_before(p, before)) continue;
      uint32_t q = e;
      for (;;) {
        while (q < text_.size() && (t[q] == ' ' || t[q] == '\t' || t[q] == '\f' || t[q] == '\n' ||
                                    t[q] == '\r' || t[q] == '\\')) {
          ++q;
        }
        const Region* r = q < text_.size() ? region_at(q) : nullptr;
        if (r == nullptr || !r->comment) break;
        q = r->end;
      }
      if (q >= text_.size() || (t[q] != '.' && t[q] != '(' && t[q] != '[')) return true;
    }
    return false;
  }

  // Whether the word at `b` is right after a dot (right_after_dot) that itself follows an operand
  // on its line: a name, a closing bracket or a string. A dot that starts a line, or follows an
  // operator or a number (`1.compile`: the lexer reads `1.`), leaves the word a name of its own
  // for the rules.
  [[nodiscard]] bool attribute_of_an_operand(uint32_t b, size_t regions_before) const {
    if (!right_after_dot(b, regions_before)) return false;
    const uint32_t gap_begin = regions_before > 0 ? regions_[regions_before - 1].end : 0;
    uint32_t q = b;
    while (text_[q - 1] != '.') --q;
    --q;  // the dot
    while (q > gap_begin && (text_[q - 1] == ' ' || text_[q - 1] == '\t' || text_[q - 1] == '\f')) {
      --q;
    }
    if (q == gap_begin) return regions_before > 0 && !regions_[regions_before - 1].comment;
    const char c = text_[q - 1];
    if (c == ')' || c == ']' || c == '}') return true;
    if (!ident(c)) return false;
    const uint32_t end = q;
    while (q > gap_begin && ident(text_[q - 1])) --q;
    if (text_[q] >= '0' && text_[q] <= '9') return false;
    // A keyword is no operand (`return .compile(...)`).
    static constexpr std::string_view kKeywords[] = {
        "False",  "None",    "True",  "and",      "as",     "assert", "async",  "await",
        "break",  "case",    "class", "continue", "def",    "del",    "elif",   "else",
        "except", "finally", "for",   "from",     "global", "if",     "import", "in",
        "is",     "lambda",  "match", "nonlocal", "not",    "or",     "pass",   "raise",
        "return", "try",     "while", "with",     "yield"};
    const std::string_view word = text_.substr(q, end - q);
    return std::find(std::begin(kKeywords), std::end(kKeywords), word) == std::end(kKeywords);
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
    // An operator before `+=`, or apart before `=` (`X ++= 1`, `X.Y + = 1`; the lexer reads `+`
    // then `+=` or `=`): no Python, but the full pass reads a target before it; it decides.
    if (q >= 0 && (at != e || q + 1 < at) &&
        std::string_view("+-*/%&|^<>=!~@").find(text_[static_cast<size_t>(q)]) !=
            std::string_view::npos) {
      return true;
    }
    // A byte no Python token holds (a control byte, `$`, `?`, a backtick), which the lexer reads
    // as an operator of its own: the full pass reads a target through it; it decides.
    if (q >= 0 && unknown_byte(text_[static_cast<size_t>(q)])) return true;
    // X[...] += : a module container's item counted (call-counter), wherever it is.
    if (at != e && q >= 0 && text_[static_cast<size_t>(q)] == ']') return true;
    // The name before it, then what comes before the name: a run of identifier bytes never holds a
    // region's start, so it is all in one gap.
    if (q < 0 || !ident(text_[static_cast<size_t>(q)])) return false;
    while (q >= 0 && ident(text_[static_cast<size_t>(q)])) --q;
    const auto before_name = static_cast<uint32_t>(q + 1);
    while (regions_before > 0 && regions_[regions_before - 1].end > before_name) --regions_before;
    q = significant_before(before_name, regions_before);
    if (q >= 0 && text_[static_cast<size_t>(q)] == '.') return true;
    // `+=` to a name that does not start its statement (`self.x y += 1`, `a + n += 1`): no Python,
    // but the full pass reads the statement's first name as the target's root; it decides.
    return at != e && !starts_statement(before_name);
  }

  // Whether a statement may start at `b`: only blanks between it and the text's start, a line
  // break (not continued by a backslash), `;` or `:`.
  [[nodiscard]] bool starts_statement(uint32_t b) const {
    while (b > 0 && (text_[b - 1] == ' ' || text_[b - 1] == '\t' || text_[b - 1] == '\f')) --b;
    if (b == 0) return true;
    const char c = text_[b - 1];
    if (c == ';' || c == ':') return true;
    if (c != '\n' && c != '\r') return false;
    --b;
    while (b > 0 && (text_[b - 1] == '\n' || text_[b - 1] == '\r')) --b;
    return b == 0 || text_[b - 1] != '\\';
  }

  // `custom_kernel` at `b`: notes the first that follows `def` (false when the form is one the
  // screen does not follow).
  bool kernel_at(uint32_t b, size_t regions_before) {
    const int64_t q = significant_before(b, regions_before);
    if (q < 2 || text_.substr(static_cast<size_t>(q) - 2, 3) != "def") {
      // A call is a use; anything else may bind the entry to another function (`custom_kernel =
      // torch.compile(f)`, a tuple target, an alias): the full pass finds which.
      uint32_t e = b + 13;
      while (e < text_.size() && (text_[e] == ' ' || text_[e] == '\t')) ++e;
      return e < text_.size() && text_[e] == '(';
    }
    if (first_kernel_ != UINT32_MAX) return true;  // the function rules read from the first on
    const auto d = static_cast<uint32_t>(q - 2);
    if (d > 0 && ident(text_[d - 1])) return true;  // a longer word: undef, ...
    if (in_region(d)) return false;
    first_kernel_ = d;
    kernel_depth_ = depth_before_line(d);
    return true;
  }

  // The bracket depth at the newline before the line of `d` (0 at the text's first line), from the
  // last blocks read: the line's newline is a few bytes before `d`, in its gap.
  [[nodiscard]] uint32_t depth_before_line(uint32_t d) const {
    uint32_t p0 = d;
    while (p0 > 0 && (text_[p0 - 1] == ' ' || text_[p0 - 1] == '\t' || text_[p0 - 1] == '\f')) {
      --p0;
    }
    if (p0 == 0) return 0;
    uint32_t nl = p0 - 1;
    if (text_[nl] == '\n' && nl > 0 && text_[nl - 1] == '\r') --nl;
    // The latest block that starts at or before nl.
    const std::pair<uint32_t, uint32_t>* from = nullptr;
    for (const auto& r : recent_) {
      if (r.first <= nl && (from == nullptr || r.first > from->first)) from = &r;
    }
    if (from == nullptr || nl - from->first > recent_.size() * kBlock) {
      return UINT32_MAX;  // not among them
    }
    uint32_t depth = from->second;
    for (uint32_t q = from->first; q < nl; ++q) {
      const char c = text_[q];
      if (c == '(' || c == '[' || c == '{') ++depth;
      if ((c == ')' || c == ']' || c == '}') && depth > 0) --depth;
    }
    return depth;
  }

  // The line start of the first `def custom_kernel`, when it starts a logical line at depth 0 and
  // is not indented. An indented one is the entry inside an `if` at the module's level, and none
  // inside a function or a class (the harness imports the module's own); which it is, the scopes of
  // the full pass say.
  bool kernel_line_start(Screen& out) {
    uint32_t p0 = first_kernel_;
    while (p0 > 0 && (text_[p0 - 1] == ' ' || text_[p0 - 1] == '\t' || text_[p0 - 1] == '\f')) {
      --p0;
    }
    if (p0 != first_kernel_) return false;
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

  // The depth after a block's brackets (`open`, `close`): an opening one adds one, a closing one
  // takes one if there is one to take.
  template <bool kPopcnt>
  void count_brackets(uint64_t open, uint64_t close) {
    depth_ = kPopcnt ? brackets_popcnt(depth_, open, close) : brackets(depth_, open, close);
  }

  // The code [from, to): false when it holds a word or a shape a rule reads.
  bool screen_code(uint32_t from, uint32_t to, size_t regions_before) {
    return use_avx2() ? screen_code_avx2(from, to, regions_before)
                      : screen_code_portable(from, to, regions_before);
  }

  // With the vector instructions: first the classes of every block the text can be read past, in
  // a loop that calls nothing (its constants stay in registers), then the blocks' names and `=`.
  __attribute__((target("avx2,popcnt"))) bool screen_code_avx2(uint32_t from, uint32_t to,
                                                               size_t regions_before) {
    const char* t = text_.data();
    const ClassifyConstants k{
        nibble_table(kNibbleClasses.low), nibble_table(kNibbleClasses.high), _mm256_set1_epi8(15),
        _mm256_set1_epi8(kLettersAtoO | kLettersPtoZ | kUnderscore), source::load_avx2(kTrigrams)};
    const size_t blocks = (to - from + kBlock - 1) / kBlock;
    if (blocks_.size() < blocks) blocks_.resize(blocks);
    Block* out = blocks_.data();
    bool ident_before = false;
    uint32_t at = from;
    // Whole blocks where the text goes on 66 bytes (the bytes past `to` are masked; the two after
    // a block are read by the names' first look).
    for (; at < to && size_t{at} + kBlock + 2 <= text_.size(); at += kBlock, ++out) {
      Block c = classify_avx2(t + at, ident_before, k);
      const uint32_t n = to - at < kBlock ? to - at : kBlock;
      const uint64_t valid = n == kBlock ? ~uint64_t{0} : (uint64_t{1} << n) - 1;
      ident_before = ((c.ident >> (n - 1)) & 1) != 0;
      c.starts &= valid;
      c.ident &= valid;
      c.equals &= valid;
      c.open &= valid;
      c.close &= valid;
      c.high &= valid;
      *out = c;
    }
    const size_t classified = static_cast<size_t>(out - blocks_.data());
    for (size_t i = 0; i < classified; ++i) {
      if (!block_is_quiet<true>(from + static_cast<uint32_t>(i) * kBlock, blocks_[i], to,
                                regions_before)) {
        return false;
      }
    }
    // The last bytes, too near the text's end for a whole load.
    return screen_bytes<true>(at, to, ident_before, regions_before);
  }

  bool screen_code_portable(uint32_t from, uint32_t to, size_t regions_before) {
    return screen_bytes<false>(from, to, false, regions_before);
  }

  // The code [at, to) classified byte by byte, a block at a time (`ident_before`: whether the
  // byte before `at` is an identifier byte).
  template <bool kPopcnt>
  bool screen_bytes(uint32_t at, uint32_t to, bool ident_before, size_t regions_before) {
    for (; at < to; at += kBlock) {
      const uint32_t n = to - at < kBlock ? to - at : kBlock;
      const Block c = classify_portable(text_.data() + at, n, ident_before);
      ident_before = ((c.ident >> (n - 1)) & 1) != 0;
      if (!block_is_quiet<kPopcnt>(at, c, to, regions_before)) return false;
    }
    return true;
  }

  // The block at `at` with its classes `c` (nothing set past the gap's end `to`): its brackets
  // counted, its `=` and its names looked at.
  template <bool kPopcnt>
  [[gnu::always_inline]] bool block_is_quiet(uint32_t at, const Block& c, uint32_t to,
                                             size_t regions_before) {
    const char* t = text_.data();
    if (c.high != 0) {
      reason_ = "name of other letters";  // Python reads it in NFKC
      return false;
    }
    recent_[recent_next_++ % recent_.size()] = {at, depth_};
    count_brackets<kPopcnt>(c.open, c.close);
    const uint32_t gap_begin = regions_before > 0 ? regions_[regions_before - 1].end : 0;
    for (uint64_t m = c.equals; m != 0; m &= m - 1) {
      if (assigns_attribute(at + static_cast<uint32_t>(__builtin_ctzll(m)), gap_begin,
                            regions_before)) {
        reason_ = "attribute assignment";
        return false;
      }
    }
    for (uint64_t m = c.starts; m != 0; m &= m - 1) {
      const auto bit = static_cast<uint32_t>(__builtin_ctzll(m));
      const uint32_t b = at + bit;
      // The word's end from the block's identifier bytes, then byte by byte past the block.
      const uint64_t rest = ~c.ident >> bit;
      uint32_t e = rest != 0 ? b + static_cast<uint32_t>(__builtin_ctzll(rest)) : at + kBlock;
      if (rest == 0) {
        while (e < to && ident(t[e])) ++e;
      }
      if (!word_is_quiet(b, e, regions_before)) {
        reason_ = "word " + std::string(t + b, e - b);
        return false;
      }
    }
    return true;
  }

  static bool is_compile_call(std::string_view w) {
    return w == "load_inline" || w == "compile_kernel" || w == "_compile_kernel" ||
           w == "RawKernel" || w == "RawModule" || w == "SourceModule";
  }

  // The region holding `pos`, or nullptr.
  [[nodiscard]] const Region* region_at(uint32_t pos) const {
    auto it = std::upper_bound(regions_.begin(), regions_.end(), pos,
                               [](uint32_t p, const Region& r) { return p < r.begin; });
    if (it == regions_.begin()) return nullptr;
    --it;
    return pos < it->end ? &*it : nullptr;
  }

  // Whether the compiling call whose name starts at `b` is given only literals (each one alone,
  // no f-string, no concatenation), lists of them, numbers, True / False / None and names each
  // bound (plain_name) to one literal: then the C++ it compiles is those literals, which the
  // screen reads (as C++ if they read so, else for every part a rule reads).
  [[nodiscard]] bool plain_call(uint32_t b) const {
    const char* t = text_.data();
    uint32_t p = b;
    while (p < text_.size() && ident(t[p])) ++p;
    while (p < text_.size() && (t[p] == ' ' || t[p] == '\t')) ++p;
    if (p >= text_.size() || t[p] != '(') {
      // Not called here: only an import that keeps the name (`from x import load_inline`) binds
      // nothing else to it; an alias, an `as`, an argument would hide the calls.
      uint32_t ls = b;
      while (ls > 0 && t[ls - 1] != '\n' && t[ls - 1] != '\r') --ls;
      const std::string_view line(t + ls, p - ls);
      const size_t first = line.find_first_not_of(" \t");
      const bool import =
          first != std::string_view::npos &&
          (line.substr(first).starts_with("from ") || line.substr(first).starts_with("import "));
      const bool as = text_.substr(p, 3) == "as " || text_.substr(p, 3) == "as\t";
      return import && !as;
    }
    int depth = 0;
    bool after_string = false;
    for (; p < text_.size(); ++p) {
      if (const Region* r = region_at(p)) {
        if (!r->comment) {
          if (after_string) return false;  // adjacent literals: concatenated
          // A prefix with f: an f-string.
          for (uint32_t q = r->begin; q > 0 && ident(t[q - 1]); --q) {
            if (t[q - 1] == 'f' || t[q - 1] == 'F') return false;
          }
          after_string = true;
        }
        p = r->end - 1;
        continue;
      }
      const char c = t[p];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\\') continue;
      if (c == '(' || c == '[' || c == '{') {
        // A bracket after a name or a closing bracket is a call or an item: not a literal.
        if (depth > 0 && (c == '(' || c == '[')) {
          uint32_t q = p;
          while (q > 0 && (t[q - 1] == ' ' || t[q - 1] == '\t')) --q;
          if (c == '(' && q > 0 && (ident(t[q - 1]) || t[q - 1] == ')' || t[q - 1] == ']')) {
            return false;
          }
        }
        if (c == '{') return false;
        ++depth;
        after_string = false;
        continue;
      }
      if (c == ')' || c == ']') {
        if (--depth == 0) return true;
        after_string = false;
        continue;
      }
      if (c == ',') {
        after_string = false;
        continue;
      }
      if (c == '=' && p + 1 < text_.size() && t[p + 1] != '=') {
        after_string = false;
        continue;
      }
      if (c >= '0' && c <= '9') {
        while (p + 1 < text_.size() && (ident(t[p + 1]) || t[p + 1] == '.')) ++p;
        after_string = false;
        continue;
      }
      if (ident(c)) {
        uint32_t e = p;
        while (e < text_.size() && ident(t[e])) ++e;
        const std::string_view name(t + p, e - p);
        uint32_t q = e;
        while (q < text_.size() && (t[q] == ' ' || t[q] == '\t')) ++q;
        const bool keyword =
            q < text_.size() && t[q] == '=' && !(q + 1 < text_.size() && t[q + 1] == '=');
        const bool string_prefix = q == e && q < text_.size() && region_at(q) != nullptr;
        if (!keyword && !string_prefix && name != "True" && name != "False" && name != "None" &&
            !plain_name(name, 0)) {
          return false;
        }
        p = e - 1;
        after_string = false;
        continue;
      }
      return false;  // an operator, a dot, ...: an expression
    }
    return false;
  }

  // The bracket depth of code at `pos`, counted from the text's start (a rare question: the
  // keyword arguments of a compiling call on its continuation lines).
  [[nodiscard]] uint32_t depth_before(uint32_t pos) const {
    uint32_t depth = 0;
    for (uint32_t q = 0; q < pos; ++q) {
      if (const Region* r = region_at(q)) {
        q = r->end - 1;
        continue;
      }
      const char c = text_[q];
      if (c == '(' || c == '[' || c == '{') ++depth;
      if ((c == ')' || c == ']' || c == '}') && depth > 0) --depth;
    }
    return depth;
  }

  // Whether `name` is bound only at the start of lines, each time to one string literal (or to a
  // name so bound), and by nothing else (no for, with, import, def, tuple target or +=).
  [[nodiscard]] bool plain_name(std::string_view name, int depth) const {
    if (depth > 3) return false;
    if (const auto known = plain_names_.find(name); known != plain_names_.end()) {
      return known->second;
    }
    const bool plain = plain_name_uncached(name, depth);
    plain_names_.emplace(name, plain);
    return plain;
  }

  [[nodiscard]] bool plain_name_uncached(std::string_view name, int depth) const {
    const char* t = text_.data();
    bool bound = false;
    for (size_t at = text_.find(name); at != std::string_view::npos;
         at = text_.find(name, at + 1)) {
      const auto p = static_cast<uint32_t>(at);
      const uint32_t e = p + static_cast<uint32_t>(name.size());
      if ((p > 0 && ident(t[p - 1])) || (e < text_.size() && ident(t[e]))) continue;
      if (region_at(p) != nullptr) continue;
      if (p > 0 && t[p - 1] == '.') continue;  // an attribute of something else
      // The line around it.
      uint32_t ls = p;
      while (ls > 0 && t[ls - 1] != '\n' && t[ls - 1] != '\r') --ls;
      uint32_t q = e;
      while (q < text_.size() && (t[q] == ' ' || t[q] == '\t')) ++q;
      const bool assigned =
          q < text_.size() && ((t[q] == '=' && !(q + 1 < text_.size() && t[q + 1] == '=')) ||
                               (t[q] == '+' && q + 1 < text_.size() && t[q + 1] == '='));
      const std::string_view before(t + ls, p - ls);
      const bool blank_before = before.find_first_not_of(" \t") == std::string_view::npos;
      if (blank_before && q < text_.size() && t[q] == ':') return false;  // annotated
      for (std::string_view k : {"for ", "as ", "import ", "def ", "class ", "del "}) {
        if (before.find(k) != std::string_view::npos) return false;  // bound another way
      }
      if (!assigned) continue;  // a use
      if (t[q] != '=' || !blank_before) {
        // `f(x, name=...)` binds nothing (a keyword argument: inside an open bracket);
        // `a, name = ...` and `name += ...` do.
        if (t[q] == '=') {
          int open = 0;
          for (char c : before) open += c == '(' ? 1 : c == ')' ? -1 : 0;
          if (open > 0) continue;
          // A keyword argument on a continuation line of a call: the bracket is on a line
          // before; what comes right before the name is then ',' or '('.
          const size_t last = before.find_last_not_of(" \t");
          if (last == std::string_view::npos || before[last] == ',' || before[last] == '(') {
            if (depth_before(p) > 0) continue;
          }
        }
        return false;
      }
      // NAME = <one literal> [# comment] | NAME = <name bound so>
      uint32_t v = q + 1;
      while (v < text_.size() && (t[v] == ' ' || t[v] == '\t')) ++v;
      uint32_t end = v;
      const Region* r = region_at(v);
      // A literal with a prefix (r, b, u; never f).
      uint32_t lit = v;
      while (lit < text_.size() && ident(t[lit]) && region_at(lit) == nullptr) ++lit;
      r = region_at(lit);
      if (r != nullptr && !r->comment && r->begin == lit) {
        for (uint32_t k = v; k < lit; ++k) {
          if (t[k] == 'f' || t[k] == 'F') return false;
        }
        end = r->end;
      } else if (ident(t[v])) {
        uint32_t w = v;
        while (w < text_.size() && ident(t[w])) ++w;
        if (!plain_name(std::string_view(t + v, w - v), depth + 1)) return false;
        end = w;
      } else {
        return false;
      }
      while (end < text_.size() && (t[end] == ' ' || t[end] == '\t')) ++end;
      if (end < text_.size() && t[end] != '\n' && t[end] != '\r') {
        const Region* c = region_at(end);
        if (c == nullptr || !c->comment) return false;
      }
      bound = true;
    }
    return bound;
  }

  std::string_view text_;
  const CodeContext& context_;
  std::vector<Region> regions_;
  std::vector<uint32_t> compile_calls_;  // where the compiling calls' names start
  bool writes_ = false;                  // a method write(...) is called
  static constexpr size_t kMostCompileCalls = 16;
  mutable std::unordered_map<std::string_view, bool> plain_names_;  // plain_name's answers
  std::vector<uint32_t> depth_at_region_;  // the bracket depth where each region starts
  std::string reason_;
  std::string_view cast_type_;  // the first type cast_type_is_quiet let through

  // Whether string region i is a statement of its own: it (and any literals right after it)
  // stands alone on a logical line, at depth 0, as the lexer reads one.
  [[nodiscard]] bool statement_string(size_t i) const {
    const char* t = text_.data();
    // The start of a literal: its prefix (one or two of r, b, u, f), or nullopt-like UINT32_MAX
    // when a name runs into its quote.
    const auto literal_start = [&](size_t k) -> uint32_t {
      const uint32_t p = regions_[k].begin;
      uint32_t q = p;
      while (q > 0 && p - q < 2 && source::is_one_of("rRbBuUfF", t[q - 1])) --q;
      if (q > 0 && ident(t[q - 1])) return UINT32_MAX;
      return q;
    };
    // The first literal of the run of adjacent ones this region is part of.
    size_t first = i;
    for (;;) {
      const uint32_t s0 = literal_start(first);
      if (s0 == UINT32_MAX) return false;
      uint32_t q = s0;
      while (q > 0 && (t[q - 1] == ' ' || t[q - 1] == '\t' || t[q - 1] == '\f')) --q;
      if (first > 0 && !regions_[first - 1].comment && regions_[first - 1].end == q && q > 0) {
        --first;
        continue;
      }
      break;
    }
    if (first >= depth_at_region_.size() || depth_at_region_[first] != 0) return false;
    // Before: blanks back to a line break (not one a backslash joins), a ';' or the text's start.
    uint32_t p = literal_start(first);
    for (;;) {
      while (p > 0 && (t[p - 1] == ' ' || t[p - 1] == '\t' || t[p - 1] == '\f')) --p;
      if (p == 0) break;
      const char c = t[p - 1];
      if (c == ';') break;
      if (c == '\n' || c == '\r') {
        uint32_t q = p - 1;
        if (c == '\n' && q > 0 && t[q - 1] == '\r') --q;
        if (q > 0 && t[q - 1] == '\\' && !in_region(q - 1)) return false;
        break;
      }
      return false;
    }
    // After: more literals, then a line break, ';', a comment or the text's end.
    size_t j = i;
    for (;;) {
      uint32_t e = regions_[j].end;
      while (e < text_.size() && (t[e] == ' ' || t[e] == '\t' || t[e] == '\f')) ++e;
      if (e >= text_.size() || t[e] == '\n' || t[e] == '\r' || t[e] == ';') return true;
      if (j + 1 < regions_.size() && regions_[j + 1].begin == e) {
        if (regions_[j + 1].comment) return true;
        ++j;
        continue;
      }
      // a prefixed literal right after: r"..."
      uint32_t q = e;
      while (q < text_.size() && q - e < 2 && source::is_one_of("rRbBuUfF", t[q])) ++q;
      if (q > e && j + 1 < regions_.size() && regions_[j + 1].begin == q &&
          !regions_[j + 1].comment) {
        ++j;
        continue;
      }
      return false;
    }
  }
  std::vector<std::pair<const Region*, bool>> cpp_;  // a C++ string, and whether types only
  std::vector<Block> blocks_;                        // screen_code_avx2's classes of a gap's blocks
  uint32_t first_kernel_ = UINT32_MAX;
  int mode_words_ = -1;  // mode_word_in_a_string, once known
  uint32_t depth_ = 0;   // the bracket depth after the blocks read
  // The last blocks' starts and the depth there; kernel_depth_: the depth at the newline before
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
