// The technique rules of docs/techniques.md, each with a code that sets it and one that must not:
// words in comments, docstrings, ordinary strings and inside longer names never count.
#include "techniques/techniques.h"

#include <gtest/gtest.h>

#include <string>

namespace kbdata::techniques {
namespace {

Techniques py(const std::string& code) { return classify(code, "submission.py"); }
Techniques cu(const std::string& code) { return classify(code, "submission.cu"); }

// A Python host with `source` as its load_inline CUDA source.
std::string inline_cuda(const std::string& source) {
  return "import torch\nfrom torch.utils.cpp_extension import load_inline\n\nsrc = r\"\"\"\n" +
         source +
         "\n\"\"\"\n\nmod = load_inline(name='k', cpp_sources='', cuda_sources=src, "
         "functions=['run'])\n\n\ndef custom_kernel(data):\n    return mod.run(*data)\n";
}

constexpr const char* kTriton =
    "import torch\nimport triton\nimport triton.language as tl\n\n\n@triton.jit\n"
    "def k(a_ptr, b_ptr, c_ptr, BLOCK: tl.constexpr):\n"
    "    a = tl.load(a_ptr + tl.arange(0, BLOCK))\n"
    "    tl.store(c_ptr + tl.arange(0, BLOCK), a)\n";

TEST(Techniques, Languages) {
  EXPECT_EQ(py(kTriton).language, Language::TRITON);
  EXPECT_EQ(languages_text(py(kTriton)), "triton,pytorch");
  EXPECT_EQ(py(inline_cuda("__global__ void k(float* x) { x[0] = 1; }")).language, Language::CUDA);
  // No kernel defined, one launched (defined in another source): CUDA.
  EXPECT_EQ(py(inline_cuda("void run(float* x) { k<<<1, 32>>>(x); }")).language, Language::CUDA);
  // Declarations only (a cpp_sources prototype): no kernel, no CUDA.
  EXPECT_EQ(py(inline_cuda("__global__ void k(float* x);")).language, Language::PYTORCH);
  EXPECT_EQ(
      py(inline_cuda("#include <hip/hip_runtime.h>\n__global__ void k(float* x) {}")).language,
      Language::HIP);
  EXPECT_EQ(py(inline_cuda("#include \"kittens.cuh\"\nusing namespace kittens;\n"
                           "__global__ void k(float* x) {}"))
                .language,
            Language::THUNDERKITTENS);
  EXPECT_EQ(py("import cutlass\nimport cutlass.cute as cute\n\n@cute.kernel\ndef k(a):\n"
               "    pass\n")
                .language,
            Language::CUTE_DSL);
  EXPECT_EQ(py("import helion\nimport helion.language as hl\nimport torch\n\n@helion.kernel()\n"
               "def k(x):\n    return x\n")
                .language,
            Language::HELION);
  EXPECT_EQ(py("import torch\n\ndef custom_kernel(d):\n    return torch._scaled_mm(*d)\n").language,
            Language::LIBRARY);
  EXPECT_EQ(py("from aiter import gemm_a8w8\n\ndef custom_kernel(d):\n    return gemm_a8w8(*d)\n")
                .language,
            Language::LIBRARY);
  EXPECT_EQ(py("import torch\n\n@torch.compile\ndef f(x):\n    return x * 2\n").language,
            Language::PYTORCH);
  EXPECT_EQ(py("def f(x):\n    return x\n").language, Language::PYTHON);
  EXPECT_EQ(cu("__global__ void k(float* x) { x[0] = 1; }").language, Language::CUDA_FILE);
  EXPECT_EQ(cu("#include <hip/hip_runtime.h>\n__global__ void k(float* x) {}").language,
            Language::HIP);
  // Imported but not used for a kernel: Triton imported, no @triton.jit.
  EXPECT_EQ(py("import torch\nimport triton\n\ndef f(x):\n    return x\n").language,
            Language::PYTORCH);
}

TEST(Techniques, ATritonKernelThatMentionsCudaInADocstringIsTriton) {
  const std::string code = std::string(kTriton) +
                           "\n\ndef custom_kernel(data):\n"
                           "    \"\"\"Faster than the __global__ CUDA version with __shared__ "
                           "tiles, TMA and wgmma; see cudaStreamCreate.\"\"\"\n"
                           "    # mma, tma, cp.async, split_k, torch.cuda.Stream()\n"
                           "    return data\n";
  const Techniques t = py(code);
  EXPECT_EQ(t.language, Language::TRITON);
  EXPECT_EQ(features_text(t), "");
}

TEST(Techniques, TensorCores) {
  EXPECT_TRUE(py(std::string(kTriton) + "    c = tl.dot(a, a)\n").has(Feature::TENSOR_CORES));
  EXPECT_FALSE(
      py(std::string(kTriton) + "    c = my.dot(a, a)  # tl.dot\n").has(Feature::TENSOR_CORES));
  EXPECT_TRUE(py(inline_cuda("__global__ void k() { asm volatile(\"mma.sync.aligned.m16n8k16."
                             "row.col.f32.f16.f16.f32 {%0}, {%1}, {%2}, {%3};\\n\" :: ); }"))
                  .has(Feature::TENSOR_CORES));
  EXPECT_TRUE(cu("__global__ void k() { asm volatile(\"wgmma.mma_async.sync.aligned ...;\"); }")
                  .has(Feature::TENSOR_CORES));
  EXPECT_TRUE(cu("__global__ void k() { asm(\"tcgen05.mma.cta_group::1.kind::f16 [%0];\"); }")
                  .has(Feature::TENSOR_CORES));
  EXPECT_TRUE(cu("__global__ void k() { auto c = __builtin_amdgcn_mfma_f32_16x16x16f16(a, b, "
                 "c, 0, 0, 0); }")
                  .has(Feature::TENSOR_CORES));
  // A comment, a plain string and a longer name are not the instruction.
  EXPECT_FALSE(cu("// mma.sync here later\n__global__ void mma_like_k() { printf(\"mma.sync\"); "
                  "int mma_count = 0; }")
                   .has(Feature::TENSOR_CORES));
  EXPECT_TRUE(py("import cutlass\nimport cutlass.cute as cute\n\n@cute.jit\ndef f(a):\n"
                 "    op = cute.nvgpu.tcgen05.MmaF16BF16Op(cutlass.Float16)\n")
                  .has(Feature::TENSOR_CORES));
}

TEST(Techniques, TmaIsNotInSoftmax) {
  EXPECT_FALSE(py(std::string(kTriton) + "    y = tl.softmax(a)\n    tma_persistent = 1\n")
                   .has(Feature::TMA));
  EXPECT_TRUE(py(std::string(kTriton) + "    d = tl.make_tensor_descriptor(a_ptr, [1], [1], [1])\n")
                  .has(Feature::TMA));
  EXPECT_TRUE(cu("__global__ void k() { asm volatile(\"cp.async.bulk.tensor.2d.shared::cluster."
                 "global [%0], [%1, {%2, %3}], [%4];\"); }")
                  .has(Feature::TMA));
  EXPECT_TRUE(cu("CUtensorMap map; __global__ void k() {}").has(Feature::TMA));
}

TEST(Techniques, AsyncCopySharedMemoryAndBarriers) {
  const Techniques t =
      cu("__global__ void k(const float* g) {\n  __shared__ float s[128];\n"
         "  asm volatile(\"cp.async.cg.shared.global [%0], [%1], 16;\\n\" :: \"r\"(0), \"l\"(g));\n"
         "  asm volatile(\"mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\" :: \"r\"(0));\n"
         "  asm volatile(\"setmaxnreg.inc.sync.aligned.u32 240;\\n\");\n}\n");
  EXPECT_EQ(features_text(t), "async_copy,shared_memory,mbarrier,warp_specialization");
  // cp.async.bulk (not .tensor) is neither TMA nor async_copy.
  EXPECT_EQ(features_text(cu("__global__ void k() { asm(\"cp.async.bulk.shared::cluster.global "
                             "[%0];\"); }")),
            "");
}

TEST(Techniques, PersistentPrecisionGraphsStreamsSplitK) {
  const std::string code =
      "import torch\n\nNUM_SMS = torch.cuda.get_device_properties(0).multi_processor_count\n"
      "x = torch.empty(4, dtype=torch.float8_e4m3fn)\ny = torch.empty(4, "
      "dtype=torch.float4_e2m1fn_x2)\ng = torch.cuda.CUDAGraph()\ns = torch.cuda.Stream()\n"
      "SPLIT_K = 4\n";
  EXPECT_EQ(features_text(py(code)), "persistent,fp8,fp4,cuda_graphs,streams,split_k");
  // The same words as parts of names, in comments and in strings: nothing.
  const std::string trap =
      "import torch\n\nnum_sms_hint = 1  # NUM_SMS\nfp8_scale_ptr = 0\nsplit_k_gemm_out = 0\n"
      "name = 'torch.cuda.Stream float8_e4m3fn SPLIT_K'\nmy_stream = 0\n";
  EXPECT_EQ(features_text(py(trap)), "");
  EXPECT_EQ(features_text(cu("__global__ void k(__nv_fp8_e4m3* a, __nv_fp4x2_e2m1* b) {}\n"
                             "void f() { cudaStream_t s; cudaStreamCreateWithFlags(&s, 1); "
                             "cudaGraphLaunch(g, s); }")),
            "fp8,fp4,cuda_graphs,streams");
  // A library's data types: cuBLASLt's and hipBLASLt's fp8 and fp4 operands.
  EXPECT_EQ(features_text(cu("void f() { cublasLtMatrixLayoutCreate(&a, CUDA_R_4F_E2M1, m, k, m); "
                             "cublasLtMatrixLayoutCreate(&b, CUDA_R_8F_E4M3, n, k, n); }")),
            "fp8,fp4");
  EXPECT_EQ(features_text(cu("void f() { layout(HIP_R_8F_E4M3_FNUZ); }")), "fp8");
  EXPECT_EQ(features_text(cu("void f() { layout(CUDA_R_16F, CUDA_R_32F); }")), "");
}

TEST(Techniques, ImportsAreResolved) {
  // `from triton import language as L` makes L.dot triton.language.dot; a local `tl` object does
  // not.
  EXPECT_TRUE(py("import triton\nfrom triton import language as L\n\n@triton.jit\n"
                 "def k(a):\n    c = L.dot(a, a)\n")
                  .has(Feature::TENSOR_CORES));
  EXPECT_FALSE(py("import triton\n\n@triton.jit\ndef k(a, tl):\n    c = tl.dot(a, a)\n")
                   .has(Feature::TENSOR_CORES));
  EXPECT_TRUE(py("from torch.cuda import Stream\ns = Stream()\n").has(Feature::STREAMS));
}

TEST(Techniques, AutotuneCountsItsConfigs) {
  const Techniques t =
      py("import triton\nimport triton.language as tl\n\n"
         "@triton.autotune(configs=[triton.Config({'B': 64}, num_warps=4),\n"
         "                          triton.Config({'B': 128}, num_warps=8),\n"
         "                          triton.Config({'B': 256}, num_warps=8)], key=['n'])\n"
         "@triton.jit\ndef k(x, n, B: tl.constexpr):\n    pass\n");
  EXPECT_TRUE(t.has(Feature::AUTOTUNE));
  EXPECT_EQ(t.autotune_configs, 3U);
  EXPECT_EQ(t.kernels, 1U);
  const Techniques h =
      py("import helion\nimport torch\n\n@helion.kernel(configs=[helion.Config(block_sizes=[64]), "
         "helion.Config(block_sizes=[128])])\ndef k(x):\n    return x\n");
  EXPECT_TRUE(h.has(Feature::AUTOTUNE));
  EXPECT_EQ(h.autotune_configs, 2U);
  EXPECT_FALSE(py(kTriton).has(Feature::AUTOTUNE));
}

TEST(Techniques, Sizes) {
  const Techniques t =
      py(inline_cuda("// a comment line\n__global__ void a(float* x) {\n"
                     "  x[0] = 1;\n}\n\n__global__ void b(float* x) { }\n"
                     "__global__ void c(float* x);\n"));
  EXPECT_EQ(t.kernels, 2U);
  EXPECT_EQ(t.kernel_lines, 5U);  // the C++ lines with a token that is not a comment
  const Techniques f = cu("// header\n\n__global__ void k() {\n  int i = 0;\n}\n");
  EXPECT_EQ(f.lines, 3U);
  EXPECT_EQ(f.kernel_lines, 3U);
  const Techniques p = py("# comment\n\nimport torch\n\n\ns = '''two\nlines'''\n");
  EXPECT_EQ(p.lines, 3U);
}

TEST(Techniques, ShapeBranches) {
  const Techniques t =
      py("def custom_kernel(data):\n    a, b = data\n    M, K = a.shape\n"
         "    if a.shape[0] <= 64:\n        return 1\n    elif M == 4096 and K == 7168:\n"
         "        return 2\n    if a.size(1) > 16:\n        pass\n    if best is None:\n"
         "        pass\n    if x == 3:\n        pass\n    y = 1 if M > 8 else 2\n");
  EXPECT_EQ(t.shape_branches, 3U);
  EXPECT_EQ(
      cu("void f(int m, int n) { if (m == 128 && n > 64) {} if (flag == 1) {} }").shape_branches,
      1U);
}

TEST(Techniques, NamesRoundTrip) {
  for (size_t i = 0; i < kLanguages; ++i) {
    const auto l = static_cast<Language>(i);
    EXPECT_EQ(parse_language(to_string(l)), l);
  }
  for (size_t i = 0; i < kFeatures; ++i) {
    const auto f = static_cast<Feature>(i);
    EXPECT_EQ(parse_feature(to_string(f)), f);
  }
  EXPECT_FALSE(parse_feature("tensor-cores"));
}

}  // namespace
}  // namespace kbdata::techniques
