// The language of a submission's code, for file extensions (kbdata extract, docs/analyses.md).
//
// Decided from the file name's extension when it names a C-family source, else from the text:
//
//   language      extension  when
//   cuda          .cu        file name .cu/.cuh; or C-family text with CUDA markers (__global__,
//                            <<<...>>>, #include <cuda...>)
//   hip           .hip       file name .hip; or C-family text including <hip/...> or calling hip*
//                            runtime functions (hipLaunchKernelGGL, hipMalloc, ...)
//   cpp           .cpp       file name .cpp/.cc/.cxx/.c/.h/.hpp without GPU markers; or C-family
//                            text without them
//   triton        .py        Python importing triton
//   cute_dsl      .py        Python importing cutlass (CuTe DSL)
//   helion        .py        Python importing helion
//   hip_inline    .py        Python with load_inline and HIP markers
//   cuda_inline   .py        Python with load_inline (CUDA C++ in a string)
//   pytorch       .py        other Python importing torch
//   python        .py        other Python (file name .py, or Python-looking text)
//   text          .txt       anything else
//
// Python is recognised by a .py file name or, without one, by a line starting with "import ",
// "from " or "def ". The Python checks apply in the order above (a Triton kernel that also uses
// load_inline is triton).
#pragma once

#include <string_view>

namespace kbdata::analysis {

struct CodeLanguage {
  std::string_view name;       // as in the table above
  std::string_view extension;  // with the dot: ".py"
};

[[nodiscard]] CodeLanguage detect_language(std::string_view code, std::string_view file_name);

}  // namespace kbdata::analysis
