// The code rules of the audit (docs/audit.md): queries of a submission's code model
// (source/code_model.h): its Python facts, the C++ sources it is or holds, the strings it executes.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "audit/rules.h"
#include "source/code_model.h"

namespace kbdata::audit {

struct CodeContext {
  bool cpp_file = false;  // the whole text is C++ (a .cu submission), not Python
  // The width in bits of the narrowest floating-point type the problem's reference names
  // (narrowest_float_bits); nullopt when the reference is unknown: precision-downgrade then
  // fires only on operands cast down and their result cast back to an input's dtype.
  std::optional<int> reference_float_bits;
  // normalised_code of the problem's reference; when set and not empty, a code that normalises to
  // it is `reference-copy` (compared token by token as the code is read, never built).
  const std::string* reference_normalised = nullptr;
};

// The words env-mode-check looks for in an environment variable's name (BENCH_MODE, ...): the key
// that tells evaluation from timing.
inline constexpr std::array<std::string_view, 6> kEnvModeWords = {"MODE", "BENCH",  "LEADERBOARD",
                                                                  "EVAL", "TIMING", "SECRET"};

// The Python names of floating-point types (torch.float16, x.half()) and their widths in bits;
// float8* and float4* are prefixes. narrowest_float_bits and precision-downgrade read them, and the
// screen looks for them.
struct FloatTypeName {
  std::string_view name;
  int bits;
  bool prefix;
};
inline constexpr std::array<FloatTypeName, 9> kPythonFloatTypes = {{{"float64", 64, false},
                                                                    {"double", 64, false},
                                                                    {"float32", 32, false},
                                                                    {"float", 32, false},
                                                                    {"float16", 16, false},
                                                                    {"half", 16, false},
                                                                    {"bfloat16", 16, false},
                                                                    {"float8", 8, true},
                                                                    {"float4", 4, true}}};

// The code rules' findings on `code`, in rule order, then line order; at most a few per rule
// (kMaxFindingsPerRule), one per line; then reference-copy, when the context has a reference.
// The screen (audit/code_screen.h) decides most Python codes without the full pass; the findings
// are audit_code_in_full's.
inline constexpr size_t kMaxFindingsPerRule = 5;
[[nodiscard]] std::vector<Finding> audit_code(std::string_view code, const CodeContext& context);

// The same findings from every rule's query of the whole code model, without the screen: the
// definition the screen is tested against.
[[nodiscard]] std::vector<Finding> audit_code_in_full(std::string_view code,
                                                      const CodeContext& context);

// The same, on a model built already.
[[nodiscard]] std::vector<Finding> audit_model(const source::CodeModel& model,
                                               const CodeContext& context);

// Whether precision-downgrade, with the reference unknown, may pair a cast down with a cast back in
// `py`: a method call `.to(`, `.type(`, `.half(` or `.bfloat16(` and, in the same scope, an
// argument `X.dtype` (not followed by `.`, `(` or `[`) of a call whose `(` comes after that one's.
// A necessary condition read from the tokens, statements and scopes alone (no expression is
// evaluated; a model of source::ModelParts::STRUCTURE is enough): the screen asks it instead of the
// full pass when a code names a type narrower than 32 bits.
[[nodiscard]] bool may_cast_down_and_back(const source::PythonModel& py);

// The width in bits of the narrowest floating-point type `code` names (torch.float32 and
// torch.float16, .half(), C++ float, __half, __nv_fp8_e4m3, ...); nullopt when it names none.
[[nodiscard]] std::optional<int> narrowest_float_bits(std::string_view code, bool cpp);

// `code` without its comments and with whitespace reduced to one space between tokens (Python
// docstrings are strings, and kept): two texts that differ only in comments and layout normalise
// to the same text.
[[nodiscard]] std::string normalised_code(std::string_view code, bool cpp);

}  // namespace kbdata::audit
