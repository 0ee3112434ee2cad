// What file a code is, the techniques' one decision that extract's extensions (docs/analyses.md,
// "extract") and pairs' Markdown fences (docs/pairs.md) follow: C++ files by the rule the
// classifier reads them by, HIP by its tokens (never a word in a comment), everything else Python.
#include <gtest/gtest.h>

#include <string>

#include "techniques/techniques.h"

namespace kbdata::techniques {
namespace {

std::string extension(std::string_view code, std::string_view file_name) {
  const CodeFile file = code_file(classify(code, file_name), code, file_name);
  EXPECT_EQ(code_file(code, file_name), file) << "classified first or not, one decision";
  return std::string(file_extension(file));
}

TEST(CodeFile, ACppFileIsCudaOrHip) {
  EXPECT_EQ(extension("__global__ void k() {}", "submission.cu"), ".cu");
  EXPECT_EQ(extension("int main() {}", "k.cpp"), ".cu");
  EXPECT_EQ(extension("#include <hip/hip_runtime.h>\n__global__ void k() {}\n", "k.cpp"), ".hip");
  EXPECT_EQ(extension("#include <hip/hip_runtime.h>\n__global__ void k() {}\n", "k.hip"), ".hip");
  // Without a file name, by its first line.
  EXPECT_EQ(extension("#include <cuda_runtime.h>\n__global__ void k() {}\n", ""), ".cu");
}

TEST(CodeFile, HipIsReadFromTokensNotComments) {
  EXPECT_EQ(extension("// was hipMalloc(...) once\n__global__ void k() {}\n", "k.cpp"), ".cu");
  EXPECT_EQ(extension("/* #include <hip/hip_runtime.h> */\nvoid f() {}\n", "k.cc"), ".cu");
}

TEST(CodeFile, EverythingElseIsPython) {
  EXPECT_EQ(extension("import triton\n", "submission.py"), ".py");
  EXPECT_EQ(extension("from torch.utils.cpp_extension import load_inline\n"
                      "src = '#include <hip/hip_runtime.h>\\n__global__ void k() {}'\n"
                      "m = load_inline(name='k', cpp_sources='', cuda_sources=src)\n",
                      "submission.py"),
            ".py");
  EXPECT_EQ(extension("def custom_kernel(data):\n    return data\n", ""), ".py");
  EXPECT_EQ(extension("hello", ""), ".py");
}

TEST(CodeFile, TheFenceSaysWhatTheExtensionSays) {
  EXPECT_EQ(fence_language(code_file("__global__ void k() {}", "submission.cu")), "cuda");
  // A .cpp file the platform compiles as CUDA is fenced as such, not as plain C++.
  EXPECT_EQ(fence_language(code_file("int main() {}", "k.cpp")), "cuda");
  EXPECT_EQ(
      fence_language(code_file("#include <hip/hip_runtime.h>\n__global__ void k() {}\n", "k.cpp")),
      "hip");
  EXPECT_EQ(fence_language(code_file("import triton\n", "submission.py")), "python");
  for (CodeFile f : {CodeFile::PYTHON, CodeFile::CUDA, CodeFile::HIP}) {
    EXPECT_EQ(file_extension(f).substr(1, 2), fence_language(f).substr(0, 2));
  }
}

}  // namespace
}  // namespace kbdata::techniques
