#include "analysis/code_language.h"

#include <array>
#include <cctype>
#include <string>

namespace kbdata::analysis {
namespace {

constexpr CodeLanguage kCuda{"cuda", ".cu"};
constexpr CodeLanguage kHip{"hip", ".hip"};
constexpr CodeLanguage kCpp{"cpp", ".cpp"};
constexpr CodeLanguage kTriton{"triton", ".py"};
constexpr CodeLanguage kCuteDsl{"cute_dsl", ".py"};
constexpr CodeLanguage kHelion{"helion", ".py"};
constexpr CodeLanguage kHipInline{"hip_inline", ".py"};
constexpr CodeLanguage kCudaInline{"cuda_inline", ".py"};
constexpr CodeLanguage kPytorch{"pytorch", ".py"};
constexpr CodeLanguage kPython{"python", ".py"};
constexpr CodeLanguage kText{"text", ".txt"};

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

// The file name's extension, lower-cased, with the dot ("" when none).
std::string extension_of(std::string_view file_name) {
  const size_t slash = file_name.find_last_of("/\\");
  if (slash != std::string_view::npos) file_name.remove_prefix(slash + 1);
  const size_t dot = file_name.rfind('.');
  if (dot == std::string_view::npos || dot == 0) return "";
  std::string ext(file_name.substr(dot));
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

// A line of `code` starts with `word` (after optional spaces).
bool line_starts_with(std::string_view code, std::string_view word) {
  size_t pos = 0;
  while (pos < code.size()) {
    size_t start = code.find_first_not_of(" \t", pos);
    if (start == std::string_view::npos) return false;
    if (code.compare(start, word.size(), word) == 0) return true;
    const size_t end = code.find('\n', start);
    if (end == std::string_view::npos) return false;
    pos = end + 1;
  }
  return false;
}

bool has_hip_markers(std::string_view code) {
  constexpr std::array<std::string_view, 6> markers = {"#include <hip/",     "#include \"hip/",
                                                       "hipLaunchKernelGGL", "hipMalloc",
                                                       "hipStream_t",        "__HIP_PLATFORM"};
  for (std::string_view m : markers) {
    if (contains(code, m)) return true;
  }
  return false;
}

bool has_cuda_markers(std::string_view code) {
  return contains(code, "__global__") || contains(code, "<<<") ||
         contains(code, "#include <cuda") || contains(code, "#include \"cuda");
}

bool imports(std::string_view code, std::string_view module) {
  return line_starts_with(code, "import " + std::string(module)) ||
         line_starts_with(code, "from " + std::string(module));
}

CodeLanguage c_family(std::string_view code) {
  if (has_hip_markers(code)) return kHip;
  if (has_cuda_markers(code)) return kCuda;
  return kCpp;
}

}  // namespace

CodeLanguage detect_language(std::string_view code, std::string_view file_name) {
  const std::string ext = extension_of(file_name);
  if (ext == ".cu" || ext == ".cuh") return kCuda;
  if (ext == ".hip") return kHip;
  if (ext == ".cpp" || ext == ".cc" || ext == ".cxx" || ext == ".c" || ext == ".h" ||
      ext == ".hpp") {
    return c_family(code);
  }
  const bool python = ext == ".py" || line_starts_with(code, "import ") ||
                      line_starts_with(code, "from ") || line_starts_with(code, "def ");
  if (!python) {
    if (has_hip_markers(code) || has_cuda_markers(code) || line_starts_with(code, "#include")) {
      return c_family(code);
    }
    return kText;
  }
  if (imports(code, "triton")) return kTriton;
  if (imports(code, "cutlass")) return kCuteDsl;
  if (imports(code, "helion")) return kHelion;
  if (contains(code, "load_inline")) return has_hip_markers(code) ? kHipInline : kCudaInline;
  if (imports(code, "torch")) return kPytorch;
  return kPython;
}

}  // namespace kbdata::analysis
