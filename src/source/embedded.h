// How a submission tells its C++ apart: a C++ file by its name (or first line), a Python string
// that reads as C++ by its text. The C++ sources a Python code embeds are the code model's
// (source/code_model.h: literals that read as C++, strings given to load_inline, compile_kernel,
// cupy's RawKernel / RawModule and pycuda's SourceModule, folded from whatever builds them).
#pragma once

#include <string_view>

namespace kbdata::source {

// Whether a submission is a C++ file: its file name ends in .cu, .cuh, .cpp, .cc, .hip, .h or
// .hpp, or, without a name, its text starts with #include or #pragma.
[[nodiscard]] bool is_cpp_source(std::string_view code, std::string_view file_name);

// Whether a string's body reads as C++ on its own: it holds __global__, __device__, #include or
// extern "C".
[[nodiscard]] bool reads_as_cpp(std::string_view body);

}  // namespace kbdata::source
