// What a kernel uses (kbdata techniques, docs/techniques.md): the technology that runs its hot
// loop, every technology present, feature tags (tensor cores, TMA, fp8, ...) and size measures,
// read from the tokens of its Python and of the C++ it embeds (source/), never from substrings.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "source/code_model.h"

namespace kbdata::techniques {

// In the order of docs/techniques.md's table: `language` is the first present.
enum class Language : uint8_t {
  THUNDERKITTENS,
  CUTE_DSL,
  HELION,
  TRITON,
  HIP,
  CUDA,
  CUDA_FILE,
  LIBRARY,
  PYTORCH,
  PYTHON,
};
inline constexpr size_t kLanguages = 10;

enum class Feature : uint8_t {
  TENSOR_CORES,
  TMA,
  ASYNC_COPY,
  SHARED_MEMORY,
  MBARRIER,
  WARP_SPECIALIZATION,
  PERSISTENT,
  FP8,
  FP4,
  AUTOTUNE,
  CUDA_GRAPHS,
  STREAMS,
  SPLIT_K,
};
inline constexpr size_t kFeatures = 13;

[[nodiscard]] std::string_view to_string(Language language);
[[nodiscard]] std::string_view to_string(Feature feature);
[[nodiscard]] std::optional<Language> parse_language(std::string_view name);
[[nodiscard]] std::optional<Feature> parse_feature(std::string_view name);

struct Techniques {
  Language language = Language::PYTHON;
  uint32_t languages = 0;  // bit i: Language i is present
  uint32_t features = 0;   // bit i: Feature i
  uint32_t autotune_configs = 0;
  uint32_t lines = 0;
  uint32_t kernel_lines = 0;
  uint32_t kernels = 0;
  uint32_t shape_branches = 0;

  [[nodiscard]] bool has(Language l) const { return (languages >> static_cast<int>(l)) & 1U; }
  [[nodiscard]] bool has(Feature f) const { return (features >> static_cast<int>(f)) & 1U; }
  void add(Language l) { languages |= 1U << static_cast<int>(l); }
  void add(Feature f) { features |= 1U << static_cast<int>(f); }
};

// What `code` uses; `file_name` (may be empty) tells a C++ file from Python as the audit does
// (source::is_cpp_source).
[[nodiscard]] Techniques classify(std::string_view code, std::string_view file_name);
// The same, read from a code model built already.
[[nodiscard]] Techniques classify(const source::CodeModel& model);

// What file a code is: the one decision of a kernel's language that extract's file names and
// pairs' Markdown fences follow. A C++ file (by its file name or first line, as classify reads it:
// source::is_cpp_source) is HIP when HIP is among `t`'s languages, else CUDA (the platform compiles
// a C++ submission as CUDA); any other code is the Python the harness imports.
enum class CodeFile : uint8_t { PYTHON, CUDA, HIP };
[[nodiscard]] CodeFile code_file(const Techniques& t, std::string_view code,
                                 std::string_view file_name);
// The same for a code not classified yet: classify runs only for a C++ file.
[[nodiscard]] CodeFile code_file(std::string_view code, std::string_view file_name);
// The extension kbdata extract gives the file: ".py", ".cu", ".hip" (hipcc's).
[[nodiscard]] std::string_view file_extension(CodeFile file);
// The language word of a Markdown fence around the code: "python", "cuda", "hip".
[[nodiscard]] std::string_view fence_language(CodeFile file);

// Every word of three bytes or more a rule of classify compares with the code (names, the last
// parts of dotted names, PTX mnemonics' first parts, the texts that make a string C++, the
// statements it reads: import, from, elif), each once. Finding them is the least any
// classification by these rules must do (bench/audit_bench's BM_TechniquesVocabularyHyperscan).
[[nodiscard]] std::vector<std::string_view> vocabulary();

// `languages` and `features` as docs/techniques.md writes them: names comma-separated, in the
// tables' order.
[[nodiscard]] std::string languages_text(const Techniques& t);
[[nodiscard]] std::string features_text(const Techniques& t);

}  // namespace kbdata::techniques
