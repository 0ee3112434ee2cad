// The extension of an extracted file follows the techniques' one decision of what a code is
// (docs/analyses.md, "extract"): C++ files by the rule the classifier reads them by, HIP by its
// tokens (never a word in a comment), everything else Python.
#include "query/extract.h"

#include <gtest/gtest.h>

#include <string>

namespace kbdata::query {
namespace {

std::string extension(std::string_view code, std::string_view file_name) {
  return std::string(code_file_extension(techniques::classify(code, file_name), code, file_name));
}

TEST(ExtractExtension, ACppFileIsCudaOrHip) {
  EXPECT_EQ(extension("__global__ void k() {}", "submission.cu"), ".cu");
  EXPECT_EQ(extension("int main() {}", "k.cpp"), ".cu");
  EXPECT_EQ(extension("#include <hip/hip_runtime.h>\n__global__ void k() {}\n", "k.cpp"), ".hip");
  EXPECT_EQ(extension("#include <hip/hip_runtime.h>\n__global__ void k() {}\n", "k.hip"), ".hip");
  // Without a file name, by its first line.
  EXPECT_EQ(extension("#include <cuda_runtime.h>\n__global__ void k() {}\n", ""), ".cu");
}

TEST(ExtractExtension, HipIsReadFromTokensNotComments) {
  EXPECT_EQ(extension("// was hipMalloc(...) once\n__global__ void k() {}\n", "k.cpp"), ".cu");
  EXPECT_EQ(extension("/* #include <hip/hip_runtime.h> */\nvoid f() {}\n", "k.cc"), ".cu");
}

TEST(ExtractExtension, EverythingElseIsPython) {
  EXPECT_EQ(extension("import triton\n", "submission.py"), ".py");
  EXPECT_EQ(extension("from torch.utils.cpp_extension import load_inline\n"
                      "src = '#include <hip/hip_runtime.h>\\n__global__ void k() {}'\n"
                      "m = load_inline(name='k', cpp_sources='', cuda_sources=src)\n",
                      "submission.py"),
            ".py");
  EXPECT_EQ(extension("def custom_kernel(data):\n    return data\n", ""), ".py");
  EXPECT_EQ(extension("hello", ""), ".py");
}

}  // namespace
}  // namespace kbdata::query
