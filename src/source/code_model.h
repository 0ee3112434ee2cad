// One submission's code as the rules read it, built once: what language it is, the text as its
// coding cookie says to read it, the Python model (source/python_model.h), the C++ sources it
// holds or embeds, tokenised, and the strings it executes, each a code model of its own. Every
// rule of the audit (audit/code_rules.h) and of the techniques (techniques/techniques.h) queries
// this model; nothing re-tokenises the code.
//
//   C++ file      a submission named .cu, .cpp, ... (or starting with #include): one C++ source,
//                 the whole text
//   Python        everything else: the Python model, and as C++ sources every string literal
//                 that reads as C++ (__global__, #include, ...; never a docstring), and every
//                 string a compiler is given (load_inline, compile_kernel, cupy's RawKernel,
//                 pycuda's SourceModule) or that is written to a file while it reads as C++,
//                 folded from whatever expression makes it ("".join, .replace, + ...)
//
// Memory: 16 bytes per token of the text and of every C++ source, and a few words per statement,
// binding and fact: a few bytes per byte of code.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "source/python_model.h"
#include "source/tokens.h"

namespace kbdata::source {

class CodeModel;

// A C++ source the code is or holds.
struct CppSource {
  std::string_view text;      // what the tokens index (a literal's: the Python text itself)
  std::vector<Token> tokens;  // comments dropped
  // The Python token it comes from: the literal, or the first token of the call given it.
  uint32_t python_token = kNoIndex;
  bool passed_to_compiler = false;  // given to a compiling call (or written out to a file)
  bool folded = false;              // its text is a value the model folded, not a literal's
};

// A string the code executes (exec, eval, or compile and then either of them).
struct ExecutedCode {
  uint32_t call = 0;  // the Python token of the call
  std::unique_ptr<CodeModel> model;
};

class CodeModel {
 public:
  // The model of `code` (which must outlive it), a C++ file when `cpp_file` (is_cpp_source tells
  // from its name), else Python. `depth`: how many executed strings deep this code is.
  // `start`: the Python model reads the text from there (a logical line's start at depth 0): the
  // audit's screen asks for the lines from `def custom_kernel` on.
  CodeModel(std::string_view code, bool cpp_file, int depth = 0, PythonLexStart start = {});
  ~CodeModel();
  CodeModel(const CodeModel&) = delete;
  CodeModel& operator=(const CodeModel&) = delete;

  [[nodiscard]] bool cpp_file() const { return cpp_file_; }
  // The code as read: decoded from the encoding its coding cookie names, when kbdata can.
  [[nodiscard]] std::string_view text() const { return text_; }
  // The encoding a coding cookie names when it is not UTF-8 (or ASCII), else nullopt.
  [[nodiscard]] const std::optional<std::string>& coding_cookie() const { return cookie_; }
  // Whether text() was decoded from that encoding.
  [[nodiscard]] bool decoded() const { return decoded_.has_value(); }

  // The Python model (a C++ file has an empty one).
  [[nodiscard]] const PythonModel& python() const;
  // The C++ sources, in the order of the Python tokens they come from.
  [[nodiscard]] const std::vector<CppSource>& cpp_sources() const;
  // The strings executed (the Python facts are worked out for them).
  [[nodiscard]] const std::vector<ExecutedCode>& executed() const;
  // Whether Python STRING token k is a statement of its own (a docstring): prose, never code.
  [[nodiscard]] bool statement_string(uint32_t k) const;

 private:
  void find_cpp_sources() const;

  std::string_view text_;
  std::optional<std::string> decoded_;  // the decoded text text_ views, when decoded
  std::optional<std::string> cookie_;
  bool cpp_file_ = false;
  int depth_ = 0;
  PythonLexStart start_;
  mutable std::unique_ptr<PythonModel> python_;
  mutable std::unique_ptr<std::vector<CppSource>> cpp_;
  mutable std::unique_ptr<std::vector<ExecutedCode>> executed_;
  mutable std::vector<std::unique_ptr<std::string>> folded_;  // folded sources' texts
};

}  // namespace kbdata::source
