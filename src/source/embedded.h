// C++ sources (CUDA, HIP) embedded in Python strings: what torch.utils.cpp_extension.load_inline
// (cpp_sources=, cuda_sources=), torch.cuda._compile_kernel / compile_kernel (the first argument,
// or kernel_source=), cupy's RawKernel / RawModule (code=) and pycuda's SourceModule compile at
// run time, found through the Python tokens: a string given as such an argument directly, or
// through a name bound to strings (`cuda_src = """..."""`, joined with + or by adjacency, or
// extended with +=), or in a list of them. A string literal that reads as C++ on its own (it holds
// `__global__`, `__device__`, `#include` or `extern "C"`) is taken as well, wherever it is passed.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "source/tokens.h"

namespace kbdata::source {

struct EmbeddedSource {
  uint32_t token = 0;  // index of the STRING in the Python tokens
  // How it was found: passed to a compiling call (directly or through a name), or by its text.
  bool passed_to_compiler = false;
};

// Whether a submission is a C++ file: its file name ends in .cu, .cuh, .cpp, .cc, .hip or .h, or,
// without a name, its text starts with #include or #pragma.
[[nodiscard]] bool is_cpp_source(std::string_view code, std::string_view file_name);

// Whether a string's body reads as C++ on its own: it holds __global__, __device__, #include or
// extern "C".
[[nodiscard]] bool reads_as_cpp(std::string_view body);

// Whether Python `text` may embed a C++ source: it holds the name of a compiling call or a text
// that makes a string read as C++ (one pass over the bytes). When not, embedded_cpp_sources finds
// none, and need not be asked.
[[nodiscard]] bool may_embed_cpp(std::string_view text);

// The embedded C++ sources of Python `text` (its tokens `tokens`), in token order, each once.
[[nodiscard]] std::vector<EmbeddedSource> embedded_cpp_sources(std::string_view text,
                                                               const std::vector<Token>& tokens);

// The C++ tokens of an embedded source: its string body tokenised, with lines and offsets in the
// Python text.
[[nodiscard]] std::vector<Token> tokenize_embedded(std::string_view text, const Token& string);

}  // namespace kbdata::source
