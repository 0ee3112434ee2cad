#include "audit/rules.h"

#include <array>

namespace kbdata::audit {
namespace {

constexpr std::string_view kTiming = "timer or harness patching";
constexpr std::string_view kPipe = "result pipe";
constexpr std::string_view kMode = "evaluation or timing mode";
constexpr std::string_view kCache = "cached results";
constexpr std::string_view kInput = "input as output";
constexpr std::string_view kSkip = "skipped work";
constexpr std::string_view kStream = "unsynchronised stream";
constexpr std::string_view kPrecision = "precision downgrade";
constexpr std::string_view kExec = "obfuscated code";
constexpr std::string_view kInstall = "run-time install or load";
constexpr std::string_view kGraph = "CUDA graph replay";
constexpr std::string_view kInfo = "telemetry";
constexpr std::string_view kScore = "impossible score";

constexpr std::array<Rule, kRuleCount> kRules = {{
    {RuleId::TIMER_PATCH, "timer-patch", Tier::HARD, kTiming,
     "assigns, setattr()s or mock-patches a timer: time.*, torch.cuda.Event, "
     "Event.elapsed_time/record, torch.cuda.synchronize, triton's do_bench, timeit"},
    {RuleId::TIMER_SUBCLASS, "timer-subclass", Tier::SUPPORT, kTiming,
     "defines a class derived from torch.cuda.Event"},
    {RuleId::HARNESS_PATCH, "harness-patch", Tier::HARD, kTiming,
     "assigns an attribute of the harness's modules (eval, utils, reference, task, __main__), of "
     "builtins, or of a module taken from sys.modules / importlib.import_module"},
    {RuleId::HARNESS_ACCESS, "harness-access", Tier::SUPPORT, kTiming,
     "reads sys.modules or walks the interpreter's objects (gc.get_objects, gc.get_referrers)"},
    {RuleId::RESULT_PIPE, "result-pipe", Tier::HARD, kPipe,
     "names POPCORN_FD, the harness's result pipe, in code or a string"},
    {RuleId::FAKE_BENCHMARK_LINE, "fake-benchmark-line", Tier::HARD, kPipe,
     "a string that spells a result line of the harness: benchmark.N.mean (or .best, .worst, "
     ".std, .err, .runs) or benchmark-count"},
    {RuleId::CALLER_FRAME, "caller-frame", Tier::HARD, kMode,
     "inspects the caller's frame: sys._getframe, inspect.stack / currentframe / getouterframes, "
     "traceback.extract_stack, f_back / f_locals / f_globals"},
    {RuleId::ARGV_CHECK, "argv-check", Tier::SUPPORT, kMode, "reads sys.argv"},
    {RuleId::ENV_MODE_CHECK, "env-mode-check", Tier::SUPPORT, kMode,
     "reads an environment variable whose name speaks of the mode (MODE, BENCH, LEADERBOARD, "
     "EVAL, TIMING, SECRET)"},
    {RuleId::CALL_COUNTER, "call-counter", Tier::SUPPORT, kMode,
     "counts calls: a global (or nonlocal) or a function attribute incremented, or "
     "itertools.count()"},
    {RuleId::IDENTITY_KEY, "identity-key", Tier::SUPPORT, kCache,
     "keys or compares by object identity: id(x), or data_ptr() in a subscript, a membership "
     "test or a key variable"},
    {RuleId::CACHED_OUTPUT_REPLAY, "cached-output-replay", Tier::HARD, kCache,
     "returns a value kept at module level (a global or an element of a module-level "
     "container) in a file that also counts calls or keys by identity"},
    {RuleId::RETURN_INPUT, "return-input", Tier::HARD, kInput,
     "custom_kernel returns its input, its first element, or a view of it"},
    {RuleId::INPUT_OVERWRITE, "input-overwrite", Tier::HARD, kInput,
     "custom_kernel fills an input in place (zero_, fill_, normal_, uniform_, random_); the last "
     "element of the input tuple, the output buffer, is exempt"},
    {RuleId::TRUNCATED_INPUT, "truncated-input", Tier::SUPPORT, kSkip,
     "custom_kernel slices an input with a literal bound, a stride, or a bound divided by a "
     "literal"},
    {RuleId::RNG_SEED, "rng-seed", Tier::SUPPORT, kSkip,
     "seeds a random number generator (torch.manual_seed, random.seed, numpy.random.seed, ...)"},
    {RuleId::RNG_STATE, "rng-state", Tier::HARD, kSkip,
     "reads or sets a random number generator's state (get_rng_state, set_rng_state, "
     "get_state, set_state)"},
    {RuleId::UNSYNCED_STREAM, "unsynced-stream", Tier::HARD, kStream,
     "creates a stream (torch.cuda.Stream, cudaStreamCreate, hipStreamCreate, "
     "getStreamFromPool) and never synchronises or waits on one"},
    {RuleId::PRECISION_DOWNGRADE, "precision-downgrade", Tier::SUPPORT, kPrecision,
     "casts to a floating-point type (torch.float16, .half(), torch.float8_e4m3fn, ...) narrower "
     "than the narrowest the problem's reference names"},
    {RuleId::NARROW_CPP_TYPE, "narrow-cpp-type", Tier::TELEMETRY, kPrecision,
     "C++ names a floating-point type (__half, __nv_fp8_e4m3, __hip_fp8_e4m3_fnuz, ...) narrower "
     "than the narrowest the problem's reference names: low-precision kernels are common and "
     "often allowed, so this is for the reader"},
    {RuleId::DYNAMIC_EXEC, "dynamic-exec", Tier::SUPPORT, kExec,
     "calls the builtin exec, eval or compile, or __import__ with a computed name"},
    {RuleId::OBFUSCATED_EXEC, "obfuscated-exec", Tier::HARD, kExec,
     "exec / eval / compile of decoded text (base64, zlib, lzma, bz2, marshal, codecs, "
     "bytes.fromhex, chr, decode)"},
    {RuleId::RUNTIME_INSTALL, "runtime-install", Tier::HARD, kInstall,
     "installs packages at run time (pip install, conda install, apt-get install, pip.main)"},
    {RuleId::NETWORK_ACCESS, "network-access", Tier::HARD, kInstall,
     "fetches from the network (urllib.request, requests, http.client, socket, torch.hub, "
     "wget, curl)"},
    {RuleId::RUNTIME_CODE_LOAD, "runtime-code-load", Tier::SUPPORT, kInstall,
     "loads Python code from a file at run time (importlib spec_from_file_location, "
     "exec_module, runpy)"},
    {RuleId::GRAPH_STALE_INPUTS, "graph-stale-inputs", Tier::HARD, kGraph,
     "replays a CUDA graph and never copies new inputs into its buffers (no copy_, no "
     "cudaMemcpy)"},
    {RuleId::CUDA_GRAPH, "cuda-graph", Tier::TELEMETRY, kGraph,
     "captures or replays a CUDA graph, and copies inputs"},
    {RuleId::TIMER_CALL, "timer-call", Tier::TELEMETRY, kInfo,
     "calls a timer (time.perf_counter, torch.cuda.Event, cudaEventElapsedTime, std::chrono)"},
    {RuleId::REFERENCE_COPY, "reference-copy", Tier::TELEMETRY, kInfo,
     "the code is the problem's reference implementation, comments and whitespace aside"},
    {RuleId::STATUS_HACKED, "status-hacked", Tier::HARD, kScore,
     "the platform marked the submission hacked"},
    {RuleId::BELOW_PHYSICAL_FLOOR, "below-physical-floor", Tier::HARD, kScore,
     "the score is below the runner's physical floor for the problem's benchmark shapes"},
    {RuleId::RECORD_JUMP, "record-jump", Tier::SUPPORT, kScore,
     "the score beats the leaderboard's record on its runner at that time by more than 10x"},
}};

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

Verdict verdict_of(const std::vector<Finding>& findings) {
  Verdict v = Verdict::CLEAN;
  for (const Finding& f : findings) {
    const Tier t = rule(f.rule).tier;
    if (t == Tier::HARD) return Verdict::CHEAT;
    if (t == Tier::SUPPORT) v = Verdict::SUSPICIOUS;
  }
  return v;
}

}  // namespace kbdata::audit
