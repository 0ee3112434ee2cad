// The audit's rules (docs/audit.md): each has an id, a tier and a family, and one line of doc.
//
//   hard       the code or the score cannot be honest: the row is `cheat`
//   support    a sign of cheating that honest code shows too, now and then: `suspicious`
//   telemetry  recorded for the reader (a timer for logging, a CUDA graph, a copy of the
//              reference), never a verdict on its own
//
// A row's verdict: any hard rule makes it `cheat`; a score rule (scores are support: a score never
// makes a cheat alone) together with a support rule of the code makes it `cheat` too (the code's
// sign, corroborated by a score no honest kernel reaches); else any support rule `suspicious`;
// else `clean`.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kbdata::audit {

enum class Tier : uint8_t { HARD, SUPPORT, TELEMETRY };
enum class Verdict : uint8_t { CLEAN, SUSPICIOUS, CHEAT };

enum class RuleId : uint8_t {
  TIMER_PATCH,
  TIMER_SUBCLASS,
  HARNESS_PATCH,
  HARNESS_ACCESS,
  RESULT_PIPE,
  FAKE_BENCHMARK_LINE,
  CALLER_FRAME,
  ARGV_CHECK,
  ENV_MODE_CHECK,
  CALL_COUNTER,
  IDENTITY_KEY,
  CACHED_OUTPUT_REPLAY,
  WARMUP_BRANCH,
  RETURN_INPUT,
  INPUT_OVERWRITE,
  INPUT_WRITE,
  TRUNCATED_INPUT,
  PARTIAL_INPUT,
  CONSTANT_OUTPUT,
  UNWRITTEN_OUTPUT,
  OUTPUT_IGNORES_INPUTS,
  RNG_SEED,
  RNG_STATE,
  UNSYNCED_STREAM,
  PRECISION_DOWNGRADE,
  NARROW_CPP_TYPE,
  DYNAMIC_EXEC,
  OBFUSCATED_EXEC,
  RUNTIME_INSTALL,
  NETWORK_ACCESS,
  RUNTIME_CODE_LOAD,
  NATIVE_PATCH,
  PROCESS_MEMORY,
  FD_REDIRECT,
  CODING_COOKIE,
  GRAPH_STALE_INPUTS,
  CUDA_GRAPH,
  TIMER_CALL,
  REFERENCE_COPY,
  STATUS_HACKED,
  BELOW_PHYSICAL_FLOOR,
  RECORD_JUMP,
};
inline constexpr size_t kRuleCount = static_cast<size_t>(RuleId::RECORD_JUMP) + 1;

struct Rule {
  RuleId id;
  std::string_view name;  // the id shown in outputs, e.g. "timer-patch"
  Tier tier;
  std::string_view family;  // the family of cheats it belongs to (docs/audit.md)
  std::string_view doc;     // one line
};

// Every rule, in RuleId order.
[[nodiscard]] std::span<const Rule> rules();
[[nodiscard]] const Rule& rule(RuleId id);
// The rule named `name`, or nullopt.
[[nodiscard]] std::optional<RuleId> find_rule(std::string_view name);

[[nodiscard]] const char* to_string(Tier tier);
[[nodiscard]] const char* to_string(Verdict verdict);
// "clean", "suspicious" or "cheat"; nullopt for another word.
[[nodiscard]] std::optional<Verdict> parse_verdict(std::string_view text);
// The verdicts' names, in order (for "did you mean").
[[nodiscard]] std::span<const std::string> verdict_names();

// One rule that fired, where: the 1-based line of the code (0 for a score rule) and the text it
// matched (for a score rule, the figures it compared).
struct Finding {
  RuleId rule;
  uint32_t line = 0;
  std::string text;
  friend bool operator==(const Finding&, const Finding&) = default;
};

// Whether a rule reads the scores (its family is the scores'), not the code.
[[nodiscard]] bool is_score_rule(RuleId id);

// The verdict of a set of findings (above).
[[nodiscard]] Verdict verdict_of(const std::vector<Finding>& findings);

}  // namespace kbdata::audit
