#include "audit/rules.h"

#include <array>
#include <string>

namespace kbdata::audit {
namespace {

constexpr std::string_view kTiming = "timer or harness patching";
constexpr std::string_view kPipe = "result pipe";
constexpr std::string_view kMode = "evaluation or timing mode";
constexpr std::string_view kCache = "cached results";
constexpr std::string_view kInput = "inputs and outputs";
constexpr std::string_view kSkip = "skipped work";
constexpr std::string_view kStream = "unsynchronised stream";
constexpr std::string_view kPrecision = "precision downgrade";
constexpr std::string_view kExec = "obfuscated code";
constexpr std::string_view kInstall = "run-time install or load";
constexpr std::string_view kNative = "process memory";
constexpr std::string_view kGraph = "CUDA graph replay";
constexpr std::string_view kInfo = "telemetry";
constexpr std::string_view kScore = "impossible score";

constexpr std::array<Rule, kRuleCount> kRules = {{
    {RuleId::TIMER_PATCH, "timer-patch", Tier::HARD, kTiming,
     "replaces a timer (time.*, torch.cuda.Event and its elapsed_time / record, "
     "torch.cuda.synchronize, triton's do_bench, timeit): by assignment to the resolved object, "
     "setattr / vars() / __dict__ with a folded name, mock.patch or monkeypatch"},
    {RuleId::TIMER_SUBCLASS, "timer-subclass", Tier::SUPPORT, kTiming,
     "defines a class derived from torch.cuda.Event"},
    {RuleId::HARNESS_PATCH, "harness-patch", Tier::HARD, kTiming,
     "replaces an attribute of the harness's modules (eval, utils, reference, task, __main__, "
     "run_eval), of builtins, of the checks torch offers (allclose, testing.assert_close, ...), "
     "or of a module taken from sys.modules / importlib.import_module"},
    {RuleId::HARNESS_ACCESS, "harness-access", Tier::SUPPORT, kTiming,
     "reads sys.modules or walks the interpreter's objects (gc.get_objects, gc.get_referrers)"},
    {RuleId::RESULT_PIPE, "result-pipe", Tier::HARD, kPipe,
     "names POPCORN_FD, the harness's result pipe, in code or a string (folded: \"POPCORN\" "
     "\"_FD\" is the name too)"},
    {RuleId::FAKE_BENCHMARK_LINE, "fake-benchmark-line", Tier::HARD, kPipe,
     "prints or writes a string that spells a result line of the harness: benchmark.N.mean "
     "(or .best, .worst, .std, .err, .runs) or benchmark-count"},
    {RuleId::CALLER_FRAME, "caller-frame", Tier::HARD, kMode,
     "inspects the caller's frame: sys._getframe, inspect.stack / currentframe / getouterframes, "
     "traceback.extract_stack, f_back / f_locals / f_globals"},
    {RuleId::ARGV_CHECK, "argv-check", Tier::SUPPORT, kMode, "reads sys.argv"},
    {RuleId::ENV_MODE_CHECK, "env-mode-check", Tier::SUPPORT, kMode,
     "reads an environment variable whose name speaks of the mode (MODE, BENCH, LEADERBOARD, "
     "EVAL, TIMING, SECRET)"},
    {RuleId::CALL_COUNTER, "call-counter", Tier::SUPPORT, kMode,
     "counts calls: a global (or nonlocal), a function's or an instance's attribute or a "
     "module-level container's item incremented, or itertools.count()"},
    {RuleId::IDENTITY_KEY, "identity-key", Tier::SUPPORT, kCache,
     "keys or compares by object identity: id(x), or data_ptr() in a subscript, a membership "
     "test or a key variable (a CUDA graph the same function replays is not a cached output)"},
    {RuleId::CACHED_OUTPUT_REPLAY, "cached-output-replay", Tier::HARD, kCache,
     "returns a value kept at module level (a global or an element of a module-level "
     "container), with no graph replay or launch before it, in a file that also counts calls "
     "or keys by identity"},
    {RuleId::WARMUP_BRANCH, "warmup-branch", Tier::HARD, kCache,
     "returns early, without computing, on a branch that tests a call counter or compares "
     "input pointers (data_ptr(), id()): the warm-up and the timed calls are told apart"},
    {RuleId::RETURN_INPUT, "return-input", Tier::HARD, kInput,
     "custom_kernel returns an input (through any chain of names or views) that nothing "
     "writes"},
    {RuleId::INPUT_OVERWRITE, "input-overwrite", Tier::HARD, kInput,
     "custom_kernel fills an input with a constant (zero_, fill_, normal_, x[...] = 0, a C++ "
     "extension's zero_ or cudaMemset of it), so that a reference computed afterwards agrees; "
     "the output (what it returns) is exempt"},
    {RuleId::INPUT_WRITE, "input-write", Tier::SUPPORT, kInput,
     "custom_kernel writes into an input in place (copy_, an in-place operator, an item "
     "assignment, out=); the output is exempt"},
    {RuleId::TRUNCATED_INPUT, "truncated-input", Tier::SUPPORT, kSkip,
     "custom_kernel reads only part of an input: a prefix or a stride fixed by a literal or a "
     "size divided by one, with no slice taking the rest"},
    {RuleId::PARTIAL_INPUT, "partial-input", Tier::HARD, kSkip,
     "custom_kernel computes on part of an input (a truncated slice, above) and rescales the "
     "result as if it had read all of it"},
    {RuleId::CONSTANT_OUTPUT, "constant-output", Tier::HARD, kSkip,
     "custom_kernel returns a constant (zeros, ones, full, a number, or a buffer only filled "
     "with one) instead of running the operators"},
    {RuleId::UNWRITTEN_OUTPUT, "unwritten-output", Tier::HARD, kSkip,
     "custom_kernel (or its C++ extension) returns a freshly allocated tensor (empty, "
     "empty_like, torch::empty) that nothing launched or wrote between allocation and return"},
    {RuleId::OUTPUT_IGNORES_INPUTS, "output-ignores-inputs", Tier::HARD, kSkip,
     "custom_kernel never reads its inputs' values (only their shapes, types or devices): its "
     "output is an expectation, a regeneration from a seed, or anything else but the answer"},
    {RuleId::RNG_SEED, "rng-seed", Tier::SUPPORT, kSkip,
     "seeds a random number generator (torch.manual_seed, random.seed, numpy.random.seed, ...)"},
    {RuleId::RNG_STATE, "rng-state", Tier::HARD, kSkip,
     "sets (or reads, to set later) a random number generator's state (get_rng_state, "
     "set_rng_state, getstate, set_state); a state saved and restored in one function is not"},
    {RuleId::UNSYNCED_STREAM, "unsynced-stream", Tier::HARD, kStream,
     "creates a stream (torch.cuda.Stream through any alias or getattr, cudaStreamCreate, "
     "hipStreamCreate, getStreamFromPool) and never synchronises or waits on one"},
    {RuleId::PRECISION_DOWNGRADE, "precision-downgrade", Tier::SUPPORT, kPrecision,
     "casts operands to a floating-point type (torch.float16, .half(), torch.float8_e4m3fn, "
     "...) narrower than the narrowest the problem's reference names, or casts them down and "
     "the result back to an input's dtype"},
    {RuleId::NARROW_CPP_TYPE, "narrow-cpp-type", Tier::TELEMETRY, kPrecision,
     "C++ names a floating-point type (__half, __nv_fp8_e4m3, __hip_fp8_e4m3_fnuz, ...) narrower "
     "than the narrowest the problem's reference names: low-precision kernels are common and "
     "often allowed, so this is for the reader"},
    {RuleId::DYNAMIC_EXEC, "dynamic-exec", Tier::SUPPORT, kExec,
     "calls the builtin exec, eval or compile (through any alias, getattr(builtins, ...) or "
     "__builtins__[...]), or __import__ with a computed name"},
    {RuleId::OBFUSCATED_EXEC, "obfuscated-exec", Tier::HARD, kExec,
     "exec / eval / compile of decoded text (base64, zlib, lzma, bz2, marshal, codecs, "
     "bytes.fromhex, chr, decode)"},
    {RuleId::RUNTIME_INSTALL, "runtime-install", Tier::HARD, kInstall,
     "runs a package install (pip install, conda install, apt-get install) through subprocess, "
     "os.system, os.popen or pip.main"},
    {RuleId::NETWORK_ACCESS, "network-access", Tier::HARD, kInstall,
     "fetches from the network (urllib.request, requests, http.client, socket, torch.hub, "
     "imported as such; wget or curl run)"},
    {RuleId::RUNTIME_CODE_LOAD, "runtime-code-load", Tier::SUPPORT, kInstall,
     "loads Python code from a file at run time (importlib spec_from_file_location, "
     "exec_module, runpy)"},
    {RuleId::NATIVE_PATCH, "native-patch", Tier::HARD, kNative,
     "rewrites machine code or function pointers through ctypes: mprotect, memmove onto a "
     "function's address, a value stored through from_address"},
    {RuleId::PROCESS_MEMORY, "process-memory", Tier::HARD, kNative,
     "reads or writes the process's memory behind the interpreter (/proc/self/mem, scanning "
     "GPU allocations with cuMemGetAddressRange, ptrace)"},
    {RuleId::FD_REDIRECT, "fd-redirect", Tier::SUPPORT, kNative,
     "redirects a file descriptor (os.dup2, dup2): the harness's output can be rewritten"},
    {RuleId::CODING_COOKIE, "coding-cookie", Tier::SUPPORT, kExec,
     "declares an encoding other than UTF-8 (a utf-7 cookie turns a comment into code); the "
     "code is read in that encoding when kbdata knows it"},
    {RuleId::GRAPH_STALE_INPUTS, "graph-stale-inputs", Tier::HARD, kGraph,
     "replays a CUDA graph and never refreshes its inputs (no copy_, no slice assignment, no "
     "cudaMemcpy, nor a graph captured on the real inputs and keyed by their data_ptr)"},
    {RuleId::CUDA_GRAPH, "cuda-graph", Tier::TELEMETRY, kGraph,
     "captures or replays a CUDA graph, and refreshes its inputs"},
    {RuleId::TIMER_CALL, "timer-call", Tier::TELEMETRY, kInfo,
     "calls a timer (time.perf_counter, torch.cuda.Event, cudaEventElapsedTime, std::chrono)"},
    {RuleId::REFERENCE_COPY, "reference-copy", Tier::TELEMETRY, kInfo,
     "the code is the problem's reference implementation, comments and whitespace aside"},
    {RuleId::STATUS_HACKED, "status-hacked", Tier::HARD, kScore,
     "the platform marked the submission hacked"},
    {RuleId::BELOW_PHYSICAL_FLOOR, "below-physical-floor", Tier::SUPPORT, kScore,
     "the score is below the runner's physical floor for the problem's benchmark shapes (a "
     "measurement fault or a cheat: with a code rule of support tier, a cheat)"},
    {RuleId::RECORD_JUMP, "record-jump", Tier::SUPPORT, kScore,
     "the score beats the leaderboard's established record on its runner by more than 10x "
     "(with a code rule of support tier, a cheat)"},
}};

const std::array<std::string, 3> kVerdictNames = {"clean", "suspicious", "cheat"};

}  // namespace

std::span<const Rule> rules() { return kRules; }

const Rule& rule(RuleId id) { return kRules[static_cast<size_t>(id)]; }

std::optional<RuleId> find_rule(std::string_view name) {
  for (const Rule& r : kRules) {
    if (r.name == name) return r.id;
  }
  return std::nullopt;
}

const char* to_string(Tier tier) {
  switch (tier) {
    case Tier::HARD:
      return "hard";
    case Tier::SUPPORT:
      return "support";
    case Tier::TELEMETRY:
      return "telemetry";
  }
  return "?";
}

const char* to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::CLEAN:
      return "clean";
    case Verdict::SUSPICIOUS:
      return "suspicious";
    case Verdict::CHEAT:
      return "cheat";
  }
  return "?";
}

std::optional<Verdict> parse_verdict(std::string_view text) {
  if (text == "clean") return Verdict::CLEAN;
  if (text == "suspicious") return Verdict::SUSPICIOUS;
  if (text == "cheat") return Verdict::CHEAT;
  return std::nullopt;
}

std::span<const std::string> verdict_names() { return kVerdictNames; }

bool is_score_rule(RuleId id) {
  return id == RuleId::BELOW_PHYSICAL_FLOOR || id == RuleId::RECORD_JUMP;
}

Verdict verdict_of(const std::vector<Finding>& findings) {
  bool score = false;
  bool code = false;
  for (const Finding& f : findings) {
    const Tier t = rule(f.rule).tier;
    if (t == Tier::HARD) return Verdict::CHEAT;
    if (t != Tier::SUPPORT) continue;
    (is_score_rule(f.rule) ? score : code) = true;
  }
  if (score && code) return Verdict::CHEAT;
  return score || code ? Verdict::SUSPICIOUS : Verdict::CLEAN;
}

}  // namespace kbdata::audit
