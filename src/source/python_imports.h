// Python's import statements as name bindings, for the rules that resolve dotted names through
// them (the audit, the techniques): after `import triton.language as tl`, `tl.dot` is
// `triton.language.dot`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "source/token_view.h"
#include "source/tokens.h"

namespace kbdata::source {

// When tokens[k] (`tokens` holds no comments; tokens[k] starts a logical line or follows a `;`)
// starts an import statement of `text`, adds the names it binds to `aliases` and returns the
// modules it imports; else returns nothing and adds nothing.
//
//   import A.B           binds A to "A"               imports "A.B"
//   import A.B as C      binds C to "A.B"             imports "A.B"
//   from A.B import C    binds C to "A.B.C"           imports "A.B"
//   from A import (B as C, D)
//
// A module path is resolved through the aliases as they stand (each statement in the order of
// the text sees the bindings before it).
std::vector<std::string> add_import_bindings(std::string_view text,
                                             const std::vector<const Token*>& tokens, size_t k,
                                             ImportAliases& aliases);

}  // namespace kbdata::source
