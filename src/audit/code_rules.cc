#include "audit/code_rules.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "audit/code_screen.h"
#include "source/bytes.h"
#include "source/cpp_regions.h"
#include "source/embedded.h"
#include "source/literals.h"
#include "source/substrings.h"
#include "source/tokens.h"

namespace kbdata::audit {

using source::CallFact;
using source::CodeModel;
using source::CppSource;
using source::PythonModel;
using source::Token;
using source::TokenKind;
using source::Value;

namespace {

template <size_t N>
bool one_of(std::string_view s, const std::array<std::string_view, N>& set) {
  for (std::string_view w : set) {
    if (w.size() == s.size() && !s.empty() && w[0] == s[0] && w == s) return true;
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
// The checks a harness compares outputs with: replacing one passes every output.
constexpr std::array<std::string_view, 6> kCheckFunctions = {
    "torch.allclose",        "torch.isclose", "torch.equal", "torch.testing.assert_close",
    "torch.Tensor.allclose", "numpy.allclose"};
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
constexpr std::array<std::string_view, 7> kNetworkPrefixes = {
    "urllib.request", "requests.", "http.client", "socket.socket",
    "torch.hub.",     "wget.",     "urllib3."};
constexpr std::array<std::string_view, 5> kCodeLoad = {
    "importlib.util.spec_from_file_location", "importlib.util.module_from_spec", "runpy.run_path",
    "runpy.run_module", "importlib.machinery.SourceFileLoader"};
constexpr std::array<std::string_view, 10> kFillMethods = {
    "zero_",      "fill_",        "normal_",    "uniform_", "random_",
    "bernoulli_", "exponential_", "geometric_", "cauchy_",  "log_normal_"};
constexpr std::array<std::string_view, 12> kViewMethods = {
    "view",   "reshape", "view_as", "as_strided", "contiguous", "clone",
    "detach", "flatten", "squeeze", "unsqueeze",  "t",          "expand"};
constexpr std::array<std::string_view, 20> kMetadata = {
    "shape",        "dtype",      "device",   "size",           "numel",
    "dim",          "ndim",       "stride",   "is_cuda",        "is_contiguous",
    "element_size", "nbytes",     "data_ptr", "layout",         "requires_grad",
    "itemsize",     "get_device", "nelement", "storage_offset", "is_floating_point"};
constexpr std::array<std::string_view, 8> kMetadataCalls = {
    "len", "isinstance", "type", "empty_like", "zeros_like", "ones_like", "full_like", "id"};
constexpr std::array<std::string_view, 5> kFresh = {"empty", "empty_like", "empty_strided",
                                                    "new_empty", "new_empty_strided"};
constexpr std::array<std::string_view, 9> kConstant = {"zeros",     "zeros_like", "ones",
                                                       "ones_like", "full",       "full_like",
                                                       "new_zeros", "new_ones",   "new_full"};
constexpr std::array<std::string_view, 8> kRandom = {
    "randn", "rand", "randint", "randn_like", "rand_like", "randint_like", "normal", "randperm"};
constexpr std::array<std::string_view, 8> kOutputCalls = {
    "print", "write", "writelines", "fprintf", "printf", "puts", "fputs", "dprintf"};
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

// The width in bits of a floating-point type's name, or 0.
int float_bits(std::string_view name, bool cpp) {
  const auto is = [&](const auto& literal) {
    constexpr size_t n = sizeof(literal) - 1;
    return name.size() == n && std::memcmp(name.data(), literal, n) == 0;
  };
  const auto starts = [&](const auto& literal) {
    constexpr size_t n = sizeof(literal) - 1;
    return name.size() >= n && std::memcmp(name.data(), literal, n) == 0;
  };
  if (name.empty()) return 0;
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
  uint32_t stream_line = 0;
  std::string stream_text;
  bool stream_synced = false;
  uint32_t graph_line = 0;
  std::string graph_text;
  bool refreshes_inputs = false;
};

// The line of C++ token `t` of `source`.
std::string_view cpp_line_text(std::string_view text, const Token& t) {
  size_t b = t.begin;
  while (b > 0 && text[b - 1] != '\n') --b;
  size_t e = t.begin;
  while (e < text.size() && text[e] != '\n') ++e;
  std::string_view s = text.substr(b, e - b);
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s.substr(0, 160);
}

// The C++ rules over one source.
class CppRules {
 public:
  CppRules(const CppSource& source, const CodeContext& context, Findings& out, FileFacts& facts)
      : s_(source), t_(source.tokens), context_(context), out_(out), facts_(facts) {}

  void run() {
    for (size_t i = 0; i < t_.size(); ++i) {
      const Token& t = t_[i];
      if (t.kind == TokenKind::STRING) {
        // Adjacent literals are one string ("POPCORN" "_FD").
        std::string value;
        size_t j = i;
        while (j < t_.size() && t_[j].kind == TokenKind::STRING) {
          source::append_cpp_string_value(s_.text, t_[j], value);
          ++j;
        }
        strings(i, value);
        i = j - 1;
        continue;
      }
      if (t.kind != TokenKind::NAME) continue;
      names(i);
    }
    functions();
  }

 private:
  [[nodiscard]] std::string_view txt(size_t k) const {
    return k < t_.size() ? source::token_text(s_.text, t_[k]) : std::string_view();
  }
  [[nodiscard]] bool op(size_t k, std::string_view s) const {
    return k < t_.size() && source::token_is(s_.text, t_[k], TokenKind::OP, s);
  }
  [[nodiscard]] std::string_view line(size_t k) const { return cpp_line_text(s_.text, t_[k]); }

  // The call a string is an argument of: the name before the '(' that opens it.
  [[nodiscard]] std::string_view enclosing_call(size_t k) const {
    const uint16_t depth = t_[k].depth;
    for (size_t j = k; j-- > 0;) {
      if (t_[j].depth < depth) {
        if (op(j, "(") && j > 0 && t_[j - 1].kind == TokenKind::NAME) return txt(j - 1);
        return {};
      }
      if (t_[j].kind == TokenKind::OP && (txt(j) == ";" || txt(j) == "{")) return {};
    }
    return {};
  }

  void strings(size_t k, const std::string& value) {
    const uint32_t line_no = t_[k].line;
    if (contains(value, "POPCORN_FD")) out_.add(RuleId::RESULT_PIPE, line_no, line(k));
    const std::string_view call = enclosing_call(k);
    bool output = one_of(call, kOutputCalls);
    // std::cout << "..." : a string shifted into a stream.
    if (k > 0 && op(k - 1, "<<")) output = true;
    if (output && spells_benchmark_line(value)) {
      out_.add(RuleId::FAKE_BENCHMARK_LINE, line_no, line(k));
    }
    if ((call == "system" || call == "popen" || call == "execl" || call == "execlp") &&
        spells_install(value)) {
      out_.add(RuleId::RUNTIME_INSTALL, line_no, line(k));
    }
    if ((call == "system" || call == "popen") && spells_download(value)) {
      out_.add(RuleId::NETWORK_ACCESS, line_no, line(k));
    }
    if (call == "getenv" || call == "secure_getenv") {
      for (std::string_view m : kEnvModeWords) {
        if (contains(value, m)) {
          out_.add(RuleId::ENV_MODE_CHECK, line_no, line(k));
          break;
        }
      }
    }
    if (contains(value, "/proc/self/mem")) out_.add(RuleId::PROCESS_MEMORY, line_no, line(k));
  }

  void names(size_t i) {
    const Token& t = t_[i];
    const std::string_view word = txt(i);
    if (context_.reference_float_bits) {
      const int bits = float_bits(word, true);
      if (bits > 0 && bits < *context_.reference_float_bits) {
        out_.add(RuleId::NARROW_CPP_TYPE, t.line, word);
      }
    }
    if (word.size() >= 9 && (starts_with(word, "cudaMemcpy") || starts_with(word, "hipMemcpy"))) {
      facts_.refreshes_inputs = true;
    }
    if (word == "POPCORN_FD") out_.add(RuleId::RESULT_PIPE, t.line, line(i));
    if (one_of(word, kCppStreamCreate) && facts_.stream_line == 0) {
      facts_.stream_line = t.line;
      facts_.stream_text = std::string(word);
    }
    if (one_of(word, kCppStreamSync)) facts_.stream_synced = true;
    if (one_of(word, kCppGraph) && facts_.graph_line == 0) {
      facts_.graph_line = t.line;
      facts_.graph_text = std::string(word);
    }
    if (one_of(word, kCppTimers)) out_.add(RuleId::TIMER_CALL, t.line, word);
    if ((word == "mprotect" || word == "VirtualProtect") && op(i + 1, "(")) {
      out_.add(RuleId::NATIVE_PATCH, t.line, line(i));
    }
    if ((starts_with(word, "cuMemGetAddressRange") || word == "ptrace") && op(i + 1, "(")) {
      out_.add(RuleId::PROCESS_MEMORY, t.line, line(i));
    }
    if ((word == "dup2" || word == "dup3") && op(i + 1, "(")) {
      out_.add(RuleId::FD_REDIRECT, t.line, line(i));
    }
  }

  // Functions with tensor parameters (a C++ extension's entry points): what they write and
  // return.
  void functions() {
    for (size_t i = 0; i + 1 < t_.size(); ++i) {
      if (t_[i].kind != TokenKind::NAME || !op(i + 1, "(")) continue;
      // NAME ( params ) [const] { body }
      size_t close = i + 2;
      int depth = 1;
      for (; close < t_.size() && depth > 0; ++close) {
        if (op(close, "(")) ++depth;
        if (op(close, ")")) --depth;
      }
      if (depth != 0) return;
      --close;  // the ')'
      size_t brace = close + 1;
      while (brace < t_.size() && t_[brace].kind == TokenKind::NAME) ++brace;  // const, noexcept
      if (!op(brace, "{")) continue;
      if (i > 0 && (txt(i - 1) == "if" || txt(i - 1) == "while")) continue;
      const std::string_view fname = txt(i);
      if (fname == "if" || fname == "for" || fname == "while" || fname == "switch") continue;
      size_t end = brace + 1;
      for (; end < t_.size() && t_[end].depth > t_[brace].depth; ++end) {
      }
      // end: the closing '}'
      function(i + 2, close, brace + 1, end);
      i = end;
    }
  }

  void function(size_t params_begin, size_t params_end, size_t body_begin, size_t body_end) {
    // Tensor parameters: a parameter whose declaration names Tensor; its name is its last name.
    std::vector<std::string_view> tensors;
    size_t b = params_begin;
    for (size_t k = params_begin; k <= params_end; ++k) {
      if (k != params_end && !(op(k, ",") && t_[k].depth == t_[params_begin].depth)) continue;
      bool tensor = false;
      std::string_view last;
      for (size_t j = b; j < k; ++j) {
        if (t_[j].kind != TokenKind::NAME) continue;
        if (txt(j) == "Tensor") tensor = true;
        last = txt(j);
      }
      if (tensor && !last.empty() && last != "Tensor") tensors.push_back(last);
      b = k + 1;
    }
    if (tensors.empty()) return;
    // Returned names.
    std::vector<std::string_view> returned;
    for (size_t k = body_begin; k < body_end; ++k) {
      if (txt(k) == "return" && t_[k + 1].kind == TokenKind::NAME && op(k + 2, ";")) {
        returned.push_back(txt(k + 1));
      }
    }
    const auto is_returned = [&](std::string_view n) {
      return std::find(returned.begin(), returned.end(), n) != returned.end();
    };
    // Writes to a tensor parameter that is not returned.
    for (size_t k = body_begin; k + 3 < body_end; ++k) {
      if (t_[k].kind != TokenKind::NAME) continue;
      const std::string_view n = txt(k);
      if (std::find(tensors.begin(), tensors.end(), n) == tensors.end() || is_returned(n)) {
        continue;
      }
      if (k > body_begin && (op(k - 1, ".") || op(k - 1, "->"))) continue;
      if (op(k + 1, ".") && t_[k + 2].kind == TokenKind::NAME && op(k + 3, "(")) {
        const std::string_view method = txt(k + 2);
        if (one_of(method, kFillMethods)) {
          out_.add(RuleId::INPUT_OVERWRITE, t_[k].line, line(k));
        } else if (method == "copy_" ||
                   (method.size() > 1 && method.back() == '_' && method != "data_ptr_")) {
          out_.add(RuleId::INPUT_WRITE, t_[k].line, line(k));
        }
      }
    }
    // cudaMemset(param.data_ptr(), ...) of a parameter not returned.
    for (size_t k = body_begin; k + 2 < body_end; ++k) {
      const std::string_view w = txt(k);
      if (!(starts_with(w, "cudaMemset") || starts_with(w, "hipMemset")) || !op(k + 1, "(")) {
        continue;
      }
      if (t_[k + 2].kind == TokenKind::NAME &&
          std::find(tensors.begin(), tensors.end(), txt(k + 2)) != tensors.end() &&
          !is_returned(txt(k + 2))) {
        out_.add(RuleId::INPUT_OVERWRITE, t_[k].line, line(k));
      }
    }
    // return X; where X = torch::empty(...) and nothing else names X in between.
    for (std::string_view r : returned) {
      size_t declared = 0;
      size_t uses = 0;
      std::string_view made;
      for (size_t k = body_begin; k < body_end; ++k) {
        if (t_[k].kind != TokenKind::NAME || txt(k) != r) continue;
        if (k > body_begin && (op(k - 1, ".") || op(k - 1, "->") || op(k - 1, "::"))) continue;
        if (op(k + 1, "=") && declared == 0) {
          // The initialiser's call: namespace::function(
          size_t j = k + 2;
          std::string_view last;
          while (j < body_end && (t_[j].kind == TokenKind::NAME || op(j, "::"))) {
            if (t_[j].kind == TokenKind::NAME) last = txt(j);
            ++j;
          }
          if (op(j, "(")) made = last;
          declared = k;
          continue;
        }
        if (k > 0 && txt(k - 1) == "return") continue;
        ++uses;
      }
      if (declared == 0 || uses > 0) continue;
      if (one_of(made, kFresh)) {
        out_.add(RuleId::UNWRITTEN_OUTPUT, t_[declared].line, line(declared));
      } else if (one_of(made, kConstant)) {
        out_.add(RuleId::CONSTANT_OUTPUT, t_[declared].line, line(declared));
      }
    }
  }

  const CppSource& s_;
  const std::vector<Token>& t_;
  const CodeContext& context_;
  Findings& out_;
  FileFacts& facts_;
};

// CppRules over an embedded source (a STRING token of `text`) in which only narrow-cpp-type can
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

void file_rules(const FileFacts& facts, Findings& out) {
  if (facts.stream_line != 0 && !facts.stream_synced) {
    out.add(RuleId::UNSYNCED_STREAM, facts.stream_line, facts.stream_text);
  }
  if (facts.graph_line != 0) {
    out.add(facts.refreshes_inputs ? RuleId::CUDA_GRAPH : RuleId::GRAPH_STALE_INPUTS,
            facts.graph_line, facts.graph_text);
  }
}

class EntryFunction;
class EntryFlow;
struct InputSlice;

// The Python rules: queries of the model's facts, and the data flow of the entry function.
class PythonRules {
 public:
  PythonRules(const CodeModel& model, const CodeContext& context, Findings& out, FileFacts& facts)
      : m_(model),
        py_(model.python()),
        f_(py_.facts()),
        context_(context),
        out_(out),
        facts_(facts) {}

  void run() {
    calls();
    stores();
    attributes_and_items();
    classes();
    counters();
    strings();
    rng_pairs();
    identity();
    if (const auto entry = py_.function_named("custom_kernel")) entry_function(*entry);
    cached_returns();
    warmup_branches();
  }

  // The entry function's rules alone (the screen's path: nothing else can fire).
  void run_entry() {
    if (const auto entry = py_.function_named("custom_kernel")) entry_function(*entry);
  }

 private:
  [[nodiscard]] uint32_t line(uint32_t k) const {
    return k < py_.size() ? py_.tokens()[k].line : 1;
  }
  void add(RuleId rule, uint32_t k) { out_.add(rule, line(k), py_.line_text(k)); }
  [[nodiscard]] uint32_t scope_of_statement(uint32_t st) const {
    return st < py_.statements().size() ? py_.statements()[st].scope : 0;
  }
  [[nodiscard]] uint32_t scope_of(uint32_t k) const {
    return scope_of_statement(py_.statement_of(k));
  }

  static bool timer_path(std::string_view p) {
    const size_t dot = p.rfind('.');
    if (dot == std::string_view::npos) return false;
    if (!one_of(p.substr(dot + 1), kTimerAttrs)) return false;
    for (std::string_view m : kTimerModules) {
      if (starts_with(p, m)) return true;
    }
    return false;
  }
  static bool harness_path(std::string_view p) {
    if (one_of(p, kCheckFunctions)) return true;
    const std::string_view root = p.substr(0, p.find('.'));
    return one_of(root, kHarnessModules) && p.find('.') != std::string_view::npos;
  }

  // An object's attribute `name` replaced: timer or harness patch.
  void patched(const Value& object, std::string_view name, uint32_t k) {
    object.each([&](const Value& o) {
      if (o.kind != Value::Kind::OBJECT && o.kind != Value::Kind::VARS) return;
      const std::string path =
          o.text.empty() ? std::string(name) : o.text + "." + std::string(name);
      if (timer_path(path) || o.text == "torch.cuda.Event" ||
          starts_with(o.text, "torch.cuda.Event.")) {
        add(RuleId::TIMER_PATCH, k);
      } else if (harness_path(path) || o.text == "sys.modules") {
        add(RuleId::HARNESS_PATCH, k);
      }
    });
  }

  // A dotted path given as a string (mock.patch("time.perf_counter")).
  void patched_path(std::string_view s, uint32_t k) {
    if (starts_with(s, "time.") || starts_with(s, "torch.cuda") || contains(s, "perf_counter") ||
        contains(s, "elapsed_time") || starts_with(s, "timeit")) {
      add(RuleId::TIMER_PATCH, k);
      return;
    }
    if (harness_path(s)) add(RuleId::HARNESS_PATCH, k);
  }

  static const source::Arg* positional(const CallFact& c, size_t i) {
    size_t n = 0;
    for (const source::Arg& a : c.args) {
      if (!a.keyword.empty() || a.star != 0) continue;
      if (n++ == i) return &a;
    }
    return nullptr;
  }
  static const source::Arg* keyword(const CallFact& c, std::string_view name) {
    for (const source::Arg& a : c.args) {
      if (a.keyword == name) return &a;
    }
    return nullptr;
  }
  // Every string a call is given, each argument's alternatives and a sequence's items joined by
  // spaces (a command line).
  static std::vector<std::string> arg_strings(const CallFact& c) {
    std::vector<std::string> out;
    for (const source::Arg& a : c.args) {
      a.value.each([&](const Value& v) {
        if (v.kind == Value::Kind::STR || v.kind == Value::Kind::BYTES) out.push_back(v.text);
        if (v.kind == Value::Kind::SEQ) {
          std::string line;
          for (const Value& i : v.items) {
            if (i.kind != Value::Kind::STR) continue;
            if (!line.empty()) line += ' ';
            line += i.text;
          }
          out.push_back(std::move(line));
        }
      });
    }
    return out;
  }

  // The attributes a call replaces: setattr(obj, "name", v), vars(obj).update(...),
  // obj.__dict__[...] = ..., mock.patch("a.b"), mock.patch.object(obj, "name"),
  // monkeypatch.setattr(...).
  void patches(const CallFact& c, const std::vector<std::string_view>& paths) {
    const uint32_t k = c.callee;
    const auto is = [&](std::string_view p) {
      return std::find(paths.begin(), paths.end(), p) != paths.end();
    };
    // setattr(obj, name, value): the name folded.
    if (is("builtins.setattr")) {
      const source::Arg* obj = positional(c, 0);
      const source::Arg* name = positional(c, 1);
      if (obj != nullptr && name != nullptr) {
        name->value.each([&](const Value& n) {
          if (n.kind == Value::Kind::STR && !n.partial) patched(obj->value, n.text, k);
        });
      }
    }
    // vars(obj).update(...) / obj.__dict__.update(...): each key set.
    if (c.last == "update" || c.last == "setdefault" || c.last == "__setitem__") {
      const Value* vars = nullptr;
      // The receiver: the callee's value is unknown (a method of a dict); look at the item and
      // attribute facts for the receiver expression: vars(...) is a call fact just before.
      vars = receiver_vars(c);
      if (vars != nullptr) {
        for (const source::Arg& a : c.args) {
          if (!a.keyword.empty()) patched(*vars, a.keyword, k);
          a.value.each([&](const Value& d) {
            if (d.kind == Value::Kind::DICT) {
              for (size_t i = 0; i + 1 < d.items.size(); i += 2) {
                if (d.items[i].kind == Value::Kind::STR && !d.items[i].partial) {
                  patched(*vars, d.items[i].text, k);
                }
              }
            } else if (d.kind == Value::Kind::STR && !d.partial && c.last != "update") {
              patched(*vars, d.text, k);
            }
          });
        }
      }
    }
    // mock.patch("a.b"), mock.patch.object(obj, "name"), monkeypatch.setattr(...)
    if (c.last == "patch" || c.last == "object" || c.last == "setattr") {
      const bool object_form = c.last == "object" || c.last == "setattr";
      const source::Arg* a0 = positional(c, 0);
      const source::Arg* a1 = positional(c, 1);
      if (object_form && a0 != nullptr && a1 != nullptr) {
        a1->value.each([&](const Value& n) {
          if (n.kind == Value::Kind::STR && !n.partial) patched(a0->value, n.text, k);
        });
      }
      if (a0 != nullptr) {
        a0->value.each([&](const Value& s) {
          if (s.kind == Value::Kind::STR && !s.partial) patched_path(s.text, k);
        });
      }
    }
  }

  // The file's facts a call adds to: a stream made, a wait on one, a CUDA graph, inputs refreshed.
  void stream_facts(const CallFact& c, const std::vector<std::string_view>& paths) {
    const uint32_t k = c.callee;
    const auto is = [&](std::string_view p) {
      return std::find(paths.begin(), paths.end(), p) != paths.end();
    };
    const auto any = [&](auto&& pred) { return std::any_of(paths.begin(), paths.end(), pred); };
    // Streams made, through any alias or getattr; waited on.
    if (any([](std::string_view p) {
          return p == "torch.cuda.Stream" || p == "torch.cuda.ExternalStream" ||
                 p == "torch.Stream" || p == "torch.cuda.streams.Stream" ||
                 (starts_with(p, "torch.") && p.ends_with(".Stream"));
        }) &&
        facts_.stream_line == 0) {
      facts_.stream_line = line(k);
      facts_.stream_text = std::string(py_.line_text(k));
    }
    if (c.last == "synchronize" || c.last == "wait_stream" || c.last == "wait_event" ||
        c.last == "wait" || is("torch.cuda.synchronize")) {
      facts_.stream_synced = true;
    }
    if ((any([](std::string_view p) {
           return p == "torch.cuda.CUDAGraph" || p == "torch.cuda.graph" ||
                  p == "torch.cuda.make_graphed_callables" || p == "torch.cuda.graphs.CUDAGraph";
         }) ||
         c.last == "replay") &&
        facts_.graph_line == 0) {
      facts_.graph_line = line(k);
      facts_.graph_text = std::string(py_.line_text(k));
    }
    if (c.last == "copy_" || c.last == "index_copy_" || c.last == "_foreach_copy_" ||
        c.last == "copyto" || c.last == "set_") {
      facts_.refreshes_inputs = true;
    }
  }

  void calls() {
    for (const CallFact& c : f_.calls) {
      const Value& fn = c.function;
      const uint32_t k = c.callee;
      std::vector<std::string_view> paths;
      fn.each([&](const Value& v) {
        if (v.kind == Value::Kind::OBJECT) paths.push_back(v.text);
      });
      const auto is = [&](std::string_view p) {
        return std::find(paths.begin(), paths.end(), p) != paths.end();
      };
      const auto any = [&](auto&& pred) { return std::any_of(paths.begin(), paths.end(), pred); };
      patches(c, paths);
      if (any([](std::string_view p) { return one_of(p, kFrameCalls); })) {
        add(RuleId::CALLER_FRAME, k);
      }
      if (is("gc.get_objects") || is("gc.get_referrers") || is("gc.get_referents")) {
        add(RuleId::HARNESS_ACCESS, k);
      }
      if (any([](std::string_view p) {
            return one_of(p, kSeedCalls) ||
                   (starts_with(p, "torch") && p.ends_with(".manual_seed"));
          })) {
        add(RuleId::RNG_SEED, k);
      }
      if (is("itertools.count")) add(RuleId::CALL_COUNTER, k);
      // exec / eval / compile, through any alias: decoded text is obfuscated.
      if (is("builtins.exec") || is("builtins.eval") || is("builtins.compile")) {
        bool decoded = false;
        for (const source::Arg& a : c.args) {
          a.value.each([&](const Value& v) { decoded = decoded || v.decoded; });
        }
        add(decoded ? RuleId::OBFUSCATED_EXEC : RuleId::DYNAMIC_EXEC, k);
      }
      if (is("builtins.__import__") || is("importlib.import_module")) {
        const source::Arg* a0 = positional(c, 0);
        const bool constant = a0 != nullptr && a0->value.kind == Value::Kind::STR &&
                              !a0->value.partial && !a0->value.decoded;
        if (!constant) add(RuleId::DYNAMIC_EXEC, k);
      }
      if (is("builtins.id")) add(RuleId::IDENTITY_KEY, k);
      if (any([](std::string_view p) { return one_of(p, kTimerCalls); })) {
        add(RuleId::TIMER_CALL, k);
      }
      if (any([](std::string_view p) {
            for (std::string_view n : kNetworkPrefixes) {
              if (starts_with(p, n)) return true;
            }
            return (starts_with(p, "urllib") &&
                    (p.ends_with(".urlopen") || p.ends_with(".urlretrieve")));
          })) {
        add(RuleId::NETWORK_ACCESS, k);
      }
      if (any([](std::string_view p) {
            return p == "pip.main" || starts_with(p, "pip._internal");
          })) {
        add(RuleId::RUNTIME_INSTALL, k);
      }
      const bool shell = any([](std::string_view p) {
        return starts_with(p, "subprocess.") || p == "os.system" || p == "os.popen" ||
               starts_with(p, "os.exec") || starts_with(p, "os.spawn") ||
               starts_with(p, "os.posix_spawn");
      });
      if (shell) {
        for (const std::string& s : arg_strings(c)) {
          if (spells_install(s) || (contains(s, "pip") && contains(s, "install"))) {
            add(RuleId::RUNTIME_INSTALL, k);
          }
          if (contains(s, "wget") || contains(s, "curl")) add(RuleId::NETWORK_ACCESS, k);
        }
      }
      if (any([](std::string_view p) { return one_of(p, kCodeLoad); }) || c.last == "exec_module") {
        add(RuleId::RUNTIME_CODE_LOAD, k);
      }
      stream_facts(c, paths);
      // Output calls with a result line.
      if (one_of(c.last, kOutputCalls) || is("os.write")) {
        for (const std::string& s : arg_strings(c)) {
          if (spells_benchmark_line(s)) add(RuleId::FAKE_BENCHMARK_LINE, k);
        }
      }
      // Native code rewritten: mprotect, memmove onto a function's address.
      if (c.last == "mprotect" || c.last == "VirtualProtect") add(RuleId::NATIVE_PATCH, k);
      if (is("ctypes.memmove") || is("ctypes.memset")) {
        const source::Arg* dst = positional(c, 0);
        if (dst != nullptr) {
          bool function_address = false;
          dst->value.each([&](const Value& v) {
            function_address = function_address || (v.kind == Value::Kind::OBJECT &&
                                                    (starts_with(v.text, "ctypes.cast()") ||
                                                     starts_with(v.text, "ctypes.addressof()")));
          });
          if (function_address) add(RuleId::NATIVE_PATCH, k);
        }
      }
      if (starts_with(c.last, "cuMemGetAddressRange") || c.last == "ptrace") {
        add(RuleId::PROCESS_MEMORY, k);
      }
      if (is("os.dup2")) add(RuleId::FD_REDIRECT, k);
      // Reading an environment variable: os.getenv / os.environ.get.
      if (is("os.getenv") || is("os.environ.get")) {
        if (const source::Arg* key = positional(c, 0)) env_key(key->value, k);
      }
      // open("/proc/self/mem")
      if (is("builtins.open") || is("os.open") || is("io.open")) {
        for (const std::string& s : arg_strings(c)) {
          if (contains(s, "/proc/") && contains(s, "/mem")) {
            add(RuleId::PROCESS_MEMORY, k);
          }
        }
      }
      precision(c);
    }
  }

  // The receiver of a method call when it is vars(X) or X.__dict__: VARS X.
  const Value* receiver_vars(const CallFact& c) {
    // The receiver is the expression before the last '.': find the call or attribute fact that
    // ends right before it.
    const uint32_t dot = c.open >= 2 ? c.open - 2 : 0;
    if (!py_.op(dot, ".")) return nullptr;
    for (const CallFact& r : f_.calls) {
      if (r.close + 1 == dot) {
        receiver_ = r.function;
        receiver_ = apply_vars(r);
        return receiver_.kind == Value::Kind::UNKNOWN ? nullptr : &receiver_;
      }
    }
    // X.__dict__.update: the attribute fact of __dict__.
    for (const source::AttributeFact& a : f_.attributes) {
      if (a.token + 1 == dot && a.name == "__dict__") {
        receiver_ = Value();
        a.object.each([&](const Value& o) {
          if (o.kind == Value::Kind::OBJECT) {
            receiver_ = o;
            receiver_.kind = Value::Kind::VARS;
          }
        });
        return receiver_.kind == Value::Kind::UNKNOWN ? nullptr : &receiver_;
      }
    }
    return nullptr;
  }
  static Value apply_vars(const CallFact& r) {
    Value out;
    if (!r.function.is_object("builtins.vars")) return out;
    const source::Arg* a0 = positional(r, 0);
    if (a0 == nullptr) return out;
    a0->value.each([&](const Value& o) {
      if (o.kind == Value::Kind::OBJECT) {
        out = o;
        out.kind = Value::Kind::VARS;
      }
    });
    return out;
  }

  void env_key(const Value& key, uint32_t k) {
    key.each([&](const Value& v) {
      if (v.kind != Value::Kind::STR) return;
      for (std::string_view m : kEnvModeWords) {
        if (contains(v.text, m)) {
          add(RuleId::ENV_MODE_CHECK, k);
          return;
        }
      }
    });
  }

  void precision(const CallFact& c) {
    int bits = 0;
    // A method: x.half(), x.to(...); never a function of that name.
    if (c.open < 2 || !py_.op(c.open - 2, ".")) return;
    if (c.last == "to" || c.last == "type" || c.last == "half" || c.last == "bfloat16") {
      if (c.last == "half" || c.last == "bfloat16") bits = 16;
      for (const source::Arg& a : c.args) {
        if (!a.keyword.empty() && a.keyword != "dtype") continue;
        a.value.each([&](const Value& v) {
          if (v.kind != Value::Kind::OBJECT || !starts_with(v.text, "torch.")) return;
          const std::string_view last = std::string_view(v.text).substr(v.text.rfind('.') + 1);
          const int b = float_bits(last, false);
          if (b > 0 && (bits == 0 || b < bits)) bits = b;
        });
      }
    }
    if (bits == 0) return;
    if (context_.reference_float_bits) {
      if (bits < *context_.reference_float_bits) add(RuleId::PRECISION_DOWNGRADE, c.callee);
      return;
    }
    // Unknown reference: a cast down (below 32 bits: a cast to fp32 and back is how honest
    // kernels accumulate, a softmax in fp32 say) whose result is cast back to an input's dtype
    // (X.dtype of a parameter or a name unpacked from one) in the same function. The screen
    // relies on may_cast_down_and_back holding wherever this fires: keep the two together.
    if (bits >= 32) return;
    const uint32_t scope = scope_of_statement(c.statement);
    for (const CallFact& back : f_.calls) {
      if (back.last != "to" || scope_of_statement(back.statement) != scope) continue;
      if (back.open < c.close) continue;  // the cast back comes after the cast down
      for (const source::Arg& a : back.args) {
        if (a.end == a.begin + 3 && py_.op(a.begin + 1, ".") && py_.name(a.begin + 2) == "dtype") {
          add(RuleId::PRECISION_DOWNGRADE, c.callee);
          return;
        }
      }
    }
  }

  void stores() {
    for (const source::StoreFact& s : f_.stores) {
      if (s.item) {
        // vars(m)["name"] = v, m.__dict__["name"] = v, sys.modules["x"] = m
        s.key.each([&](const Value& key) {
          if (key.kind != Value::Kind::STR || key.partial) return;
          s.object.each([&](const Value& o) {
            if (o.kind == Value::Kind::VARS) patched(o, key.text, s.token);
            if (o.kind == Value::Kind::OBJECT && (o.text == "builtins")) {
              add(RuleId::HARNESS_PATCH, s.token);
            }
          });
        });
        s.object.each([&](const Value& o) {
          if (o.kind == Value::Kind::OBJECT && o.text == "sys.modules") {
            add(RuleId::HARNESS_PATCH, s.token);
          }
        });
        if (!s.augmented) facts_.refreshes_inputs = true;  // static[:] = x refreshes a graph
        continue;
      }
      if (!s.augmented) patched(s.object, s.name, s.token);
      // A value stored through from_address: a pointer written in the process's memory.
      if ((s.name == "value" || s.name == "contents")) {
        s.object.each([&](const Value& o) {
          if (o.kind == Value::Kind::OBJECT && o.text.ends_with(".from_address()")) {
            add(RuleId::NATIVE_PATCH, s.token);
          }
        });
      }
    }
  }

  void attributes_and_items() {
    for (const source::AttributeFact& a : f_.attributes) {
      if (one_of(a.name, kFrameAttrs)) add(RuleId::CALLER_FRAME, a.token);
      a.object.each([&](const Value& o) {
        if (o.kind != Value::Kind::OBJECT || o.text != "sys") return;
        if (a.name == "modules") add(RuleId::HARNESS_ACCESS, a.token);
        if (a.name == "argv") add(RuleId::ARGV_CHECK, a.token);
      });
    }
    for (const source::ItemFact& i : f_.items) {
      i.object.each([&](const Value& o) {
        if (o.kind == Value::Kind::OBJECT && o.text == "os.environ") {
          // A read (a write sets up the build: os.environ["X"] = ... is a store, not an item).
          env_key(i.key, i.token);
        }
      });
    }
  }

  void classes() {
    for (const source::ClassFact& c : f_.classes) {
      for (const Value& b : c.bases) {
        if (b.is_object("torch.cuda.Event") || b.is_object("torch.cuda.streams.Event")) {
          add(RuleId::TIMER_SUBCLASS, py_.statements()[c.statement].begin);
        }
      }
    }
  }

  // Whether tokens [begin, end) of statement `st` are a constant a counter steps by: a number, or
  // an expression or a name the model works out to one (`step = 1`, then `n += step`).
  [[nodiscard]] bool constant_step(uint32_t begin, uint32_t end, uint32_t st) const {
    if (end == begin + 1 && py_.is_kind(begin, TokenKind::NUMBER)) return true;
    bool integer = false;
    py_.eval(begin, end, scope_of_statement(st), st).each([&](const Value& v) {
      integer = integer || v.kind == Value::Kind::INT;
    });
    return integer;
  }
  // Whether augmented assignment statement `st` steps by a constant (`+= 1`, `-= 1`).
  [[nodiscard]] bool steps_by_constant(uint32_t st) const {
    const source::Statement& s = py_.statements()[st];
    const uint16_t depth = py_.tokens()[s.begin].depth;
    for (uint32_t k = s.begin; k < s.end; ++k) {
      if ((py_.op(k, "+=") || py_.op(k, "-=")) && py_.tokens()[k].depth == depth) {
        return constant_step(k + 1, s.end, st);
      }
    }
    return false;
  }

  // Counters: globals incremented in functions, function or instance attributes and module
  // containers' items incremented, each by a constant (a KV cache's length advanced by what it
  // takes, or a running sum, counts no calls).
  void counters() {
    for (const source::Binding& b : py_.bindings()) {
      if (b.kind != source::Binding::Kind::AUGMENT || b.scope == 0) continue;
      if (!steps_by_constant(b.statement)) continue;
      const auto& globals = py_.scopes()[b.scope].globals;
      if (std::find(globals.begin(), globals.end(), b.name) != globals.end()) {
        add(RuleId::CALL_COUNTER, b.target);
        counter_names_.insert(std::string(b.name));
      }
    }
    for (const source::StoreFact& s : f_.stores) {
      if (!s.augmented || !steps_by_constant(s.statement)) continue;
      const uint32_t st = s.statement;
      const uint32_t scope = scope_of_statement(st);
      if (scope == 0) continue;
      // The store's root name.
      const uint32_t root = s.token;
      if (!py_.is_name(root)) continue;
      const std::string_view name = py_.name(root);
      const auto& sc = py_.scopes()[scope];
      const bool self = !sc.params.empty() && sc.params.front().name == name && name == "self";
      bool module_state = false;
      if (!self) {
        const std::span<const uint32_t> found = py_.lookup(name, scope, st);
        module_state = !found.empty();
        for (uint32_t b : found) {
          if (py_.bindings()[b].scope != 0) module_state = false;
        }
      }
      if (self || module_state) {
        add(RuleId::CALL_COUNTER, root);
        // An item counted: its container; an attribute: the dotted name.
        counter_names_.insert(s.item ? std::string(name)
                                     : std::string(name) + "." + std::string(s.name));
      }
    }
  }

  // POPCORN_FD: a name, or any string: a literal that is not a docstring nor a C++ source (the
  // C++ rules read those), or a value folded from several and given to a call or used as a key.
  void strings() {
    std::unordered_set<uint32_t> cpp_literals;
    for (const CppSource& s : m_.cpp_sources()) {
      if (!s.folded) cpp_literals.insert(s.python_token);
    }
    for (uint32_t k = 0; k < py_.size(); ++k) {
      const Token& t = py_.tokens()[k];
      if (t.kind == TokenKind::NAME && py_.name(k) == "POPCORN_FD") {
        add(RuleId::RESULT_PIPE, k);
      } else if (t.kind == TokenKind::STRING && cpp_literals.count(k) == 0 &&
                 !m_.statement_string(k)) {
        const std::string_view body = source::token_body(py_.text(), t);
        if (contains(body, "POPCORN_FD")) add(RuleId::RESULT_PIPE, k);
        if (contains(body, "/proc/self/mem")) add(RuleId::PROCESS_MEMORY, k);
      }
    }
    // A value folded from pieces none of which names it alone (each literal is read above).
    const auto folded = [&](const Value& value, uint32_t b, uint32_t e, uint32_t k) {
      for (uint32_t j = b; j < e; ++j) {
        if (py_.is_kind(j, TokenKind::STRING) &&
            contains(source::token_body(py_.text(), py_.tokens()[j]), "POPCORN_FD")) {
          return;
        }
      }
      value.each([&](const Value& v) {
        if ((v.kind == Value::Kind::STR || v.kind == Value::Kind::BYTES) && v.literal == 0 &&
            contains(v.text, "POPCORN_FD")) {
          add(RuleId::RESULT_PIPE, k);
        }
      });
    };
    for (const CallFact& c : f_.calls) {
      for (const source::Arg& a : c.args) folded(a.value, a.begin, a.end, c.callee);
    }
    for (const source::ItemFact& i : f_.items) {
      folded(i.key, i.token + 1, py_.closing(i.token), i.token);
    }
  }

  // get_rng_state / set_rng_state: a state saved into a local and restored in the same function
  // is the honest save-and-restore; any other read or set is a replay.
  void rng_pairs() {
    std::vector<const CallFact*> gets;
    std::vector<const CallFact*> sets;
    for (const CallFact& c : f_.calls) {
      if (!one_of(c.last, kStateCalls)) continue;
      bool rng_module = false;
      c.function.each([&](const Value& v) {
        rng_module =
            rng_module || (v.kind == Value::Kind::OBJECT &&
                           (starts_with(v.text, "torch") || starts_with(v.text, "random") ||
                            starts_with(v.text, "numpy")));
      });
      if (!rng_module && c.last.find("rng") == std::string_view::npos) continue;
      (starts_with(c.last, "get") ? gets : sets).push_back(&c);
    }
    std::vector<const CallFact*> paired;
    for (const CallFact* g : gets) {
      // X = ...get_rng_state(): X's name.
      const source::Statement& st = py_.statements()[g->statement];
      const std::vector<std::string_view> targets = py_.targets_of(g->statement);
      if (targets.empty()) continue;
      const std::string_view saved = targets.front();
      for (const CallFact* s : sets) {
        if (scope_of_statement(s->statement) != st.scope || s->statement <= g->statement) continue;
        const source::Arg* a = positional(*s, 0);
        if (a != nullptr && a->end == a->begin + 1 && py_.name(a->begin) == saved) {
          paired.push_back(g);
          paired.push_back(s);
        }
      }
    }
    for (const auto* list : {&gets, &sets}) {
      for (const CallFact* c : *list) {
        if (std::find(paired.begin(), paired.end(), c) == paired.end()) {
          add(RuleId::RNG_STATE, c->callee);
        }
      }
    }
  }

  // .data_ptr() used as a key: in a subscript, a membership test, a comparison, .get / .pop /
  // .setdefault, or a variable named for a key. Not when the function replays a CUDA graph (a
  // graph captured on the inputs, keyed by where they are).
  void identity() {
    for (const CallFact& c : f_.calls) {
      if (c.last != "data_ptr") continue;
      const uint32_t k = c.callee;
      // The token of "data_ptr": just before the call's '('.
      const uint32_t name_token = c.open - 1;
      bool keyed = false;
      // Inside a subscript or a .get/.setdefault/.pop call: the innermost open bracket.
      const uint32_t st_index = c.statement;
      const source::Statement& st = py_.statements()[st_index];
      for (uint32_t j = name_token; j-- > st.begin;) {
        const Token& t = py_.tokens()[j];
        if (t.depth < py_.tokens()[name_token].depth && t.kind == TokenKind::OP) {
          const std::string_view o = py_.txt(j);
          if (o == "[" && j > st.begin &&
              (py_.is_name(j - 1) || py_.op(j - 1, "]") || py_.op(j - 1, ")"))) {
            keyed = true;
          }
          if (o == "(" && j >= 2 && py_.op(j - 2, ".") &&
              (py_.name(j - 1) == "get" || py_.name(j - 1) == "setdefault" ||
               py_.name(j - 1) == "pop")) {
            keyed = true;
          }
          if (o == "(" || o == "[" || o == "{") break;
        }
      }
      const uint32_t after = c.close + 1;
      if (py_.keyword(after, "in") || py_.keyword(after, "not") || py_.keyword(after, "is") ||
          py_.op(after, "==") || py_.op(after, "!=")) {
        keyed = true;
      }
      for (std::string_view target : py_.targets_of(st_index)) {
        keyed = keyed || contains(target, "key") || contains(target, "sig") ||
                contains(target, "ident") || contains(target, "cache");
      }
      if (!keyed) continue;
      if (replays_graph(scope_of_statement(st_index))) {
        facts_.refreshes_inputs = true;  // the graph runs on the inputs it was captured on
        continue;
      }
      add(RuleId::IDENTITY_KEY, k);
    }
  }

  [[nodiscard]] bool replays_graph(uint32_t scope) const {
    for (const CallFact& c : f_.calls) {
      if (c.last == "replay" && scope_of_statement(c.statement) == scope) return true;
    }
    return false;
  }

  // Whether function `scope` replays a graph or launches (a call statement) in statements
  // [from, to) of its own code.
  [[nodiscard]] bool computes_between(uint32_t scope, uint32_t from, uint32_t to) const {
    for (const CallFact& c : f_.calls) {
      if (c.statement < from || c.statement >= to) continue;
      if (scope_of_statement(c.statement) != scope) continue;
      if (c.last == "replay" || c.result_unused) return true;
    }
    return false;
  }

  // Whether the expression [b, e) of statement `st` is module state: NAME, NAME[...] or
  // NAME.get(...), with NAME a module-level (or global) name that is not a function, class or
  // import.
  [[nodiscard]] bool module_state(uint32_t b, uint32_t e, uint32_t st) const {
    if (b >= e || !py_.is_name(b)) return false;
    const uint32_t scope = scope_of_statement(st);
    const std::string_view n = py_.name(b);
    const std::span<const uint32_t> found = py_.lookup(n, scope, st);
    if (found.empty()) return false;
    for (uint32_t bi : found) {
      const source::Binding& bd = py_.bindings()[bi];
      if (bd.scope != 0) return false;
      if (bd.kind == source::Binding::Kind::DEF || bd.kind == source::Binding::Kind::CLASS ||
          bd.kind == source::Binding::Kind::IMPORT) {
        return false;
      }
    }
    uint32_t k = b + 1;
    if (py_.op(k, "[")) {
      k = py_.closing(k) + 1;
    } else if (py_.op(k, ".") && py_.name(k + 1) == "get" && py_.op(k + 2, "(")) {
      k = py_.closing(k + 2) + 1;
    }
    return k == e;
  }

  void cached_returns() {
    if (!out_.has(RuleId::CALL_COUNTER) && !out_.has(RuleId::IDENTITY_KEY)) return;
    for (const source::ReturnFact& r : f_.returns) {
      const uint32_t scope = scope_of_statement(r.statement);
      if (scope == 0 || !module_state(r.begin, r.end, r.statement)) continue;
      if (computes_between(scope, py_.scopes()[scope].first, r.statement)) continue;
      add(RuleId::CACHED_OUTPUT_REPLAY, py_.statements()[r.statement].begin);
    }
  }

  // if <counter or identity test>: ... return <state or constant, no call>
  void warmup_branches() {
    const auto& sts = py_.statements();
    for (uint32_t i = 0; i < sts.size(); ++i) {
      const source::Statement& st = sts[i];
      if (st.kind != source::StatementKind::IF && st.kind != source::StatementKind::ELIF) continue;
      if (st.scope == 0) continue;
      bool counter = false;
      bool identity = false;
      bool compares = false;
      for (uint32_t k = st.begin + 1; k < st.colon; ++k) {
        const std::string_view w = py_.txt(k);
        if (py_.is_name(k) && !(k > 0 && py_.op(k - 1, "."))) {
          const std::string n(py_.name(k));
          if (counter_names_.count(n) > 0) counter = true;
          if (py_.op(k + 1, ".") &&
              counter_names_.count(n + "." + std::string(py_.name(k + 2))) > 0) {
            counter = true;
          }
        }
        if (w == "data_ptr" || (w == "id" && py_.op(k + 1, "("))) identity = true;
        if (w == "==" || w == "!=" || w == "in" || w == "is" || w == "<" || w == ">" || w == "<=" ||
            w == ">=" || w == "%") {
          compares = true;
        }
      }
      if (!(counter || (identity && compares))) continue;
      for (uint32_t j = i + 1; j < st.block_end && j < sts.size(); ++j) {
        if (sts[j].kind != source::StatementKind::RETURN || sts[j].scope != st.scope) continue;
        bool call = false;
        for (uint32_t k = sts[j].begin + 1; k < sts[j].end; ++k) {
          if (py_.op(k, "(") && k > 0 && (py_.is_name(k - 1) || py_.op(k - 1, "]"))) call = true;
        }
        if (call || computes_between(st.scope, i + 1, j)) continue;
        if (sts[j].begin + 1 >= sts[j].end) continue;  // a bare return
        add(RuleId::WARMUP_BRANCH, st.begin);
        break;
      }
    }
  }

  // The data flow of custom_kernel (entry): what it reads, writes and returns, and the rules on
  // it, one function a rule or two.
  void entry_function(uint32_t scope);
  void returned_inputs(const EntryFunction& fn, const EntryFlow& flow);
  void written_inputs(const EntryFunction& fn, const EntryFlow& flow);
  void made_outputs(const EntryFunction& fn, const EntryFlow& flow);
  void ignored_inputs(const EntryFunction& fn, const EntryFlow& flow);
  void sliced_inputs(const EntryFunction& fn, const EntryFlow& flow, uint32_t scope);
  [[nodiscard]] std::vector<InputSlice> input_slices(const EntryFunction& fn) const;
  [[nodiscard]] bool bound_truncates(const EntryFunction& fn,
                                     const std::unordered_set<std::string_view>& loop_names,
                                     std::pair<uint32_t, uint32_t> bound,
                                     std::string_view root) const;
  [[nodiscard]] bool rescaled(const InputSlice& s, const source::Scope& sc) const;

  const CodeModel& m_;
  const PythonModel& py_;
  const source::Facts& f_;
  const CodeContext& context_;
  Findings& out_;
  FileFacts& facts_;
  Value receiver_;
  std::unordered_set<std::string> counter_names_;  // `n`, `self.calls`, `_state`
};

// What an expression of the entry function makes.
enum class Origin : uint8_t { OTHER, FRESH, CONSTANT, RANDOM, ALIAS, NONE };

class EntryFunction {
 public:
  EntryFunction(const PythonModel& py, uint32_t scope) : py_(py), scope_(scope) {
    const source::Scope& sc = py.scopes()[scope];
    first_ = sc.first < py.statements().size() ? py.statements()[sc.first].begin : 0;
    last_ = sc.end > sc.first && sc.end <= py.statements().size() ? py.statements()[sc.end - 1].end
                                                                  : first_;
    for (const source::Param& p : sc.params) {
      if (p.name == "self" || p.name == "cls") continue;
      inputs_.insert(p.name);
      params_.push_back(p.name);
    }
    // Names unpacked from a parameter: a, b, c = data; a = data[0].
    for (const source::Binding& b : py.bindings()) {
      if (b.scope != scope || b.kind != source::Binding::Kind::ASSIGN) continue;
      const bool element_written = py.value_tokens(b).first != py.value_tokens(b).second;
      const uint32_t vb = element_written ? py.value_tokens(b).first : b.value_begin;
      const uint32_t ve = element_written ? py.value_tokens(b).second : b.value_end;
      const bool whole =
          !element_written && ve == vb + 1 && py.is_name(vb) && is_param(py.name(vb));
      const bool indexed = ve == vb + 4 && py.is_name(vb) && is_param(py.name(vb)) &&
                           py.op(vb + 1, "[") && py.is_kind(vb + 2, TokenKind::NUMBER) &&
                           py.op(vb + 3, "]");
      if ((whole && b.element != 0) || (indexed && (element_written || b.element == 0))) {
        inputs_.insert(b.name);
        unpacked_.push_back(b.name);
        unpack_statements_.insert(b.statement);
      }
    }
    for (const source::Binding& b : py.bindings()) {
      if (b.scope != scope) continue;
      if (b.kind == source::Binding::Kind::PARAM) continue;
      if (unpack_statements_.count(b.statement) > 0) continue;
      locals_[b.name].push_back(&b);
    }
  }

  [[nodiscard]] bool is_param(std::string_view n) const {
    return std::find(params_.begin(), params_.end(), n) != params_.end();
  }
  [[nodiscard]] bool is_input(std::string_view n) const { return inputs_.count(n) > 0; }
  [[nodiscard]] bool has_inputs() const { return !inputs_.empty(); }
  [[nodiscard]] uint32_t first() const { return first_; }
  [[nodiscard]] uint32_t last() const { return last_; }
  [[nodiscard]] const std::vector<std::string_view>& unpacked() const { return unpacked_; }

  // The root a chain of single-definition aliases leads to (x = a; y = x.view(-1) -> a).
  [[nodiscard]] std::string_view root(std::string_view n) const {
    for (int hops = 0; hops < 32; ++hops) {
      const auto it = locals_.find(n);
      if (it == locals_.end() || it->second.size() != 1) return n;
      const source::Binding& b = *it->second.front();
      if (b.kind != source::Binding::Kind::ASSIGN) return n;
      const auto [vb, ve] = py_.value_tokens(b);
      std::string_view alias;
      if (vb == ve || classify(vb, ve, &alias) != Origin::ALIAS) return n;
      n = alias;
    }
    return n;
  }

  // The names the definitions of local `n` read, followed through the locals they name.
  [[nodiscard]] std::vector<std::string_view> made_from(std::string_view n) const {
    std::vector<std::string_view> out;
    std::vector<std::string_view> todo = {n};
    for (size_t i = 0; i < todo.size() && i < 64; ++i) {
      const auto it = locals_.find(todo[i]);
      if (it == locals_.end()) continue;
      for (const source::Binding* b : it->second) {
        auto [vb, ve] = py_.value_tokens(*b);
        if (vb == ve) std::tie(vb, ve) = std::pair(b->value_begin, b->value_end);
        for (uint32_t k = vb; k < ve; ++k) {
          if (!py_.is_name(k) || (k > 0 && py_.op(k - 1, "."))) continue;
          const std::string_view m = py_.name(k);
          if (std::find(todo.begin(), todo.end(), m) != todo.end()) continue;
          todo.push_back(m);
          out.push_back(m);
        }
      }
    }
    return out;
  }

  // What [b, e) makes: a fresh allocation, a constant, random numbers, an alias of a name (a name
  // or a view of one), nothing (None), or something else.
  Origin classify(uint32_t b, uint32_t e, std::string_view* alias = nullptr) const {
    while (b + 1 < e && py_.op(b, "(") && py_.closing(b) == e - 1) {
      ++b;
      --e;
    }
    if (b >= e) return Origin::NONE;
    if (e == b + 1) {
      if (py_.keyword(b, "None")) return Origin::NONE;
      if (py_.is_kind(b, TokenKind::NUMBER)) return Origin::CONSTANT;
      if (py_.is_name(b)) {
        if (alias != nullptr) *alias = py_.name(b);
        return Origin::ALIAS;
      }
      return Origin::OTHER;
    }
    if (e == b + 2 && py_.op(b, "-") && py_.is_kind(b + 1, TokenKind::NUMBER)) {
      return Origin::CONSTANT;
    }
    // A primary: NAME (.NAME | (args) | [sub])*; its last call's name decides.
    if (!py_.is_name(b)) return Origin::OTHER;
    uint32_t k = b + 1;
    std::string_view last = py_.name(b);
    std::string_view last_call;
    bool views_only = true;
    bool called = false;
    while (k < e) {
      if (py_.op(k, ".") && py_.is_name(k + 1)) {
        last = py_.name(k + 1);
        k += 2;
      } else if (py_.op(k, "(")) {
        last_call = last;
        called = true;
        if (!one_of(last, kViewMethods) && last != "to") views_only = false;
        k = py_.closing(k) + 1;
      } else if (py_.op(k, "[")) {
        views_only = false;
        k = py_.closing(k) + 1;
      } else {
        return Origin::OTHER;
      }
    }
    if (k != e || !called) return Origin::OTHER;
    if (one_of(last_call, kFresh)) return Origin::FRESH;
    if (one_of(last_call, kConstant)) return Origin::CONSTANT;
    if (one_of(last_call, kRandom)) return Origin::RANDOM;
    if (views_only && b + 1 < e && py_.op(b + 1, ".")) {
      if (alias != nullptr) *alias = py_.name(b);
      return Origin::ALIAS;
    }
    return Origin::OTHER;
  }

  const PythonModel& py_;
  uint32_t scope_;
  uint32_t first_ = 0;
  uint32_t last_ = 0;
  std::vector<std::string_view> params_;
  std::unordered_set<std::string_view> inputs_;
  std::vector<std::string_view> unpacked_;
  std::unordered_set<uint32_t> unpack_statements_;
  std::unordered_map<std::string_view, std::vector<const source::Binding*>> locals_;
};

struct Write {
  std::string_view name;  // alias root
  uint32_t token = 0;
  bool constant = false;
  bool launch = false;  // passed to a call standing alone
};

// What the entry function writes (itself, or through the calls it launches), what it returns and
// which names are its outputs.
class EntryFlow {
 public:
  EntryFlow(const PythonModel& py, const source::Facts& f, const EntryFunction& fn, uint32_t scope)
      : py_(py), f_(f), fn_(fn), scope_(scope) {
    for (const source::Binding& b : py_.bindings()) {
      if (b.scope == scope) targets_.insert(b.target);
    }
    own_writes();
    launch_writes();
    // A graph replayed writes whatever it captured: any input may be its output.
    for (const CallFact& c : f_.calls) {
      replays_ =
          replays_ || (own(c.statement) && (c.last == "replay" || c.last == "cudaGraphLaunch" ||
                                            c.last == "hipGraphLaunch"));
    }
    value_returns();
    find_outputs();
  }

  [[nodiscard]] const std::vector<Write>& writes() const { return writes_; }
  [[nodiscard]] bool replays() const { return replays_; }
  // The returns of the function's own code that return a value.
  [[nodiscard]] const std::vector<const source::ReturnFact*>& returns() const { return returns_; }
  [[nodiscard]] bool is_output(std::string_view root) const { return outputs_.count(root) > 0; }

  [[nodiscard]] bool written(std::string_view root, bool launches) const {
    for (const Write& w : writes_) {
      if (w.name == root && (launches || !w.launch)) return true;
    }
    return false;
  }
  [[nodiscard]] bool only_constant_writes(std::string_view root) const {
    bool any = false;
    for (const Write& w : writes_) {
      if (w.name != root) continue;
      if (!w.constant) return false;
      any = true;
    }
    return any;
  }
  // Occurrences of a name in the function other than as a binding's target and in `skip`.
  [[nodiscard]] size_t occurrences(std::string_view root, uint32_t skip_from,
                                   uint32_t skip_to) const {
    size_t n = 0;
    for (uint32_t k = fn_.first(); k < fn_.last(); ++k) {
      if (!py_.is_name(k) || (k > 0 && py_.op(k - 1, ".")) || py_.name(k) != root) continue;
      if (k >= skip_from && k < skip_to) continue;
      if (targets_.count(k) > 0) continue;
      ++n;
    }
    return n;
  }

 private:
  [[nodiscard]] bool own(uint32_t st) const {
    return st < py_.statements().size() && py_.statements()[st].scope == scope_;
  }

  // Writes: in-place methods, item assignments, augmented assignments, out=.
  void own_writes() {
    const auto& sts = py_.statements();
    for (uint32_t k = fn_.first(); k < fn_.last(); ++k) {
      if (!py_.is_name(k) || (k > 0 && py_.op(k - 1, "."))) continue;
      const uint32_t st = py_.statement_of(k);
      if (!own(st)) continue;
      const std::string_view n = py_.name(k);
      const std::string_view root = fn_.root(n);
      // X.method_(...)
      if (py_.op(k + 1, ".") && py_.is_name(k + 2) && py_.op(k + 3, "(")) {
        const std::string_view m = py_.name(k + 2);
        if (m.size() > 1 && m.back() == '_' && !starts_with(m, "__") && m != "data_ptr") {
          const uint32_t close = py_.closing(k + 3);
          // zero_() and the random fills ignore the inputs; fill_(v) does when v is a constant.
          bool constant = one_of(m, kFillMethods) &&
                          (m != "fill_" || fn_.classify(k + 4, close) == Origin::CONSTANT);
          if (m == "mul_" && close == k + 5 && py_.txt(k + 4) == "0") constant = true;
          if (m == "copy_") {
            const Origin o = fn_.classify(k + 4, close);
            constant = o == Origin::CONSTANT || o == Origin::FRESH;
          }
          writes_.push_back({root, k, constant, false});
        }
      }
      // X[...] = v / X[...] op= v / X op= v at a statement's start.
      if (k == sts[st].begin) {
        uint32_t e = k + 1;
        while (py_.op(e, "[")) e = py_.closing(e) + 1;
        const std::string_view o = py_.txt(e);
        const bool item = e > k + 1;
        const bool assign = o == "=" && item;
        const bool augmented =
            o.size() >= 2 && o.back() == '=' && o != "==" && o != "!=" && o != "<=" && o != ">=";
        if (assign || augmented) {
          bool constant = false;
          if (assign) {
            const Origin v = fn_.classify(e + 1, sts[st].end);
            constant = v == Origin::CONSTANT || v == Origin::FRESH;
          }
          writes_.push_back({root, k, constant, false});
        }
      }
      // out=X
      if (k >= 2 && py_.op(k - 1, "=") && py_.name(k - 2) == "out" && py_.tokens()[k].depth > 0) {
        writes_.push_back({root, k, false, false});
      }
    }
  }

  // The names the function reads (not as a binding's target).
  [[nodiscard]] std::unordered_set<std::string_view> names_read() const {
    std::unordered_set<std::string_view> names;
    for (uint32_t k = fn_.first(); k < fn_.last(); ++k) {
      if (py_.is_name(k) && !(k > 0 && py_.op(k - 1, ".")) && targets_.count(k) == 0) {
        names.insert(py_.name(k));
      }
    }
    return names;
  }

  // Whether a call's result is dropped: a statement of its own, an expression statement around it
  // (`f(x) if c else None`), or bound only to names never read (`_ = f(x)`, `status = f(x)`).
  [[nodiscard]] bool dropped(const CallFact& c,
                             const std::unordered_set<std::string_view>& names_read) const {
    if (c.result_unused) return true;
    const std::vector<std::string_view> names = py_.targets_of(c.statement);
    if (names.empty()) {
      const source::Statement& st = py_.statements()[c.statement];
      const uint16_t depth = py_.tokens()[st.begin].depth;
      for (uint32_t k = st.begin; k < st.end; ++k) {
        const std::string_view o = py_.txt(k);
        if (py_.tokens()[k].kind == TokenKind::OP && py_.tokens()[k].depth == depth &&
            o.size() >= 1 && o.back() == '=' && o != "==" && o != "!=" && o != "<=" && o != ">=") {
          return false;  // a store to an attribute or an item keeps the result
        }
      }
      return st.kind == source::StatementKind::SIMPLE;
    }
    for (std::string_view n : names) {
      if (names_read.count(n) > 0) return false;
    }
    return true;
  }

  // A call whose result is dropped (a launch) may write any tensor its arguments name (x,
  // x.view(-1), ctypes.c_void_p(x.data_ptr()), the data tuple whole or starred, ...); the builtins
  // (print, len) write none, nor do torch's functions (they write only through out=, above).
  void launch_writes() {
    const std::unordered_set<std::string_view> read = names_read();
    for (const CallFact& c : f_.calls) {
      if (!own(c.statement) || !dropped(c, read)) continue;
      bool pure = false;
      c.function.each([&](const Value& v) {
        pure = pure || (v.kind == Value::Kind::OBJECT &&
                        (starts_with(v.text, "builtins.") ||
                         (!c.result_unused && starts_with(v.text, "torch.") &&
                          v.text.find('(') == std::string::npos && v.text.back() != '_')));
      });
      if (pure) continue;
      for (const source::Arg& a : c.args) {
        for (uint32_t k = a.begin; k < a.end; ++k) {
          if (py_.is_name(k) && !(k > 0 && py_.op(k - 1, "."))) {
            if (fn_.is_param(py_.name(k))) {
              // The data tuple handed over whole: every name unpacked from it.
              for (std::string_view u : fn_.unpacked()) writes_.push_back({u, k, false, true});
            }
            writes_.push_back({fn_.root(py_.name(k)), k, false, true});
            // A name made from others (ptrs = [x.data_ptr() for x in (a, b, c)]) may point into
            // them: they may be written too.
            for (std::string_view from : fn_.made_from(py_.name(k))) {
              writes_.push_back({fn_.root(from), k, false, true});
            }
          }
        }
      }
    }
  }

  void value_returns() {
    for (const source::ReturnFact& r : f_.returns) {
      if (own(r.statement) && r.end > r.begin &&
          !(r.end == r.begin + 1 && py_.keyword(r.begin, "None"))) {
        returns_.push_back(&r);
      }
    }
  }

  // The outputs: the roots returned; with no value returned, the last name unpacked.
  void find_outputs() {
    for (const source::ReturnFact* r : returns_) {
      std::string_view alias;
      if (fn_.classify(r->begin, r->end, &alias) == Origin::ALIAS) outputs_.insert(fn_.root(alias));
      // return x, y / return (x, y): each element.
      {
        uint32_t b = r->begin;
        uint32_t e = r->end;
        if (py_.op(b, "(") && py_.closing(b) + 1 == e) {
          ++b;
          --e;
        }
        const uint16_t depth = py_.tokens()[b].depth;
        uint32_t item = b;
        for (uint32_t k = b; k <= e; ++k) {
          if (k < e && !(py_.op(k, ",") && py_.tokens()[k].depth == depth)) continue;
          if (k > item && fn_.classify(item, k, &alias) == Origin::ALIAS) {
            outputs_.insert(fn_.root(alias));
          }
          item = k + 1;
        }
      }
      // return fn(a, b, out=c): c is the output too; return run(a, b, c): the last input the
      // returned call is given.
      std::string_view last_input;
      for (uint32_t k = r->begin; k < r->end; ++k) {
        if (!py_.is_name(k) || (k > 0 && py_.op(k - 1, "."))) continue;
        if (k >= 2 && py_.op(k - 1, "=") && py_.name(k - 2) == "out") {
          outputs_.insert(fn_.root(py_.name(k)));
        }
        if (py_.tokens()[k].depth > py_.tokens()[r->begin].depth &&
            fn_.is_input(fn_.root(py_.name(k)))) {
          last_input = fn_.root(py_.name(k));
        }
      }
      if (!last_input.empty()) outputs_.insert(last_input);
    }
    if (returns_.empty() && !fn_.unpacked().empty()) outputs_.insert(fn_.unpacked().back());
  }

  const PythonModel& py_;
  const source::Facts& f_;
  const EntryFunction& fn_;
  uint32_t scope_;
  std::unordered_set<uint32_t> targets_;  // the tokens the scope's bindings bind
  std::vector<Write> writes_;
  bool replays_ = false;
  std::vector<const source::ReturnFact*> returns_;
  std::unordered_set<std::string_view> outputs_;
};

// A slice of an input in one dimension: x[start:stop:step].
struct InputSlice {
  std::string_view root;
  uint32_t open = 0;
  size_t dim = 0;
  std::string start, stop, step;
  std::pair<uint32_t, uint32_t> stop_range, step_range;
  uint32_t statement = 0;
};

void PythonRules::entry_function(uint32_t scope) {
  const EntryFunction fn(py_, scope);
  if (!fn.has_inputs()) return;
  const EntryFlow flow(py_, f_, fn, scope);
  returned_inputs(fn, flow);
  written_inputs(fn, flow);
  made_outputs(fn, flow);
  ignored_inputs(fn, flow);
  sliced_inputs(fn, flow, scope);
}

// return-input: an input (through aliases) that nothing writes.
void PythonRules::returned_inputs(const EntryFunction& fn, const EntryFlow& flow) {
  for (const source::ReturnFact* r : flow.returns()) {
    std::string_view alias;
    if (fn.classify(r->begin, r->end, &alias) != Origin::ALIAS) {
      // return data[0]
      if (!(r->end == r->begin + 4 && py_.is_name(r->begin) && fn.is_param(py_.name(r->begin)) &&
            py_.op(r->begin + 1, "[") && py_.txt(r->begin + 2) == "0")) {
        continue;
      }
      alias = py_.name(r->begin);
    }
    const std::string_view root = fn.root(alias);
    if (!fn.is_input(root) || flow.written(root, true) || flow.replays()) continue;
    // The data parameter returned whole, or an element of it: an input.
    add(RuleId::RETURN_INPUT, py_.statements()[r->statement].begin);
  }
}

// input-overwrite / input-write: writes to an input that is not an output.
void PythonRules::written_inputs(const EntryFunction& fn, const EntryFlow& flow) {
  for (const Write& w : flow.writes()) {
    if (!fn.is_input(w.name) || flow.is_output(w.name) || w.launch) continue;
    add(w.constant ? RuleId::INPUT_OVERWRITE : RuleId::INPUT_WRITE, w.token);
  }
}

// unwritten-output / constant-output: every value returned.
void PythonRules::made_outputs(const EntryFunction& fn, const EntryFlow& flow) {
  if (flow.returns().empty()) return;
  bool all_fresh = true;
  bool all_constant = true;
  for (const source::ReturnFact* r : flow.returns()) {
    std::string_view alias;
    const Origin o = fn.classify(r->begin, r->end, &alias);
    bool fresh = o == Origin::FRESH;
    bool constant = o == Origin::CONSTANT;
    if (o == Origin::ALIAS) {
      const std::string_view root = fn.root(alias);
      const auto it = fn.locals_.find(root);
      Origin made = Origin::OTHER;
      if (it != fn.locals_.end() && it->second.size() == 1 &&
          it->second.front()->kind == source::Binding::Kind::ASSIGN) {
        const auto [vb, ve] = py_.value_tokens(*it->second.front());
        if (vb != ve) made = fn.classify(vb, ve);
      }
      const size_t uses = flow.occurrences(root, r->begin, r->end);
      fresh = made == Origin::FRESH && uses == 0 && !flow.written(root, true);
      // Filled with a constant only (by the input buffer or a fresh one), and used for nothing
      // else.
      const bool buffer = made == Origin::FRESH || made == Origin::CONSTANT ||
                          (fn.is_input(root) && root != alias) || fn.is_input(root);
      size_t constant_writes = 0;
      for (const Write& w : flow.writes()) constant_writes += w.name == root && w.constant ? 1 : 0;
      constant = (made == Origin::CONSTANT && uses == 0 && !flow.written(root, true)) ||
                 (buffer && flow.only_constant_writes(root) && uses == constant_writes);
    }
    all_fresh = all_fresh && fresh;
    all_constant = all_constant && constant;
  }
  const uint32_t first = py_.statements()[flow.returns().front()->statement].begin;
  if (all_fresh) {
    add(RuleId::UNWRITTEN_OUTPUT, first);
  } else if (all_constant) {
    add(RuleId::CONSTANT_OUTPUT, first);
  }
}

// output-ignores-inputs: no input's value is read anywhere in the function.
void PythonRules::ignored_inputs(const EntryFunction& fn, const EntryFlow& flow) {
  if (flow.returns().empty() || out_.has(RuleId::UNWRITTEN_OUTPUT) ||
      out_.has(RuleId::CONSTANT_OUTPUT) || out_.has(RuleId::RETURN_INPUT)) {
    return;
  }
  const auto& sts = py_.statements();
  for (uint32_t k = fn.first(); k < fn.last(); ++k) {
    if (!py_.is_name(k) || (k > 0 && py_.op(k - 1, "."))) continue;
    if (!fn.is_input(py_.name(k))) continue;
    const uint32_t st = py_.statement_of(k);
    if (fn.unpack_statements_.count(st) > 0) continue;
    if (k == sts[st].begin && py_.op(k + 1, "=")) continue;  // rebound
    // Metadata: x.shape, x.size(), len(x), torch.empty_like(x), x.new_empty(...)
    if (py_.op(k + 1, ".") && py_.is_name(k + 2)) {
      const std::string_view attr = py_.name(k + 2);
      if (one_of(attr, kMetadata) || starts_with(attr, "new_")) continue;
    }
    if (k >= 2 && py_.op(k - 1, "(") && py_.is_name(k - 2) &&
        one_of(py_.name(k - 2), kMetadataCalls)) {
      continue;
    }
    return;  // read
  }
  add(RuleId::OUTPUT_IGNORES_INPUTS, sts[flow.returns().front()->statement].begin);
}

// The slices of the inputs, one per sliced dimension.
std::vector<InputSlice> PythonRules::input_slices(const EntryFunction& fn) const {
  const auto text_of = [&](uint32_t b, uint32_t e) {
    std::string s;
    for (uint32_t k = b; k < e; ++k) {
      if (!s.empty()) s += ' ';
      s += py_.txt(k);
    }
    return s;
  };
  std::vector<InputSlice> slices;
  for (uint32_t k = fn.first(); k < fn.last(); ++k) {
    if (!py_.is_name(k) || !py_.op(k + 1, "[") || (k > 0 && py_.op(k - 1, "."))) continue;
    const std::string_view root = fn.root(py_.name(k));
    if (!fn.is_input(root)) continue;
    const uint32_t open = k + 1;
    const uint32_t close = py_.closing(open);
    const uint16_t depth = py_.tokens()[open].depth + 1;
    size_t dim = 0;
    uint32_t b = open + 1;
    for (uint32_t j = open + 1; j <= close; ++j) {
      if (j != close && !(py_.op(j, ",") && py_.tokens()[j].depth == depth)) continue;
      // One dimension [b, j): parts split by ':'.
      std::vector<std::pair<uint32_t, uint32_t>> parts;
      uint32_t pb = b;
      for (uint32_t q = b; q <= j; ++q) {
        if (q == j || (py_.op(q, ":") && py_.tokens()[q].depth == depth)) {
          parts.emplace_back(pb, q);
          pb = q + 1;
        }
      }
      if (parts.size() >= 2) {
        InputSlice s;
        s.root = root;
        s.open = open;
        s.dim = dim;
        s.start = text_of(parts[0].first, parts[0].second);
        s.stop = text_of(parts[1].first, parts[1].second);
        s.stop_range = parts[1];
        if (parts.size() >= 3) {
          s.step = text_of(parts[2].first, parts[2].second);
          s.step_range = parts[2];
        }
        s.statement = py_.statement_of(k);
        slices.push_back(std::move(s));
      }
      ++dim;
      b = j + 1;
    }
  }
  return slices;
}

// A bound that truncates input `root`: a literal of 2 or more, or an expression that divides
// the input's own size (its numel, shape, len, or a name bound to one) by a literal, followed
// through the names it uses; a loop variable in it makes it a chunk of a loop.
bool PythonRules::bound_truncates(const EntryFunction& fn,
                                  const std::unordered_set<std::string_view>& loop_names,
                                  std::pair<uint32_t, uint32_t> bound,
                                  std::string_view root) const {
  const auto [b, e] = bound;
  if (e == b + 1 && py_.is_kind(b, TokenKind::NUMBER)) {
    const std::string_view t = py_.txt(b);
    return t != "0" && t != "1";
  }
  bool divides = false;
  bool own_size = false;
  std::vector<std::pair<uint32_t, uint32_t>> todo = {{b, e}};
  std::unordered_set<std::string_view> seen;
  for (size_t step = 0; step < todo.size() && step < 16; ++step) {
    const auto [tb, te] = todo[step];
    for (uint32_t k = tb; k < te; ++k) {
      if (py_.op(k, "//") || py_.op(k, "/")) divides = true;
      if (!py_.is_name(k) || (k > 0 && py_.op(k - 1, "."))) continue;
      const std::string_view n = py_.name(k);
      if (loop_names.count(n) > 0) return false;
      if (fn.root(n) == root) own_size = true;
      if (!seen.insert(n).second) continue;
      const auto it = fn.locals_.find(n);
      if (it == fn.locals_.end()) continue;
      for (const source::Binding* bd : it->second) {
        if (bd->kind != source::Binding::Kind::ASSIGN) continue;
        const auto range = py_.value_tokens(*bd);
        todo.push_back(range.first != range.second ? range
                                                   : std::pair(bd->value_begin, bd->value_end));
      }
    }
  }
  return divides && own_size;
}

// Whether the statement of slice `s` multiplies or divides outside the slice's brackets, or one
// after it in scope `sc` that reads the name the slice is bound to does.
bool PythonRules::rescaled(const InputSlice& s, const source::Scope& sc) const {
  const auto& sts = py_.statements();
  bool found = false;
  const source::Statement& st = sts[s.statement];
  const uint16_t depth = py_.tokens()[s.open].depth;
  for (uint32_t k = st.begin; k < st.end; ++k) {
    if (py_.tokens()[k].depth > depth) continue;
    if (py_.op(k, "*") || py_.op(k, "/")) found = true;
  }
  for (std::string_view bound : py_.targets_of(s.statement)) {
    for (uint32_t i = s.statement + 1; i < sc.end && !found; ++i) {
      bool reads = false;
      bool scales = false;
      for (uint32_t k = sts[i].begin; k < sts[i].end; ++k) {
        reads = reads || (py_.is_name(k) && py_.name(k) == bound);
        scales = scales || py_.op(k, "*") || py_.op(k, "/");
      }
      found = reads && scales;
    }
  }
  return found;
}

// truncated-input / partial-input: slices of an input with no slice taking the rest.
void PythonRules::sliced_inputs(const EntryFunction& fn, const EntryFlow& flow, uint32_t scope) {
  const std::vector<InputSlice> slices = input_slices(fn);
  std::unordered_set<std::string_view> loop_names;
  for (const source::Binding& b : py_.bindings()) {
    if (b.scope == scope && b.kind == source::Binding::Kind::FOR) loop_names.insert(b.name);
  }
  for (const InputSlice& s : slices) {
    // A part of the output written or read is the kernel's own business.
    if (flow.is_output(s.root)) continue;
    const bool stop =
        !s.stop.empty() && s.start.empty() && bound_truncates(fn, loop_names, s.stop_range, s.root);
    const bool stride =
        !s.step.empty() && s.step != "1" && bound_truncates(fn, loop_names, s.step_range, s.root);
    if (!stop && !stride) continue;
    // Another slice of the same input and dimension that takes the rest.
    bool complemented = false;
    for (const InputSlice& o : slices) {
      if (&o == &s || o.root != s.root || o.dim != s.dim) continue;
      if (stop && o.start == s.stop) complemented = true;
      if (stride && o.step == s.step && o.start != s.start) complemented = true;
    }
    if (complemented) continue;
    add(rescaled(s, py_.scopes()[scope]) ? RuleId::PARTIAL_INPUT : RuleId::TRUNCATED_INPUT,
        s.open - 1);
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

// The tokens the reference comparison reads first, then again if they are the reference's start:
// most codes differ from the reference in the first few.
constexpr size_t kReferencePrefixTokens[] = {8, 256};

// reference-copy of Python `code` (lexed a few tokens at a time: most differ at once).
bool copies_reference(std::string_view code, const std::vector<Token>* all,
                      const std::string& reference) {
  if (all != nullptr) return normalises_to(code, *all, reference, true).value_or(false);
  for (size_t limit : kReferencePrefixTokens) {
    const std::vector<Token> first =
        source::tokenize_python(code, {}, limit, source::Comments::DROP);
    const std::optional<bool> copy = normalises_to(code, first, reference, first.size() < limit);
    if (copy) return *copy;
  }
  return normalises_to(code, source::tokenize_python(code, source::Comments::DROP), reference, true)
      .value_or(false);
}

void audit_python_model(const CodeModel& model, const CodeContext& context, Findings& out,
                        FileFacts& facts);

// The findings of a string the code executes, at the line of the call that executes it.
void audit_executed(const CodeModel& model, const CodeContext& context, Findings& out) {
  for (const source::ExecutedCode& e : model.executed()) {
    Findings inner;
    FileFacts inner_facts;
    CodeContext c = context;
    c.reference_normalised = nullptr;
    if (e.model->cpp_file()) {
      for (const CppSource& s : e.model->cpp_sources()) CppRules(s, c, inner, inner_facts).run();
    } else {
      audit_python_model(*e.model, c, inner, inner_facts);
    }
    file_rules(inner_facts, inner);
    const uint32_t line = model.python().tokens()[e.call].line;
    const std::string_view text = model.python().line_text(e.call);
    for (const Finding& f : inner.take()) {
      if (f.rule == RuleId::DYNAMIC_EXEC) continue;
      out.add(f.rule, line, text);
    }
  }
}

void audit_python_model(const CodeModel& model, const CodeContext& context, Findings& out,
                        FileFacts& facts) {
  if (model.coding_cookie()) {
    out.add(RuleId::CODING_COOKIE, 1, "coding: " + *model.coding_cookie());
  }
  for (const CppSource& s : model.cpp_sources()) CppRules(s, context, out, facts).run();
  PythonRules(model, context, out, facts).run();
  audit_executed(model, context, out);
}

}  // namespace

std::vector<Finding> audit_model(const CodeModel& model, const CodeContext& context) {
  Findings out;
  FileFacts facts;
  if (model.cpp_file()) {
    for (const CppSource& s : model.cpp_sources()) CppRules(s, context, out, facts).run();
  } else {
    audit_python_model(model, context, out, facts);
  }
  file_rules(facts, out);
  std::vector<Finding> findings = out.take();
  if (context.reference_normalised != nullptr && !context.reference_normalised->empty()) {
    bool copy = false;
    if (model.cpp_file()) {
      copy = normalises_to(model.text(), model.cpp_sources().front().tokens,
                           *context.reference_normalised, true)
                 .value_or(false);
    } else {
      copy =
          normalises_to(model.text(), model.python().tokens(), *context.reference_normalised, true)
              .value_or(false);
    }
    if (copy) findings.push_back({RuleId::REFERENCE_COPY, 0, "the reference implementation"});
  }
  return findings;
}

std::vector<Finding> audit_code_in_full(std::string_view code, const CodeContext& context) {
  const CodeModel model(code, context.cpp_file);
  return audit_model(model, context);
}

std::vector<Finding> audit_code(std::string_view code, const CodeContext& context) {
  if (context.cpp_file) return audit_code_in_full(code, context);
  const Screen screen = screen_python(code, context);
  if (screen.full) return audit_code_in_full(code, context);
  // The screen found nothing a rule reads but the C++ the code embeds by its text and the entry
  // function's data flow (and the reference comparison): only those are read.
  Findings out;
  FileFacts facts;
  for (const Screen::Cpp& cpp : screen.cpp) {
    if (cpp.types_only) {
      audit_cpp_types(code, cpp.string, context, out);
      continue;
    }
    CppSource s;
    s.text = code;
    source::tokenize_cpp(source::token_body(code, cpp.string), cpp.string.line,
                         source::token_body_begin(code, cpp.string), s.tokens,
                         source::Comments::DROP);
    CppRules(s, context, out, facts).run();
  }
  // A stream or a graph made in the C++ needs the Python's synchronisation and copies.
  if (facts.stream_line != 0 || facts.graph_line != 0) return audit_code_in_full(code, context);
  if (screen.custom_kernel) {
    // The model of the code from the line of `def custom_kernel` on: the function's rules read
    // nothing outside it.
    const CodeModel tail(code, false, 0, *screen.custom_kernel);
    PythonRules(tail, context, out, facts).run_entry();
  }
  std::vector<Finding> findings = out.take();
  if (context.reference_normalised != nullptr && !context.reference_normalised->empty() &&
      copies_reference(code, nullptr, *context.reference_normalised)) {
    findings.push_back({RuleId::REFERENCE_COPY, 0, "the reference implementation"});
  }
  return findings;
}

bool may_cast_down_and_back(const source::PythonModel& py) {
  const auto scope_of = [&py](uint32_t k) { return py.statements()[py.statement_of(k)].scope; };
  if (py.statements().empty()) return false;
  // The casts' '(' and scopes, in token order (precision() reads these calls).
  std::vector<std::pair<uint32_t, uint32_t>> casts;
  for (uint32_t k = 2; k < py.size(); ++k) {
    if (!py.op(k, "(") || !py.op(k - 2, ".") || !py.is_name(k - 1)) continue;
    const std::string_view m = py.name(k - 1);
    if (m == "to" || m == "type" || m == "half" || m == "bfloat16") {
      casts.emplace_back(k, scope_of(k));
    }
  }
  if (casts.empty()) return false;
  for (uint32_t d = 2; d < py.size(); ++d) {
    if (!py.is_name(d) || py.name(d) != "dtype" || !py.op(d - 1, ".")) continue;
    if (py.op(d + 1, ".") || py.op(d + 1, "(") || py.op(d + 1, "[")) continue;
    // The bracket the argument is in: the cast back's '(' (a cast down ends before it).
    const uint32_t depth = py.tokens()[d].depth;
    if (depth == 0) continue;
    uint32_t back = d;
    while (back > 0 && !(py.op(back - 1, "(") && py.tokens()[back - 1].depth + 1U == depth)) --back;
    if (back == 0) continue;
    --back;
    const uint32_t scope = scope_of(d);
    for (const auto& [open, cast_scope] : casts) {
      if (open >= back) break;
      if (cast_scope == scope) return true;
    }
  }
  return false;
}

std::optional<int> narrowest_float_bits(std::string_view code, bool cpp) {
  int best = 0;
  const auto consider = [&](int bits) {
    if (bits > 0 && (best == 0 || bits < best)) best = bits;
  };
  const CodeModel model(code, cpp);
  if (!cpp) {
    const PythonModel& py = model.python();
    for (uint32_t i = 2; i < py.size(); ++i) {
      if (!py.is_name(i)) continue;
      const std::string_view w = py.name(i);
      const bool dotted = py.op(i - 1, ".");
      if (dotted && py.name(i - 2) == "torch") consider(float_bits(w, false));
      if (dotted && (w == "half" || w == "bfloat16") && py.op(i + 1, "(")) consider(16);
    }
  }
  for (const CppSource& s : model.cpp_sources()) {
    for (const Token& t : s.tokens) {
      if (t.kind == TokenKind::NAME) consider(float_bits(source::token_text(s.text, t), true));
    }
  }
  if (best == 0) return std::nullopt;
  return best;
}

std::string normalised_code(std::string_view code, bool cpp) {
  const std::vector<Token> tokens = cpp ? source::tokenize_cpp(code, 1, 0, source::Comments::DROP)
                                        : source::tokenize_python(code, source::Comments::DROP);
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
