// The screen in front of the code rules (docs/audit.md, "The screen"): one scan of a Python
// submission's text, without tokenising it, that proves most codes give the Python rules nothing
// to read but the three that look inside `custom_kernel` and the comparison with the reference;
// the C++ the code embeds is audited as in the full pass. Every word and text a rule of
// code_rules.cc compares is in the screen's vocabulary; a code that holds one of them in the place
// the rule reads (a word in code, a text in a string) goes to the full pass, so the screen never
// changes a finding (tests/audit/code_screen_test.cc checks the two agree).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "audit/code_rules.h"
#include "source/substrings.h"
#include "source/tokens.h"

namespace kbdata::audit {

struct Screen {
  // The full pass must run: the code holds a word or a text some rule reads, or a form the screen
  // does not follow (a `def custom_kernel` after a `;`, a C++ type in a string that is not C++ by
  // its text).
  bool full = true;
  // Why the full pass must run (for diagnostics: bench/audit_bench counts them): "word X",
  // "attribute assignment", "string part", "name of other letters", "coding cookie", "compiling
  // call", "custom_kernel form".
  std::string reason;
  // The strings that read as C++ by their text (__global__, #include, ...), embedded sources
  // whatever they are passed to, that a C++ rule may read: STRING tokens (body, line). When
  // `types_only`, the string holds no text or name a C++ rule reads but a floating-point type
  // narrower than the reference's (narrow-cpp-type alone can fire on it).
  struct Cpp {
    source::Token string;
    bool types_only = false;
  };
  std::vector<Cpp> cpp;
  // The start of the line of the first `def custom_kernel` in code, when there is one.
  std::optional<source::PythonLexStart> custom_kernel;
};

// The parts of the C++ names of floating-point types narrower than a reference of `bits` (every
// such name holds one: __nv_fp8, half, ...), searched at once; nullptr when there are none.
[[nodiscard]] const source::Substrings* narrow_cpp_type_parts(int bits);

// Every text the screen looks for, each once: the Python words and floating-point names it checks
// names against, the texts it looks for in strings and the parts of the C++ type names. The
// cheapest any audit of these rules can be is to find these in every code (bench/audit_bench's
// BM_VocabularyHyperscan measures that with a dedicated multi-pattern matcher).
[[nodiscard]] std::vector<std::string_view> screen_vocabulary();

// The screen of Python `code` (not a C++ file) under `context`.
[[nodiscard]] Screen screen_python(std::string_view code, const CodeContext& context);

}  // namespace kbdata::audit
