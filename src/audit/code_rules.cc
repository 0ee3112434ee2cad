#include "audit/code_rules.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "audit/code_screen.h"
#include "source/bytes.h"
#include "source/cpp_regions.h"
#include "source/embedded.h"
#include "source/python_imports.h"
#include "source/substrings.h"
#include "source/token_view.h"
#include "source/tokens.h"

namespace kbdata::audit {

using source::Token;
using source::TokenKind;

namespace {

template <size_t N>
bool one_of(std::string_view s, const std::array<std::string_view, N>& set) {
  for (std::string_view w : set) {
    if (w.size() == s.size() && w[0] == s[0] && w == s) return true;
  }
  return false;
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}
bool contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

constexpr std::array<std::string_view, 15> kTimerAttrs = {
    "perf_counter", "perf_counter_ns", "time",  "time_ns",       "monotonic",
    "monotonic_ns", "process_time",    "Event", "elapsed_time",  "record",
    "synchronize",  "do_bench",        "Timer", "default_timer", "do_bench_cudagraph"};
constexpr std::array<std::string_view, 5> kTimerModules = {"time.", "torch.cuda.", "timeit.",
                                                           "triton.testing.", "triton."};
constexpr std::array<std::string_view, 8> kHarnessModules = {
    "eval", "utils", "reference", "task", "__main__", "builtins", "__builtins__", "run_eval"};
constexpr std::array<std::string_view, 7> kTimerCalls = {
    "time.perf_counter", "time.perf_counter_ns", "time.time",           "time.monotonic",
    "time.process_time", "torch.cuda.Event",     "timeit.default_timer"};
constexpr std::array<std::string_view, 7> kFrameCalls = {
    "sys._getframe",          "inspect.stack",        "inspect.currentframe",
    "inspect.getouterframes", "inspect.getframeinfo", "traceback.extract_stack",
    "traceback.format_stack"};
constexpr std::array<std::string_view, 4> kFrameAttrs = {"f_back", "f_locals", "f_globals",
                                                         "f_code"};
constexpr std::array<std::string_view, 9> kSeedCalls = {"torch.manual_seed",
                                                        "torch.cuda.manual_seed",
                                                        "torch.cuda.manual_seed_all",
                                                        "torch.random.manual_seed",
                                                        "random.seed",
                                                        "numpy.random.seed",
                                                        "np.random.seed",
                                                        "torch.seed",
                                                        "torch.cuda.seed"};
constexpr std::array<std::string_view, 8> kStateCalls = {
    "get_rng_state", "set_rng_state", "get_rng_state_all", "set_rng_state_all",
    "getstate",      "setstate",      "get_state",         "set_state"};
constexpr std::array<std::string_view, 11> kDecoders = {
    "base64",  "b64decode", "b85decode", "zlib", "lzma",  "bz2",
    "marshal", "codecs",    "fromhex",   "chr",  "decode"};
constexpr std::array<std::string_view, 7> kNetworkPrefixes = {
    "urllib.request", "requests.", "http.client", "socket.socket",
    "torch.hub.",     "wget.",     "urllib3."};
constexpr std::array<std::string_view, 5> kCodeLoad = {
    "importlib.util.spec_from_file_location", "importlib.util.module_from_spec", "runpy.run_path",
    "runpy.run_module", "importlib.machinery.SourceFileLoader"};
constexpr std::array<std::string_view, 6> kFillMethods = {"zero_",    "fill_",   "normal_",
                                                          "uniform_", "random_", "bernoulli_"};
constexpr std::array<std::string_view, 12> kViewMethods = {
    "view",   "reshape", "view_as", "as_strided", "contiguous", "clone",
    "detach", "flatten", "squeeze", "unsqueeze",  "t",          "expand"};
constexpr std::array<std::string_view, 6> kCppStreamCreate = {
    "cudaStreamCreate", "cudaStreamCreateWithFlags", "cudaStreamCreateWithPriority",
    "hipStreamCreate",  "hipStreamCreateWithFlags",  "getStreamFromPool"};
constexpr std::array<std::string_view, 8> kCppStreamSync = {
    "cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaStreamWaitEvent", "cudaEventSynchronize",
    "hipStreamSynchronize",  "hipDeviceSynchronize",  "hipStreamWaitEvent",  "hipEventSynchronize"};
constexpr std::array<std::string_view, 6> kCppGraph = {
    "cudaGraphLaunch", "cudaStreamBeginCapture", "cudaGraphInstantiate",
    "hipGraphLaunch",  "hipStreamBeginCapture",  "hipGraphInstantiate"};
constexpr std::array<std::string_view, 4> kCppTimers = {
    "cudaEventElapsedTime", "hipEventElapsedTime", "chrono", "clock_gettime"};

// The names the C++ rules compare but the types and the cudaMemcpy prefix, for a first look at
// each name: whether one of them has its length and first two bytes.
class CppWordFilter {
 public:
  constexpr CppWordFilter() {
    add("POPCORN_FD");
    add("getenv");
    add("secure_getenv");
    for (std::string_view w : kCppStreamCreate) add(w);
    for (std::string_view w : kCppStreamSync) add(w);
    for (std::string_view w : kCppGraph) add(w);
    for (std::string_view w : kCppTimers) add(w);
  }
  [[nodiscard]] bool may_be(std::string_view w) const {
    if (w.size() < 2 || w.size() >= kMaxLength) return false;
    return bits_[index(w)] != 0;
  }

 private:
  static constexpr size_t kMaxLength = 40;
  static constexpr size_t index(std::string_view w) {
    return (w.size() * 64 + (static_cast<unsigned char>(w[0]) & 63)) * 64 +
           (static_cast<unsigned char>(w[1]) & 63);
  }
  constexpr void add(std::string_view w) {
    if (w.size() >= kMaxLength) throw "a C++ word is too long for the filter";
    bits_[index(w)] = 1;
  }
  std::array<uint8_t, kMaxLength * 64 * 64> bits_{};
};
constexpr CppWordFilter kCppWordFilter;

// The width in bits of a floating-point type's name, or 0.
int float_bits(std::string_view name, bool cpp) {
  // Compared with literals of known length: the compiler turns each into a few loads.
  const auto is = [&](const auto& literal) {
    constexpr size_t n = sizeof(literal) - 1;
    return name.size() == n && std::memcmp(name.data(), literal, n) == 0;
  };
  const auto starts = [&](const auto& literal) {
    constexpr size_t n = sizeof(literal) - 1;
    return name.size() >= n && std::memcmp(name.data(), literal, n) == 0;
  };
  if (name.empty()) return 0;
  // Every name below starts with d, f, h, b or _: most words are refused on their first byte.
  switch (name[0]) {
    case 'd':
      return is("double") ? 64 : 0;
    case 'f':
    case 'h':
    case 'b':
      if (!cpp) {
        for (const FloatTypeName& f : kPythonFloatTypes) {
          const bool match = f.prefix ? name.substr(0, f.name.size()) == f.name : name == f.name;
          if (match) return f.bits;
        }
        return 0;
      }
      if (is("float") || is("float2") || is("float4")) return 32;
      return is("half") || is("half2") || is("bf16") ? 16 : 0;
    case '_':
      if (!cpp || name.size() < 6 || name[1] != '_') return 0;
      if (is("__half") || is("__half2") || is("__nv_bfloat16") || is("__nv_bfloat162") ||
          is("__hip_bfloat16")) {
        return 16;
      }
      if (starts("__nv_fp8") || starts("__hip_fp8")) return 8;
      if (starts("__nv_fp4") || starts("__hip_fp4")) return 4;
      return 0;
    default:
      return 0;
  }
}

// The benchmark line of the harness: "benchmark." then a digit, { or %, then .mean and the like.
bool spells_benchmark_line(std::string_view body) {
  if (contains(body, "benchmark-count")) return true;
  size_t at = 0;
  while ((at = body.find("benchmark.", at)) != std::string_view::npos) {
    at += 10;
    if (at >= body.size()) break;
    const char c = body[at];
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '{' || c == '%')) continue;
    const std::string_view rest = body.substr(at, 40);
    for (std::string_view key : {".mean", ".best", ".worst", ".std", ".err", ".runs"}) {
      if (contains(rest, key)) return true;
    }
  }
  return false;
}

bool spells_install(std::string_view body) {
  for (std::string_view s : {"pip install", "pip3 install", "conda install", "apt-get install",
                             "apt install", "-m pip", "uv pip", "easy_install"}) {
    if (contains(body, s)) return true;
  }
  return false;
}

bool spells_download(std::string_view body) {
  return (contains(body, "wget ") || contains(body, "curl ")) && contains(body, "http");
}

class Findings {
 public:
  void add(RuleId rule, uint32_t line, std::string_view text) {
    std::vector<Finding>& list = by_rule_[static_cast<size_t>(rule)];
    for (const Finding& f : list) {
      if (f.line == line) return;
    }
    if (list.size() >= kMaxFindingsPerRule) return;
    std::string t;
    for (char c : text.substr(0, 160)) {
      t += (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
    }
    list.push_back({rule, line, std::move(t)});
  }
  [[nodiscard]] bool has(RuleId rule) const { return !by_rule_[static_cast<size_t>(rule)].empty(); }
  [[nodiscard]] const std::vector<Finding>& of(RuleId rule) const {
    return by_rule_[static_cast<size_t>(rule)];
  }
  void drop(RuleId rule) { by_rule_[static_cast<size_t>(rule)].clear(); }
  std::vector<Finding> take() {
    std::vector<Finding> out;
    for (auto& list : by_rule_) {
      std::sort(list.begin(), list.end(),
                [](const Finding& a, const Finding& b) { return a.line < b.line; });
      for (Finding& f : list) out.push_back(std::move(f));
    }
    return out;
  }

 private:
  std::array<std::vector<Finding>, kRuleCount> by_rule_;
};

// What the whole file shows about streams and graphs, over its Python and its C++.
struct FileFacts {
  const Token* stream_created = nullptr;
  std::string_view stream_text;
  bool stream_synced = false;
  const Token* graph = nullptr;
  std::string_view graph_text;
  bool copies_inputs = false;
};

// The C++ rules over tokens `tokens` of `text`.
void audit_cpp(std::string_view text, const std::vector<Token>& tokens, const CodeContext& context,
               Findings& out, FileFacts& facts) {
  for (size_t i = 0; i < tokens.size(); ++i) {
    const Token& t = tokens[i];
    const std::string_view word = source::token_text(text, t);
    if (t.kind == TokenKind::STRING) {
      const std::string_view body = source::token_body(text, t);
      if (contains(body, "POPCORN_FD")) out.add(RuleId::RESULT_PIPE, t.line, word);
      if (spells_benchmark_line(body)) out.add(RuleId::FAKE_BENCHMARK_LINE, t.line, word);
      if (spells_install(body)) out.add(RuleId::RUNTIME_INSTALL, t.line, word);
      if (spells_download(body)) out.add(RuleId::NETWORK_ACCESS, t.line, word);
      continue;
    }
    if (t.kind != TokenKind::NAME) continue;
    if (context.reference_float_bits) {
      const int bits = float_bits(word, true);
      if (bits > 0 && bits < *context.reference_float_bits) {
        out.add(RuleId::NARROW_CPP_TYPE, t.line, word);
      }
    }
    if (word.size() >= 9 && (starts_with(word, "cudaMemcpy") || starts_with(word, "hipMemcpy"))) {
      facts.copies_inputs = true;
    }
    // Every name compared below is one of kCppWordFilter's: most names fail its first look.
    if (!kCppWordFilter.may_be(word)) continue;
    if (word == "POPCORN_FD") out.add(RuleId::RESULT_PIPE, t.line, word);
    if ((word == "getenv" || word == "secure_getenv") && i + 2 < tokens.size() &&
        tokens[i + 2].kind == TokenKind::STRING) {
      const std::string_view key = source::token_body(text, tokens[i + 2]);
      for (std::string_view m : kEnvModeWords) {
        if (contains(key, m)) out.add(RuleId::ENV_MODE_CHECK, t.line, key);
      }
    }
    if (one_of(word, kCppStreamCreate) && facts.stream_created == nullptr) {
      facts.stream_created = &t;
      facts.stream_text = word;
    }
    if (one_of(word, kCppStreamSync)) facts.stream_synced = true;
    if (one_of(word, kCppGraph) && facts.graph == nullptr) {
      facts.graph = &t;
      facts.graph_text = word;
    }
    if (one_of(word, kCppTimers)) out.add(RuleId::TIMER_CALL, t.line, word);
  }
}

// audit_cpp over an embedded source (a STRING token of `text`) in which only narrow-cpp-type can
// fire (the screen found no other name or text a C++ rule reads), without tokenising it: the names
// that hold a part of a type narrower than the reference's (the screen's parts; every such type
// holds one) are found where the parts are, kept when they are names of the code (CppScanner: not
// in a comment or a string, not swallowed by a number), in order, until the rule has its most
// findings: the parts and the regions are read no further than that. Each one's line is the
// lexer's: the newlines before it, less those strings step over.
void audit_cpp_types(std::string_view text, const Token& string, const CodeContext& context,
                     Findings& out) {
  if (!context.reference_float_bits) return;
  const source::Substrings* parts = narrow_cpp_type_parts(*context.reference_float_bits);
  if (parts == nullptr) return;
  const std::string_view body = source::token_body(text, string);
  // Most sources give the rule its findings early (on synth's NVFP4 code, 94,000 of 206,000).
  source::CppScanner scanner(body);
  size_t region = 0;
  uint32_t counted_to = 0;
  uint32_t line = string.line;
  uint32_t read_to = 0;  // the end of the last run of identifier bytes read
  for (size_t found = parts->find(body, 0); found != std::string_view::npos;
       found = parts->find(body, found + 1)) {
    const auto p = static_cast<uint32_t>(found);
    if (out.of(RuleId::NARROW_CPP_TYPE).size() >= kMaxFindingsPerRule) return;
    if (p < read_to) continue;  // in a run already read: each byte is read once
    // Every region that opens at or before p is known (one whose prefix holds p cannot be: a
    // prefix is a few letters right before a quote, and a type's part is longer).
    const source::CppScan& scan = scanner.scan_to(p + 1);
    while (region < scan.regions.size() && scan.regions[region].region.end <= p) ++region;
    if (region < scan.regions.size() && scan.regions[region].region.begin <= p) continue;
    // The name holding p starts at or before it, within one run of identifier bytes.
    uint32_t s = p;
    while (!source::cpp_name_starts_at(body, s) && s > 0 && source::is_ident(body[s - 1])) --s;
    uint32_t e = p;
    while (e < body.size() && source::is_ident(body[e])) ++e;
    read_to = e;
    if (!source::cpp_name_starts_at(body, s)) continue;
    if (std::binary_search(scan.swallowed.begin(), scan.swallowed.end(), s)) continue;
    const std::string_view word = body.substr(s, e - s);
    const int bits = float_bits(word, true);
    if (bits == 0 || bits >= *context.reference_float_bits) continue;
    for (; counted_to < s; ++counted_to) line += body[counted_to] == '\n';
    uint32_t uncounted = 0;
    for (const source::CppRegion& r : scan.regions) {
      if (r.region.end > s) break;
      uncounted += r.uncounted_newlines;
    }
    out.add(RuleId::NARROW_CPP_TYPE, line - uncounted, word);
  }
}

// The Python rules. The tokens without comments are `sig`; names resolve through the file's
// imports (import A.B as C, from A import B as C) and module bindings from sys.modules.
// The tokens a PythonAudit reads (all but comments): a base, so that they exist before the view
// of them.
struct SignificantTokens {
  std::vector<const Token*> sig_;
};

class PythonAudit : private SignificantTokens, private source::TokenView {
 public:
  // `embedded`: the strings that hold C++ (read by audit_cpp, not as Python strings).
  PythonAudit(std::string_view text, const std::vector<Token>& all,
              std::unordered_set<const Token*> embedded, const CodeContext& context, Findings& out,
              FileFacts& facts)
      : TokenView(text, sig_),
        text_(text),
        context_(context),
        out_(out),
        facts_(facts),
        embedded_(std::move(embedded)) {
    sig_.reserve(all.size());
    for (const Token& t : all) {
      if (t.kind != TokenKind::COMMENT) sig_.push_back(&t);
    }
  }

  void run() {
    collect_bindings();
    scan_tokens();
    for (const Function& f : functions_) scan_function(f);
    if (!returns_state_.empty() &&
        (out_.has(RuleId::CALL_COUNTER) || out_.has(RuleId::IDENTITY_KEY))) {
      for (const Token* t : returns_state_) {
        out_.add(RuleId::CACHED_OUTPUT_REPLAY, t->line, line_text(t));
      }
    }
  }

  // Only the rules that read inside `custom_kernel` (return-input, input-overwrite,
  // truncated-input): they read nothing outside the function, so the tokens from the line of its
  // `def` on are enough (the screen's path).
  void run_function_rules() {
    collect_bindings();
    for (const Function& f : functions_) {
      if (f.name == "custom_kernel") scan_function(f);
    }
  }

 private:
  struct Function {
    std::string_view name;
    size_t def = 0;   // index in sig_ of `def`
    size_t body = 0;  // first token of the body
    size_t end = 0;   // one past the body
    std::vector<std::string_view> params;
    std::unordered_set<std::string_view> globals;
  };

  // The source line of `t`, for evidence.
  [[nodiscard]] std::string_view line_text(const Token* t) const {
    size_t b = t->begin;
    while (b > 0 && text_[b - 1] != '\n') --b;
    size_t e = t->begin;
    while (e < text_.size() && text_[e] != '\n') ++e;
    std::string_view s = text_.substr(b, e - b);
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    return s;
  }

  using Dotted = source::TokenView::Dotted;
  [[nodiscard]] Dotted dotted(size_t k) const { return TokenView::dotted(k, aliases_); }

  void collect_bindings() {
    for (size_t k = 0; k < sig_.size(); ++k) {
      if (!line_start(k)) continue;
      if (name(k, "import") || name(k, "from")) {
        (void)source::add_import_bindings(text_, sig_, k, aliases_);
      } else if (name(k, "def") && is_name(k + 1)) {
        Function f;
        f.name = txt(k + 1);
        f.def = k;
        size_t j = k + 2;
        if (op(j, "(")) {
          const size_t close = closing(j);
          bool at_param = true;
          for (size_t p = j + 1; p < close; ++p) {
            if (sig_[p]->depth == sig_[j]->depth + 1 && op(p, ",")) {
              at_param = true;
            } else if (at_param && is_name(p)) {
              f.params.push_back(txt(p));
              at_param = false;
            } else if (!op(p, "*") && !op(p, "**")) {
              at_param = false;
            }
          }
          j = close;
        }
        while (!newline(j)) ++j;
        f.body = j + 1;
        const uint32_t indent = sig_[k]->indent;
        size_t e = f.body;
        while (e < sig_.size() && !(line_start(e) && sig_[e]->indent <= indent &&
                                    sig_[e]->kind != TokenKind::NEWLINE)) {
          ++e;
        }
        f.end = e;
        for (size_t g = f.body; g < f.end; ++g) {
          if ((name(g, "global") || name(g, "nonlocal")) && line_start(g)) {
            for (size_t h = g + 1; is_name(h); h += 2) {
              f.globals.insert(txt(h));
              globals_.insert(txt(h));
              if (!op(h + 1, ",")) break;
            }
          }
        }
        if (sig_[k]->indent == 0) module_functions_.insert(f.name);
        functions_.push_back(std::move(f));
      } else if (name(k, "class") && sig_[k]->indent == 0 && is_name(k + 1)) {
        module_functions_.insert(txt(k + 1));
      } else if (is_name(k) && sig_[k]->indent == 0 && sig_[k]->depth == 0) {
        // Module-level bindings: NAME = ..., NAME, NAME = ...
        size_t j = k;
        std::vector<std::string_view> targets;
        while (is_name(j) && !op(j + 1, ".") && !op(j + 1, "[")) {
          targets.push_back(txt(j));
          if (op(j + 1, ",")) {
            j += 2;
          } else {
            ++j;
            break;
          }
        }
        if (targets.empty() || !(op(j, "=") || op(j, ":"))) continue;
        for (std::string_view t : targets) module_names_.insert(t);
        // m = sys.modules["eval"], importlib.import_module("eval"), __import__("eval")
        if (targets.size() == 1 && op(j, "=") && is_name(j + 1)) {
          const Dotted d = dotted(j + 1);
          size_t s = d.end;
          if ((d.resolved == "sys.modules" && op(s, "[")) ||
              ((d.resolved == "importlib.import_module" || d.resolved == "__import__") &&
               op(s, "("))) {
            if (s + 1 < sig_.size() && sig_[s + 1]->kind == TokenKind::STRING) {
              aliases_[targets[0]] = std::string(source::token_body(text_, *sig_[s + 1]));
            }
          }
        }
      }
    }
  }

  void check_string(const Token* t) {
    if (embedded_.count(t) > 0) return;
    const std::string_view body = source::token_body(text_, *t);
    if (contains(body, "POPCORN_FD")) out_.add(RuleId::RESULT_PIPE, t->line, line_text(t));
    if (spells_benchmark_line(body)) {
      out_.add(RuleId::FAKE_BENCHMARK_LINE, t->line, line_text(t));
    }
    if (spells_install(body)) out_.add(RuleId::RUNTIME_INSTALL, t->line, line_text(t));
    if (spells_download(body)) out_.add(RuleId::NETWORK_ACCESS, t->line, line_text(t));
  }

  [[nodiscard]] static bool timer_name(const Dotted& d) {
    if (d.parts < 2 || !one_of(d.last, kTimerAttrs)) return false;
    for (std::string_view m : kTimerModules) {
      if (starts_with(d.resolved, m)) return true;
    }
    return false;
  }
  [[nodiscard]] static bool harness_name(const Dotted& d) {
    const std::string_view r = d.resolved;
    const std::string_view root = r.substr(0, r.find('.'));
    return one_of(root, kHarnessModules);
  }

  // The string arguments of the call whose `(` is at k.
  [[nodiscard]] std::vector<std::string_view> string_args(size_t k) const {
    std::vector<std::string_view> out;
    const size_t close = closing(k);
    for (size_t j = k + 1; j < close; ++j) {
      if (sig_[j]->kind == TokenKind::STRING) out.push_back(source::token_body(text_, *sig_[j]));
    }
    return out;
  }

  void scan_tokens() {
    // Open brackets: the index of each opener, innermost last.
    std::vector<size_t> open;
    for (size_t k = 0; k < sig_.size(); ++k) {
      const Token* t = sig_[k];
      if (t->kind == TokenKind::OP) {
        const char o = t->end - t->begin == 1 ? text_[t->begin] : '\0';
        if (o == '(' || o == '[' || o == '{') {
          open.push_back(k);
        } else if ((o == ')' || o == ']' || o == '}') && !open.empty()) {
          open.pop_back();
        }
        continue;
      }
      if (t->kind == TokenKind::NEWLINE) {
        open.clear();
        continue;
      }
      if (t->kind == TokenKind::STRING) {
        check_string(t);
        continue;
      }
      if (t->kind != TokenKind::NAME) continue;
      const std::string_view word = txt(k);
      if (word == "POPCORN_FD") out_.add(RuleId::RESULT_PIPE, t->line, line_text(t));
      if (k > 0 && op(k - 1, ".")) {
        // Attribute words, wherever they hang.
        if (one_of(word, kFrameAttrs)) out_.add(RuleId::CALLER_FRAME, t->line, line_text(t));
        if (word == "data_ptr" && op(k + 1, "(")) check_identity(k, open);
        if (one_of(word, kStateCalls) && op(k + 1, "(") && k >= 2 &&
            (name(k - 2, "torch") || name(k - 2, "cuda") || name(k - 2, "random") ||
             txt(k - 2) == "np" || txt(k - 2) == "numpy" || word.find("rng") != word.npos)) {
          out_.add(RuleId::RNG_STATE, t->line, line_text(t));
        }
        if ((word == "synchronize" || word == "wait_stream" || word == "wait_event" ||
             word == "wait") &&
            op(k + 1, "(")) {
          facts_.stream_synced = true;
        }
        if (word == "replay" && op(k + 1, "(") && facts_.graph == nullptr) {
          facts_.graph = t;
          facts_.graph_text = line_text(t);
        }
        if (word == "copy_") facts_.copies_inputs = true;
        if (context_.reference_float_bits && k >= 2) {
          const bool dtype = name(k - 2, "torch") && float_bits(word, false) > 0;
          const bool method = (word == "half" || word == "bfloat16") && op(k + 1, "(");
          const int bits = method ? 16 : dtype ? float_bits(word, false) : 0;
          if (bits > 0 && bits < *context_.reference_float_bits) {
            out_.add(RuleId::PRECISION_DOWNGRADE, t->line, line_text(t));
          }
        }
        continue;
      }
      // A lone name (no attribute after it, no import alias) neither called nor incremented: every
      // rule below needs a dotted or aliased name, a call or `+=`, so none can fire on it.
      if (!op(k + 1, ".") && !op(k + 1, "(") && !op(k + 1, "+=") && aliases_.count(word) == 0) {
        continue;
      }
      const Dotted d = dotted(k);
      // Compared as a view: the length first, no strlen of each literal.
      const std::string_view resolved = d.resolved;
      const size_t after = d.end;
      // Assignments to a dotted name.
      if (d.parts >= 2 && op(after, "=")) {
        if (timer_name(d)) {
          out_.add(RuleId::TIMER_PATCH, t->line, line_text(t));
        } else if (harness_name(d)) {
          out_.add(RuleId::HARNESS_PATCH, t->line, line_text(t));
        }
      }
      if (d.parts >= 2 && op(after, "+=")) {
        const std::string_view root = word;
        if (module_functions_.count(root) > 0) {
          out_.add(RuleId::CALL_COUNTER, t->line, line_text(t));
        }
      }
      if (d.parts == 1 && op(after, "+=") && globals_.count(word) > 0) {
        out_.add(RuleId::CALL_COUNTER, t->line, line_text(t));
      }
      if (resolved == "sys.modules") {
        out_.add(RuleId::HARNESS_ACCESS, t->line, line_text(t));
        if (op(after, "[")) {
          const size_t close = closing(after);
          if (op(close + 1, "=") ||
              (op(close + 1, ".") && is_name(close + 2) && op(close + 3, "="))) {
            out_.add(RuleId::HARNESS_PATCH, t->line, line_text(t));
          }
        }
      }
      if (resolved == "sys.argv") out_.add(RuleId::ARGV_CHECK, t->line, line_text(t));
      if (resolved == "os.environ" || resolved == "os.getenv" || resolved == "os.environ.get") {
        check_env(after, t);
      }
      if (class_base(k)) out_.add(RuleId::TIMER_SUBCLASS, t->line, line_text(t));
      if (!op(after, "(")) continue;
      // Calls.
      const std::string_view r = resolved;
      if (k > 0 && name(k - 1, "def")) continue;
      if (r == "setattr" || d.last == "setattr") {
        if (is_name(after + 1)) {
          const Dotted target = dotted(after + 1);
          Dotted probe = target;
          probe.parts = 2;
          const std::vector<std::string_view> args = string_args(after);
          if (!args.empty()) probe.last = args.front();
          if (timer_name(probe) || (target.resolved == "torch.cuda" && !args.empty())) {
            out_.add(RuleId::TIMER_PATCH, t->line, line_text(t));
          } else if (harness_name(target)) {
            out_.add(RuleId::HARNESS_PATCH, t->line, line_text(t));
          }
        }
      }
      if (d.last == "patch" || d.last == "object" || r == "monkeypatch.setattr") {
        for (std::string_view s : string_args(after)) {
          if (starts_with(s, "time.") || starts_with(s, "torch.cuda") ||
              contains(s, "perf_counter") || contains(s, "elapsed_time") ||
              starts_with(s, "timeit")) {
            out_.add(RuleId::TIMER_PATCH, t->line, line_text(t));
          } else {
            const std::string_view root = s.substr(0, s.find('.'));
            if (one_of(root, kHarnessModules)) {
              out_.add(RuleId::HARNESS_PATCH, t->line, line_text(t));
            }
          }
        }
      }
      if (one_of(std::string_view(r), kFrameCalls)) {
        out_.add(RuleId::CALLER_FRAME, t->line, line_text(t));
      }
      if (r == "gc.get_objects" || r == "gc.get_referrers" || r == "gc.get_referents") {
        out_.add(RuleId::HARNESS_ACCESS, t->line, line_text(t));
      }
      if (one_of(std::string_view(r), kSeedCalls) ||
          (d.last == "manual_seed" && starts_with(r, "torch"))) {
        out_.add(RuleId::RNG_SEED, t->line, line_text(t));
      }
      if (d.parts >= 2 && one_of(d.last, kStateCalls) &&
          (starts_with(r, "torch") || starts_with(r, "random") || starts_with(r, "numpy"))) {
        out_.add(RuleId::RNG_STATE, t->line, line_text(t));
      }
      if (r == "itertools.count") out_.add(RuleId::CALL_COUNTER, t->line, line_text(t));
      if (d.parts == 1 && (word == "exec" || word == "eval" || word == "compile")) {
        check_exec(after, t);
      }
      if (d.parts == 1 && word == "__import__" && after + 1 < sig_.size() &&
          sig_[after + 1]->kind != TokenKind::STRING) {
        out_.add(RuleId::DYNAMIC_EXEC, t->line, line_text(t));
      }
      if (d.parts == 1 && word == "id") {
        out_.add(RuleId::IDENTITY_KEY, t->line, line_text(t));
      }
      if (one_of(std::string_view(r), kTimerCalls)) {
        out_.add(RuleId::TIMER_CALL, t->line, line_text(t));
      }
      for (std::string_view p : kNetworkPrefixes) {
        if (starts_with(r, p)) out_.add(RuleId::NETWORK_ACCESS, t->line, line_text(t));
      }
      if (d.last == "urlopen" || d.last == "urlretrieve") {
        out_.add(RuleId::NETWORK_ACCESS, t->line, line_text(t));
      }
      if (r == "pip.main" || starts_with(r, "pip._internal")) {
        out_.add(RuleId::RUNTIME_INSTALL, t->line, line_text(t));
      }
      if (starts_with(r, "subprocess.") || r == "os.system" || r == "os.popen") {
        const std::vector<std::string_view> args = string_args(after);
        const bool pip = std::any_of(args.begin(), args.end(), [](std::string_view s) {
          return s == "pip" || s == "pip3" || s == "conda" || s == "apt-get" || contains(s, "pip");
        });
        const bool install = std::any_of(args.begin(), args.end(),
                                         [](std::string_view s) { return s == "install"; });
        if (pip && install) out_.add(RuleId::RUNTIME_INSTALL, t->line, line_text(t));
        const bool fetch = std::any_of(args.begin(), args.end(), [](std::string_view s) {
          return s == "wget" || s == "curl";
        });
        if (fetch) out_.add(RuleId::NETWORK_ACCESS, t->line, line_text(t));
      }
      if (one_of(std::string_view(r), kCodeLoad) || d.last == "exec_module") {
        out_.add(RuleId::RUNTIME_CODE_LOAD, t->line, line_text(t));
      }
      if ((r == "torch.cuda.Stream" || r == "torch.cuda.ExternalStream" ||
           (d.last == "Stream" && starts_with(r, "torch"))) &&
          facts_.stream_created == nullptr) {
        facts_.stream_created = t;
        facts_.stream_text = line_text(t);
      }
      if (d.last == "synchronize" || d.last == "wait_stream" || d.last == "wait_event") {
        facts_.stream_synced = true;
      }
      if ((r == "torch.cuda.CUDAGraph" || r == "torch.cuda.graph" ||
           r == "torch.cuda.make_graphed_callables") &&
          facts_.graph == nullptr) {
        facts_.graph = t;
        facts_.graph_text = line_text(t);
      }
    }
  }

  // class X(torch.cuda.Event):
  [[nodiscard]] bool class_base(size_t k) const {
    if (k < 3 || !op(k - 1, "(") || !name(k - 3, "class")) return false;
    const Dotted d = dotted(k);
    const std::string_view r = d.resolved;
    return r == "torch.cuda.Event" || r == "torch.cuda.Event.Event";
  }

  void check_env(size_t after, const Token* t) {
    size_t s = after;
    if (op(s, ".") && name(s + 1, "get")) s += 2;
    if (!(op(s, "[") || op(s, "("))) return;
    if (s + 1 >= sig_.size() || sig_[s + 1]->kind != TokenKind::STRING) return;
    const size_t close = closing(s);
    if (op(s, "[") && op(close + 1, "=")) return;  // a write: setting up a build
    const std::string_view key = source::token_body(text_, *sig_[s + 1]);
    for (std::string_view m : kEnvModeWords) {
      if (contains(key, m)) {
        out_.add(RuleId::ENV_MODE_CHECK, t->line, line_text(t));
        return;
      }
    }
  }

  void check_exec(size_t paren, const Token* t) {
    const size_t close = closing(paren);
    bool decoded = false;
    for (size_t j = paren + 1; j < close; ++j) {
      if (is_name(j) && one_of(txt(j), kDecoders)) decoded = true;
      if (sig_[j]->kind == TokenKind::NAME) {
        // A name bound to decoded text earlier: blob = base64.b64decode(...)
        auto it = decoded_names_.find(txt(j));
        if (it != decoded_names_.end()) decoded = true;
      }
    }
    out_.add(decoded ? RuleId::OBFUSCATED_EXEC : RuleId::DYNAMIC_EXEC, t->line, line_text(t));
  }

  // id(x) or .data_ptr() used as a key: in a subscript, a membership test, a comparison or a
  // variable whose name says key.
  void check_identity(size_t k, const std::vector<size_t>& open) {
    bool keyed = false;
    if (!open.empty() && op(open.back(), "[") && open.back() > 0) {
      const size_t before = open.back() - 1;
      keyed = is_name(before) || op(before, "]") || op(before, ")");
    }
    size_t s = k;
    while (s > 0 && !newline(s - 1)) --s;
    if (is_name(s) && op(s + 1, "=")) {
      const std::string_view target = txt(s);
      keyed = keyed || contains(target, "key") || contains(target, "sig") ||
              contains(target, "ident") || contains(target, "cache");
    }
    // x.data_ptr() in cache, x.data_ptr() == last, cache.get(x.data_ptr())
    const size_t after = op(k + 1, "(") ? closing(k + 1) + 1 : k + 1;
    if (name(after, "in") || name(after, "not") || name(after, "is") || op(after, "==")) {
      keyed = true;
    }
    if (!open.empty() && op(open.back(), "(") && open.back() >= 2 && op(open.back() - 2, ".") &&
        (name(open.back() - 1, "get") || name(open.back() - 1, "setdefault") ||
         name(open.back() - 1, "pop"))) {
      keyed = true;
    }
    if (keyed) out_.add(RuleId::IDENTITY_KEY, sig_[k]->line, line_text(sig_[k]));
  }

  void scan_function(const Function& f) {
    // Names bound to decoded text, for obfuscated-exec (any function or module scope).
    for (size_t j = f.body; j < f.end; ++j) {
      if (name(j, "return") && line_start(j)) {
        // return GLOBAL / return CONTAINER[...] / return CONTAINER.get(...): no call after.
        if (is_name(j + 1)) {
          const std::string_view v = txt(j + 1);
          const bool state = (module_names_.count(v) > 0 || f.globals.count(v) > 0) &&
                             module_functions_.count(v) == 0 && aliases_.count(v) == 0;
          if (state) {
            size_t e = j + 2;
            if (op(e, "[")) {
              e = closing(e) + 1;
            } else if (op(e, ".") && name(e + 1, "get") && op(e + 2, "(")) {
              e = closing(e + 2) + 1;
            }
            if (newline(e)) returns_state_.push_back(sig_[j]);
          }
        }
      }
    }
    if (f.name != "custom_kernel" || f.params.empty()) return;
    const std::string_view param = f.params.front();
    std::vector<std::string_view> inputs;  // names unpacked from the input, in order
    for (size_t j = f.body; j < f.end; ++j) {
      if (!line_start(j) || !is_name(j)) continue;
      size_t e = j;
      std::vector<std::string_view> names;
      bool paren = op(e, "(");
      if (paren) ++e;
      while (is_name(e)) {
        names.push_back(txt(e));
        if (!op(e + 1, ",")) {
          ++e;
          break;
        }
        e += 2;
      }
      if (paren && op(e, ")")) ++e;
      if (names.size() >= 2 && op(e, "=") && name(e + 1, param) && newline(e + 2)) {
        inputs = names;
      }
    }
    const auto is_input = [&](size_t k, bool exempt_last) {
      if (!is_name(k)) return false;
      const std::string_view v = txt(k);
      if (v == param) return !op(k + 1, "[") || !exempt_last;
      for (size_t i = 0; i < inputs.size(); ++i) {
        if (inputs[i] == v) return !(exempt_last && i + 1 == inputs.size());
      }
      return false;
    };
    for (size_t j = f.body; j < f.end; ++j) {
      const Token* t = sig_[j];
      // return-input
      if (name(j, "return") && line_start(j)) {
        size_t e = j + 1;
        bool input = false;
        if (name(e, param)) {
          input = true;
          ++e;
          if (op(e, "[") && e + 1 < sig_.size() && txt(e + 1) == "0" && op(e + 2, "]")) e += 3;
        } else if (!inputs.empty() && name(e, inputs.front())) {
          input = true;
          ++e;
        }
        if (input) {
          while (op(e, ".") && is_name(e + 1) && one_of(txt(e + 1), kViewMethods) &&
                 op(e + 2, "(")) {
            e = closing(e + 2) + 1;
          }
          if (newline(e)) out_.add(RuleId::RETURN_INPUT, t->line, line_text(t));
        }
      }
      // input-overwrite: INPUT.zero_() and the like
      if (is_input(j, true) && (j == 0 || !op(j - 1, "."))) {
        size_t e = j + 1;
        if (op(e, "[") && name(j, param)) {
          if (e + 1 < sig_.size() && txt(e + 1) == "0" && op(e + 2, "]")) {
            e += 3;
          } else {
            continue;
          }
        }
        if (op(e, ".") && is_name(e + 1) && one_of(txt(e + 1), kFillMethods) && op(e + 2, "(")) {
          out_.add(RuleId::INPUT_OVERWRITE, t->line, line_text(t));
        }
        // truncated-input: INPUT[...] with a literal bound, a stride or a bound / literal
        if (op(e, "[") && !name(j, param)) check_slice(e, t);
      }
    }
  }

  void check_slice(size_t open, const Token* t) {
    const size_t close = closing(open);
    const uint16_t depth = sig_[open]->depth + 1;
    bool colon = false;
    bool truncated = false;
    for (size_t j = open + 1; j < close; ++j) {
      if (sig_[j]->depth != depth) continue;
      if (op(j, ":")) {
        colon = true;
        const bool literal_after = j + 1 < close && sig_[j + 1]->kind == TokenKind::NUMBER &&
                                   txt(j + 1) != "0" && txt(j + 1) != "1";
        const bool literal_before =
            j == open + 2 && sig_[j - 1]->kind == TokenKind::NUMBER && txt(j - 1) != "0";
        const bool stride = op(j + 1, ":") && j + 2 < close &&
                            sig_[j + 2]->kind == TokenKind::NUMBER && txt(j + 2) != "1";
        if (literal_after || literal_before || stride) truncated = true;
      }
      if (colon && op(j, "//") && j + 1 < close && sig_[j + 1]->kind == TokenKind::NUMBER &&
          txt(j + 1) != "1") {
        truncated = true;
      }
    }
    if (truncated) out_.add(RuleId::TRUNCATED_INPUT, t->line, line_text(t));
  }

 public:
  // Names bound (anywhere) to the result of a decoding call: x = base64.b64decode(...).
  void collect_decoded_names() {
    for (size_t k = 0; k + 2 < sig_.size(); ++k) {
      if (!line_start(k) || !is_name(k) || !op(k + 1, "=")) continue;
      for (size_t j = k + 2; !newline(j); ++j) {
        if (is_name(j) && one_of(txt(j), kDecoders)) {
          decoded_names_.insert(txt(k));
          break;
        }
      }
    }
  }

 private:
  std::string_view text_;
  const CodeContext& context_;
  Findings& out_;
  FileFacts& facts_;
  std::unordered_set<const Token*> embedded_;
  source::ImportAliases aliases_;
  std::unordered_set<std::string_view> module_names_;
  std::unordered_set<std::string_view> module_functions_;
  std::unordered_set<std::string_view> globals_;
  std::unordered_set<std::string_view> decoded_names_;
  std::vector<Function> functions_;
  std::vector<const Token*> returns_state_;
};

void file_rules(const FileFacts& facts, Findings& out) {
  if (facts.stream_created != nullptr && !facts.stream_synced) {
    out.add(RuleId::UNSYNCED_STREAM, facts.stream_created->line, facts.stream_text);
  }
  if (facts.graph != nullptr) {
    out.add(facts.copies_inputs ? RuleId::CUDA_GRAPH : RuleId::GRAPH_STALE_INPUTS,
            facts.graph->line, facts.graph_text);
  }
}

// Whether normalised_code would make `reference` of `code` (its `tokens`, the first ones when not
// `complete`): the same tokens joined by one space, compared as they come. nullopt: the first
// tokens are the reference's start, and more are needed.
std::optional<bool> normalises_to(std::string_view code, const std::vector<Token>& tokens,
                                  std::string_view reference, bool complete) {
  size_t at = 0;
  for (const Token& t : tokens) {
    if (t.kind == TokenKind::COMMENT || t.kind == TokenKind::NEWLINE) continue;
    if (at > 0) {
      if (at >= reference.size() || reference[at] != ' ') return false;
      ++at;
    }
    const std::string_view text = source::token_text(code, t);
    if (reference.substr(at, text.size()) != text) return false;
    at += text.size();
  }
  if (!complete) return std::nullopt;
  return at == reference.size();
}

// The findings of `out`, then reference-copy when `code` normalises to the context's reference.
std::vector<Finding> with_reference_copy(Findings& out, std::string_view code,
                                         const std::vector<Token>& tokens,
                                         const CodeContext& context) {
  std::vector<Finding> findings = out.take();
  if (context.reference_normalised != nullptr && !context.reference_normalised->empty() &&
      normalises_to(code, tokens, *context.reference_normalised, true).value_or(false)) {
    findings.push_back({RuleId::REFERENCE_COPY, 0, "the reference implementation"});
  }
  return findings;
}

}  // namespace

std::vector<Finding> audit_code_in_full(std::string_view code, const CodeContext& context) {
  Findings out;
  FileFacts facts;
  if (context.cpp_file) {
    const std::vector<Token> tokens = source::tokenize_cpp(code);
    audit_cpp(code, tokens, context, out, facts);
    file_rules(facts, out);
    return with_reference_copy(out, code, tokens, context);
  }
  const std::vector<Token> tokens = source::tokenize_python(code);
  std::vector<std::vector<Token>> embedded;
  std::unordered_set<const Token*> strings;
  for (const source::EmbeddedSource& e : source::embedded_cpp_sources(code, tokens)) {
    embedded.push_back(source::tokenize_embedded(code, tokens[e.token]));
    strings.insert(&tokens[e.token]);
  }
  // The embedded sources first: the Python pass reads their strings too, and a finding is kept
  // once per line.
  for (const std::vector<Token>& cpp : embedded) audit_cpp(code, cpp, context, out, facts);
  PythonAudit python(code, tokens, std::move(strings), context, out, facts);
  python.collect_decoded_names();
  python.run();
  file_rules(facts, out);
  return with_reference_copy(out, code, tokens, context);
}

namespace {

// The tokens the reference comparison reads first, then again if they are the reference's start:
// most codes differ from the reference in the first few.
constexpr size_t kReferencePrefixTokens[] = {8, 256};

}  // namespace

std::vector<Finding> audit_code(std::string_view code, const CodeContext& context) {
  if (context.cpp_file) return audit_code_in_full(code, context);
  const Screen screen = screen_python(code, context);
  if (screen.full) return audit_code_in_full(code, context);
  Findings out;
  FileFacts facts;
  for (const Screen::Cpp& cpp : screen.cpp) {
    if (!cpp.types_only) {
      audit_cpp(code, source::tokenize_embedded(code, cpp.string), context, out, facts);
    } else {
      audit_cpp_types(code, cpp.string, context, out);
    }
  }
  // A stream or a graph made in the C++ needs the Python's synchronisation and copies.
  if (facts.stream_created != nullptr || facts.graph != nullptr) {
    return audit_code_in_full(code, context);
  }
  if (screen.custom_kernel) {
    const std::vector<Token> tokens = source::tokenize_python(code, *screen.custom_kernel);
    PythonAudit function(code, tokens, {}, context, out, facts);
    function.run_function_rules();
  }
  std::vector<Finding> findings = out.take();
  if (context.reference_normalised != nullptr && !context.reference_normalised->empty()) {
    std::optional<bool> copy;
    for (size_t limit : kReferencePrefixTokens) {
      const std::vector<Token> first = source::tokenize_python(code, {}, limit);
      copy = normalises_to(code, first, *context.reference_normalised, first.size() < limit);
      if (copy) break;
    }
    if (!copy) {
      copy =
          normalises_to(code, source::tokenize_python(code), *context.reference_normalised, true);
    }
    if (*copy) findings.push_back({RuleId::REFERENCE_COPY, 0, "the reference implementation"});
  }
  return findings;
}

std::optional<int> narrowest_float_bits(std::string_view code, bool cpp) {
  int best = 0;
  const auto consider = [&](int bits) {
    if (bits > 0 && (best == 0 || bits < best)) best = bits;
  };
  if (cpp) {
    for (const Token& t : source::tokenize_cpp(code)) {
      if (t.kind == TokenKind::NAME) consider(float_bits(source::token_text(code, t), true));
    }
  } else {
    const std::vector<Token> tokens = source::tokenize_python(code);
    for (size_t i = 2; i < tokens.size(); ++i) {
      if (tokens[i].kind != TokenKind::NAME) continue;
      const std::string_view w = source::token_text(code, tokens[i]);
      const bool dotted = source::token_text(code, tokens[i - 1]) == ".";
      if (dotted && source::token_text(code, tokens[i - 2]) == "torch") {
        consider(float_bits(w, false));
      }
      if (dotted && (w == "half" || w == "bfloat16") && i + 1 < tokens.size() &&
          source::token_text(code, tokens[i + 1]) == "(") {
        consider(16);
      }
    }
    for (const source::EmbeddedSource& e : source::embedded_cpp_sources(code, tokens)) {
      for (const Token& t : source::tokenize_embedded(code, tokens[e.token])) {
        if (t.kind == TokenKind::NAME) consider(float_bits(source::token_text(code, t), true));
      }
    }
  }
  if (best == 0) return std::nullopt;
  return best;
}

std::string normalised_code(std::string_view code, bool cpp) {
  const std::vector<Token> tokens =
      cpp ? source::tokenize_cpp(code) : source::tokenize_python(code);
  std::string out;
  out.reserve(code.size());
  for (const Token& t : tokens) {
    if (t.kind == TokenKind::COMMENT || t.kind == TokenKind::NEWLINE) continue;
    if (!out.empty()) out += ' ';
    out += source::token_text(code, t);
  }
  return out;
}

}  // namespace kbdata::audit
