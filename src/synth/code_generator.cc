#include "synth/code_generator.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <span>
#include <string>

#include "common/text.h"
#include "synth/random.h"

namespace kbdata::synth {
namespace {

// Templates. `$a`..`$h` are the lineage's identifiers, `$0`..`$9` its tuning constants (changed by
// versions), `$k` the block's index, `$p` the problem name, `$T` a table of tuned shapes (random
// per block), `$$` a dollar sign.

constexpr std::string_view kPyHeader =
    "#!POPCORN leaderboard $p\n"
    "# $N\n"
    "from task import input_t, output_t\n"
    "import torch\n";

// What each template writes, by the names of docs/techniques.md (synth's record, CodeRecord): the
// feature tags of its tokens, the kernels it defines and the autotune configurations it lists. A
// block's record is at its index in the matching *Records array.
struct TemplateRecord {
  std::array<std::string_view, 3> features;  // empty ones are none
  uint32_t kernels = 0;
  uint32_t autotune_configs = 0;
};

constexpr std::string_view kTritonHeader =
    "import triton\n"
    "import triton.language as tl\n\n"
    "$b_BLOCK_M = $0\n$b_BLOCK_N = $1\n$b_BLOCK_K = $2\nNUM_STAGES = $3\nNUM_WARPS = $4\n\n";

constexpr std::string_view kTritonBlocks[] = {
    "\n@triton.autotune(\n"
    "    configs=[\n"
    "        triton.Config({'BLOCK_M': $0, 'BLOCK_N': $1, 'BLOCK_K': $2}, num_stages=$3, "
    "num_warps=$4),\n"
    "        triton.Config({'BLOCK_M': $5, 'BLOCK_N': $6, 'BLOCK_K': $2}, num_stages=$7, "
    "num_warps=$8),\n"
    "    ],\n"
    "    key=['M', 'N', 'K'],\n"
    ")\n"
    "@triton.jit\n"
    "def $a_kernel_$k($c_ptr, $d_ptr, $e_ptr, M, N, K,\n"
    "                 stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,\n"
    "                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):\n"
    "    pid = tl.program_id(axis=0)\n"
    "    num_pid_n = tl.cdiv(N, BLOCK_N)\n"
    "    pid_m = pid // num_pid_n\n"
    "    pid_n = pid % num_pid_n\n"
    "    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)\n"
    "    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)\n"
    "    offs_k = tl.arange(0, BLOCK_K)\n"
    "    $f = $c_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak\n"
    "    $g = $d_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn\n"
    "    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)\n"
    "    for k in range(0, tl.cdiv(K, BLOCK_K)):\n"
    "        a = tl.load($f, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)\n"
    "        b = tl.load($g, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)\n"
    "        acc = tl.dot(a, b, acc)\n"
    "        $f += BLOCK_K * stride_ak\n"
    "        $g += BLOCK_K * stride_bk\n"
    "    c = acc.to(tl.float16)\n"
    "    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)\n"
    "    tl.store($e_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn, c, "
    "mask=mask)\n",
    "\n@triton.jit\n"
    "def $h_scale_$k(x_ptr, s_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):\n"
    "    pid = tl.program_id(0)\n"
    "    offsets = pid * BLOCK + tl.arange(0, BLOCK)\n"
    "    mask = offsets < n_elements\n"
    "    x = tl.load(x_ptr + offsets, mask=mask)\n"
    "    s = tl.load(s_ptr + offsets // $9, mask=mask, other=1.0)\n"
    "    y = x.to(tl.float32) * s\n"
    "    y = tl.where(y > $5.0, $5.0, y)\n"
    "    tl.store(out_ptr + offsets, y.to(out_ptr.dtype.element_ty), mask=mask)\n",
};

// tl.dot under two triton.Config; the second block is a plain @triton.jit.
const TemplateRecord kTritonRecords[] = {{{"tensor_cores", "autotune"}, 1, 2}, {{}, 1, 0}};

constexpr std::string_view kCudaHeader =
    "from torch.utils.cpp_extension import load_inline\n\n"
    "$b_src = r\"\"\"\n"
    "#include <cuda_fp4.h>\n#include <cuda_fp8.h>\n#include <cuda_runtime.h>\n"
    "#include <torch/extension.h>\n\n"
    "constexpr int kTileM = $0;\nconstexpr int kTileN = $1;\nconstexpr int kTileK = $2;\n"
    "constexpr int kStages = $3;\n";

constexpr std::string_view kCudaBlocks[] = {
    "\n__global__ void __launch_bounds__($6) $a_kernel_$k(const __nv_fp4x2_e2m1* __restrict__ "
    "$c,\n"
    "    const __nv_fp8_e4m3* __restrict__ $d, half* __restrict__ $e, int m, int n, int k) {\n"
    "  __shared__ float smem[kTileM][kTileK + $7];\n"
    "  const int row = blockIdx.y * kTileM + threadIdx.y;\n"
    "  const int col = blockIdx.x * kTileN + threadIdx.x;\n"
    "  float $f = 0.f;\n"
    "  #pragma unroll $8\n"
    "  for (int kk = 0; kk < k; kk += kTileK) {\n"
    "    if (row < m && kk + threadIdx.x < k) {\n"
    "      float2 v = __half22float2(__nv_cvt_fp4x2_to_halfraw2($c[(row * k + kk) / 2 + "
    "threadIdx.x / 2].__x, __NV_E2M1));\n"
    "      smem[threadIdx.y][threadIdx.x] = (threadIdx.x & 1) ? v.y : v.x;\n"
    "    }\n"
    "    __syncthreads();\n"
    "    for (int i = 0; i < kTileK; ++i) {\n"
    "      $f += smem[threadIdx.y][i] * float($d[(kk + i) / $9]);\n"
    "    }\n"
    "    __syncthreads();\n"
    "  }\n"
    "  if (row < m && col < n) $e[row * n + col] = __float2half($f);\n"
    "}\n",
    "\ntemplate <int kVec>\n"
    "__device__ __forceinline__ void $g_load_$k(const uint4* src, uint4* dst, int lane) {\n"
    "  asm volatile(\"cp.async.cg.shared.global [%0], [%1], 16;\\n\" :: \"r\"((unsigned)"
    "__cvta_generic_to_shared(dst + lane)), \"l\"(src + lane));\n"
    "  if constexpr (kVec > $5) {\n"
    "    asm volatile(\"cp.async.commit_group;\\n\" ::);\n"
    "  }\n"
    "}\n\n"
    "__device__ float $h_reduce_$k(float v) {\n"
    "  for (int off = $4; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffff, v, off);\n"
    "  return v;\n"
    "}\n",
};

// __shared__ with the fp4 and fp8 types; cp.async in asm.
const TemplateRecord kCudaRecords[] = {{{"shared_memory", "fp4", "fp8"}, 1, 0},
                                       {{"async_copy"}, 0, 0}};

constexpr std::string_view kCudaFooter =
    "\ntorch::Tensor $a_launch(torch::Tensor a, torch::Tensor b, torch::Tensor c) {\n"
    "  dim3 block(kTileN, kTileM / $3);\n"
    "  dim3 grid((c.size(1) + kTileN - 1) / kTileN, (c.size(0) + kTileM - 1) / kTileM);\n"
    "  $a_kernel_0<<<grid, block>>>(reinterpret_cast<const __nv_fp4x2_e2m1*>(a.data_ptr()),\n"
    "      reinterpret_cast<const __nv_fp8_e4m3*>(b.data_ptr()), "
    "reinterpret_cast<half*>(c.data_ptr()),\n"
    "      c.size(0), c.size(1), a.size(1) * 2);\n"
    "  return c;\n"
    "}\n"
    "\"\"\"\n\n"
    "$b_module = load_inline(name='$b_ext', cpp_sources='torch::Tensor $a_launch(torch::Tensor, "
    "torch::Tensor, torch::Tensor);',\n"
    "                        cuda_sources=$b_src, functions=['$a_launch'],\n"
    "                        extra_cuda_cflags=['-O3', '--use_fast_math', "
    "'-gencode=arch=compute_100a,code=sm_100a'])\n";

// The launcher casts to the fp4 and fp8 types.
const TemplateRecord kCudaFooterRecord = {{"fp4", "fp8"}, 0, 0};

constexpr std::string_view kHipHeader =
    "import os\nos.environ['PYTORCH_ROCM_ARCH'] = 'gfx942'\n"
    "from torch.utils.cpp_extension import load_inline\n\n"
    "$b_src = r\"\"\"\n#include <hip/hip_runtime.h>\n#include <hip/hip_fp8.h>\n"
    "#include <torch/extension.h>\n\n"
    "#define TILE_M $0\n#define TILE_N $1\n#define TILE_K $2\n#define WAVES $3\n";

constexpr std::string_view kHipBlocks[] = {
    "\n__global__ __launch_bounds__($6) void $a_kernel_$k(const __hip_fp8_e4m3_fnuz* $c, const "
    "__hip_fp8_e4m3_fnuz* $d,\n"
    "    const float* as, const float* bs, __hip_bfloat16* $e, int m, int n, int k) {\n"
    "  using f32x4 = __attribute__((__vector_size__(4 * sizeof(float)))) float;\n"
    "  __shared__ __hip_fp8_e4m3_fnuz tile_a[TILE_M][TILE_K + $7];\n"
    "  f32x4 $f = {0.f, 0.f, 0.f, 0.f};\n"
    "  const int wave = threadIdx.x / 64, lane = threadIdx.x % 64;\n"
    "  for (int kk = 0; kk < k; kk += TILE_K) {\n"
    "    for (int i = threadIdx.x; i < TILE_M * TILE_K; i += blockDim.x)\n"
    "      tile_a[i / TILE_K][i % TILE_K] = $c[(blockIdx.y * TILE_M + i / TILE_K) * k + kk + i % "
    "TILE_K];\n"
    "    __syncthreads();\n"
    "    $f = __builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8(*(long*)&tile_a[lane % 16][wave * $8],\n"
    "        *(const long*)&$d[(kk + lane / 16 * 8) * n + blockIdx.x * TILE_N], $f, 0, 0, 0);\n"
    "    __syncthreads();\n"
    "  }\n"
    "  float s = as[blockIdx.y] * bs[blockIdx.x / $9];\n"
    "  for (int j = 0; j < 4; ++j) $e[(blockIdx.y * TILE_M + lane / 16 * 4 + j) * n + "
    "blockIdx.x * TILE_N + lane % 16] = __float2bfloat16($f[j] * s);\n"
    "}\n",
    "\n__device__ inline float $h_wave_sum_$k(float v) {\n"
    "  #pragma unroll\n"
    "  for (int off = $4; off > 0; off >>= 1) v += __shfl_down(v, off, 64);\n"
    "  return v;\n"
    "}\n",
};

// An MFMA builtin on fp8 tiles in __shared__; a wave reduction.
const TemplateRecord kHipRecords[] = {{{"tensor_cores", "shared_memory", "fp8"}, 1, 0}, {{}, 0, 0}};

constexpr std::string_view kHipFooter =
    "\ntorch::Tensor $a_launch(torch::Tensor a, torch::Tensor b, torch::Tensor as, torch::Tensor "
    "bs, torch::Tensor c) {\n"
    "  dim3 grid(c.size(1) / TILE_N, c.size(0) / TILE_M);\n"
    "  hipLaunchKernelGGL($a_kernel_0, grid, dim3(64 * WAVES), 0, 0,\n"
    "      (const __hip_fp8_e4m3_fnuz*)a.data_ptr(), (const __hip_fp8_e4m3_fnuz*)b.data_ptr(),\n"
    "      as.data_ptr<float>(), bs.data_ptr<float>(), (__hip_bfloat16*)c.data_ptr(), "
    "c.size(0), c.size(1), a.size(1));\n"
    "  return c;\n"
    "}\n\"\"\"\n\n"
    "$b_module = load_inline(name='$b_ext', cpp_sources=['torch::Tensor $a_launch(torch::Tensor, "
    "torch::Tensor, torch::Tensor, torch::Tensor, torch::Tensor);'],\n"
    "                        cuda_sources=[$b_src], functions=['$a_launch'], verbose=False,\n"
    "                        extra_cuda_cflags=['-O3', '--offload-arch=gfx942', "
    "'-std=c++20'])\n";

const TemplateRecord kHipFooterRecord = {{"fp8"}, 0, 0};

constexpr std::string_view kCuteHeader =
    "import cutlass\nimport cutlass.cute as cute\nfrom cutlass.cute.runtime import from_dlpack\n\n"
    "$b_TILE = ($0, $1, $2)\n$b_CLUSTER = (1, $3)\n";

constexpr std::string_view kCuteBlocks[] = {
    "\n@cute.kernel\n"
    "def $a_kernel_$k(g$c: cute.Tensor, g$d: cute.Tensor, g$e: cute.Tensor, tiled_mma: "
    "cute.TiledMma):\n"
    "    tidx, _, _ = cute.arch.thread_idx()\n"
    "    bidx, bidy, _ = cute.arch.block_idx()\n"
    "    $f = cute.local_tile(g$c, tiler=($0, $2), coord=(bidx, None))\n"
    "    $g = cute.local_tile(g$d, tiler=($1, $2), coord=(bidy, None))\n"
    "    thr_mma = tiled_mma.get_slice(tidx)\n"
    "    acc = thr_mma.make_fragment_C(thr_mma.partition_shape_C(($0, $1)))\n"
    "    acc.fill(0.0)\n"
    "    for k in cutlass.range_dynamic(cute.size($f, mode=[2]), unroll=$8):\n"
    "        cute.gemm(tiled_mma, acc, thr_mma.partition_A($f[None, None, k]),\n"
    "                  thr_mma.partition_B($g[None, None, k]), acc)\n"
    "    out = thr_mma.partition_C(cute.local_tile(g$e, ($0, $1), (bidx, bidy)))\n"
    "    cute.autovec_copy(acc.load().to(cutlass.Float16), out)\n",
    "\n@cute.jit\n"
    "def $h_launch_$k(a: cute.Tensor, b: cute.Tensor, c: cute.Tensor):\n"
    "    mma_op = cute.nvgpu.tcgen05.MmaF16BF16Op(cutlass.Float16, cutlass.Float32, ($0, $1, "
    "$9), cute.nvgpu.tcgen05.CtaGroup.ONE)\n"
    "    tiled_mma = cute.make_tiled_mma(mma_op)\n"
    "    grid = (cute.ceil_div(c.shape[0], $0), cute.ceil_div(c.shape[1], $1), 1)\n"
    "    $a_kernel_$k(a, b, c, tiled_mma).launch(grid=grid, block=[$6, 1, 1], cluster=[1, $3, "
    "1])\n",
};

// cute.gemm in a @cute.kernel; a tcgen05 MMA atom and make_tiled_mma in a @cute.jit launcher.
const TemplateRecord kCuteRecords[] = {{{"tensor_cores"}, 1, 0}, {{"tensor_cores"}, 0, 0}};

constexpr std::string_view kTorchBlocks[] = {
    "\ndef $a_chunk_$k($c: torch.Tensor, $d: torch.Tensor, chunk: int = $6) -> torch.Tensor:\n"
    "    out = torch.empty(($c.shape[0], $d.shape[-1]), dtype=torch.float32, device=$c.device)\n"
    "    for start in range(0, $c.shape[0], chunk):\n"
    "        end = min(start + chunk, $c.shape[0])\n"
    "        $f = $c[start:end].float()\n"
    "        out[start:end] = torch.matmul($f, $d.float()) * $5.0 / $9\n"
    "    return out\n",
    "\n@torch.compile(mode='max-autotune-no-cudagraphs', dynamic=False)\n"
    "def $h_fused_$k(x: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:\n"
    "    $g = x.float() * scale.repeat_interleave($9, dim=-1)[..., : x.shape[-1]]\n"
    "    return torch.clamp($g, min=-$7.0, max=$7.0).to(torch.bfloat16)\n",
};

const TemplateRecord kTorchRecords[] = {{{}, 0, 0}, {{}, 0, 0}};

constexpr std::string_view kCudaFileHeader =
    "// $N\n#include <cuda_runtime.h>\n#include <cstdint>\n\n"
    "#define BLOCK_SIZE $0\n#define ITEMS_PER_THREAD $2\n";

constexpr std::string_view kCudaFileBlocks[] = {
    "\n__global__ void $a_kernel_$k(const float* __restrict__ $c, float* __restrict__ $e, int "
    "n) {\n"
    "  __shared__ float $f[BLOCK_SIZE * ITEMS_PER_THREAD + $7];\n"
    "  int base = blockIdx.x * BLOCK_SIZE * ITEMS_PER_THREAD;\n"
    "  #pragma unroll\n"
    "  for (int i = 0; i < ITEMS_PER_THREAD; ++i) {\n"
    "    int idx = base + i * BLOCK_SIZE + threadIdx.x;\n"
    "    $f[i * BLOCK_SIZE + threadIdx.x] = idx < n ? $c[idx] : 0.0f;\n"
    "  }\n"
    "  __syncthreads();\n"
    "  for (int s = $4; s > 0; s >>= 1) {\n"
    "    if (threadIdx.x < s) $f[threadIdx.x] += $f[threadIdx.x + s];\n"
    "    __syncthreads();\n"
    "  }\n"
    "  if (threadIdx.x == 0) atomicAdd($e, $f[0] * $5.0f / $9);\n"
    "}\n",
};

const TemplateRecord kCudaFileRecords[] = {{{"shared_memory"}, 1, 0}};

constexpr std::string_view kCudaFileFooter =
    "\nvoid solution(const float* input, float* output, int n) {\n"
    "  int blocks = (n + BLOCK_SIZE * ITEMS_PER_THREAD - 1) / (BLOCK_SIZE * ITEMS_PER_THREAD);\n"
    "  $a_kernel_0<<<blocks, BLOCK_SIZE>>>(input, output, n);\n"
    "  cudaDeviceSynchronize();\n"
    "}\n";

constexpr std::string_view kPyFooter =
    "\n\ndef custom_kernel(data: input_t) -> output_t:\n"
    "    $c, $d, $e = data[0], data[1], data[-1]\n"
    "    if $c.shape[0] <= $5:\n"
    "        return $b_small_path($c, $d, $e)\n"
    "    $g = $b_select($c.shape)\n"
    "    return $b_run($g, $c, $d, $e)\n";

constexpr std::string_view kPyDispatch =
    "\n\ndef $b_select(shape):\n"
    "    key = tuple(int(s) for s in shape[:3])\n"
    "    best = _TUNED.get(key)\n"
    "    if best is None:\n"
    "        best = ($0, $1, $2, $3, $4)\n"
    "    return best\n";

constexpr const char* kNames[] = {
    "gemv",     "gemm",    "mm",         "fused", "fp4",   "nvfp4",    "dual",
    "grouped",  "moe",     "mla",        "attn",  "quant", "scaled",   "blockwise",
    "tiled",    "split_k", "persistent", "ws",    "tma",   "swizzled", "pingpong",
    "epilogue", "reduce",  "matmul",     "conv",  "tri",   "chunk",    "decode",
    "prefill",  "fast",    "my",         "opt",   "v2",    "final",    "best",
    "hyper",    "mx",      "fp8",        "bf16",  "warp",  "cta",      "stage"};
constexpr const char* kShortNames[] = {
    "a", "b", "x", "y",  "w",     "acc", "ptr",  "inp",  "out", "src", "dst", "lhs", "rhs",
    "q", "k", "v", "sf", "scale", "buf", "tile", "frag", "res", "tmp", "mat", "vec", "h"};
constexpr const char* kNotes[] = {"try larger tiles",
                                  "fix the tail mask",
                                  "more stages",
                                  "swap loop order",
                                  "use vectorized loads",
                                  "tune for the big shape",
                                  "drop the extra sync",
                                  "pipelining, take 2",
                                  "bigger K tile",
                                  "persistent variant",
                                  "revert the split-K",
                                  "smaller warps per CTA",
                                  "fused epilogue",
                                  "avoid bank conflicts",
                                  "prefetch scales",
                                  "cleanup",
                                  "retry: noisy runner?",
                                  "handle odd N",
                                  "faster dequant",
                                  "register blocking",
                                  "check correctness first"};
constexpr const char* kComments[] = {
    "the scale factors are stored per 16 elements, so a tile of K covers K/16 of them",
    "this path is slower for tiny shapes; the dispatcher below avoids it",
    "NOTE: the benchmark shapes are fixed, so everything below is tuned for them",
    "memory-bound for the gemv shapes: keep the loads 128-bit wide",
    "next: try a warp-specialized producer/consumer split here",
    "accumulate in fp32, convert only in the epilogue",
    "the reference does this in three kernels; fusing saves two round trips to HBM",
    "without the padding the shared-memory reads conflict on every other bank",
    "measured on the leaderboard runner; local numbers differ"};

// Percent of a kernel's bytes that are its table of tuned shapes (Python kernels).
constexpr size_t kTableShare = 60;

constexpr int kTunableChoices[] = {16, 32, 64, 128, 256, 2, 3, 4, 8, 1, 512, 48, 96, 192};

struct Lineage {
  std::array<std::string, 8> idents;
  std::array<int, 10> tunables;
};

void expand(std::string_view tmpl, const Lineage& l, int block, std::string_view problem,
            std::string_view note, Rng& table_rng, std::string& out, size_t table_bytes = 0) {
  size_t i = 0;
  while (i < tmpl.size()) {
    size_t dollar = tmpl.find('$', i);
    if (dollar == std::string_view::npos || dollar + 1 >= tmpl.size()) {
      out.append(tmpl.substr(i));
      return;
    }
    out.append(tmpl.substr(i, dollar - i));
    char c = tmpl[dollar + 1];
    if (c >= 'a' && c <= 'h') {
      out.append(l.idents[static_cast<size_t>(c - 'a')]);
    } else if (c >= '0' && c <= '9') {
      out.append(std::to_string(l.tunables[static_cast<size_t>(c - '0')]));
    } else if (c == 'k') {
      out.append(std::to_string(block));
    } else if (c == 'p') {
      out.append(problem);
    } else if (c == 'N') {
      out.append(note);
    } else if (c == 'T') {
      // Measured timings of tuned shapes: the lineage's own data, which is what keeps real
      // kernels from compressing to nothing (snappy finds no repeats in it).
      out.append("_TUNED = {\n");
      const size_t table_end = out.size() + table_bytes / 3;
      while (out.size() < table_end) {
        out.append("    (");
        for (int d = 0; d < 3; ++d) {
          out.append(std::to_string(table_rng.range(1, 160) * 64));
          out.append(", ");
        }
        out.append("): (");
        for (int d = 0; d < 5; ++d) {
          if (d > 0) out.append(", ");
          out.append(std::to_string(table_rng.pick(kTunableChoices)));
        }
        out.append("),  # ");
        out.append(std::to_string(table_rng.range(1000, 999999)));
        out.append(" ns, x");
        out.append(std::to_string(table_rng.range(100, 9999)));
        out.append("\n");
      }
      out.append("}\n\n# packed swizzle / scale-factor layout, generated offline\n_LUT = [\n");
      const size_t lut_end = out.size() + table_bytes * 2 / 3;
      while (out.size() < lut_end) {
        out.append("   ");
        for (int d = 0; d < 8; ++d) {
          out.append(" 0x");
          uint64_t bits = table_rng.next();
          for (int h = 0; h < 8; ++h)
            out.push_back(hex_digit(static_cast<unsigned>(bits >> (4 * h))));
          out.push_back(',');
        }
        out.push_back('\n');
      }
      out.append("]\n");
    } else {
      out.push_back(c);
    }
    i = dollar + 2;
  }
}

std::string random_ident(Rng& rng, bool short_name) {
  std::string s;
  if (short_name) {
    s = rng.pick(kShortNames);
    if (rng.chance(0.5)) s += "_" + std::string(rng.pick(kShortNames));
  } else {
    s = std::string(rng.pick(kNames)) + "_" + rng.pick(kNames);
    if (rng.chance(0.5)) s += std::to_string(rng.range(0, 99));
  }
  return s;
}

}  // namespace

const char* to_string(Language language) {
  switch (language) {
    case Language::TRITON:
      return "triton";
    case Language::CUDA_INLINE:
      return "cuda-inline";
    case Language::HIP_INLINE:
      return "hip-inline";
    case Language::CUTE_DSL:
      return "cute-dsl";
    case Language::PYTORCH:
      return "pytorch";
    case Language::CUDA_FILE:
      return "cuda";
  }
  return "?";
}

namespace {

// The planted cheats' text, appended after the honest kernel (which they wrap or bypass).
constexpr std::string_view kPlantedCallCounter =
    "\n\n_replay_calls = 0\n_replay_out = None\n_honest_kernel = custom_kernel\n\n\n"
    "def custom_kernel(data):\n    global _replay_calls, _replay_out\n    _replay_calls += 1\n"
    "    if _replay_calls > 3 and _replay_out is not None:\n        return _replay_out\n"
    "    _replay_out = _honest_kernel(data)\n    return _replay_out\n";
constexpr std::string_view kPlantedTimer =
    "\n\nimport time as _time\n_real_clock = _time.perf_counter\n"
    "_time.perf_counter = lambda: _real_clock() * 0.25\n";
constexpr std::string_view kPlantedPipe =
    "\n\nimport os as _os\n\n\ndef _report_fast():\n"
    "    fd = int(_os.environ.get(\"POPCORN_FD\", \"1\"))\n"
    "    _os.write(fd, b\"benchmark.0.mean: 1.0\\n\")\n\n\n_report_fast()\n";
constexpr std::string_view kPlantedIdentity =
    "\n\n_seen_outputs = {}\n_honest_kernel = custom_kernel\n\n\n"
    "def custom_kernel(data):\n    key = tuple(t.data_ptr() for t in data[:2])\n"
    "    if key in _seen_outputs:\n        return _seen_outputs[key]\n"
    "    _seen_outputs[key] = _honest_kernel(data)\n    return _seen_outputs[key]\n";
constexpr std::string_view kPlantedStream =
    "\n\n_side_stream = torch.cuda.Stream()\n_honest_kernel = custom_kernel\n\n\n"
    "def custom_kernel(data):\n    with torch.cuda.stream(_side_stream):\n"
    "        return _honest_kernel(data)\n";
constexpr std::string_view kPlantedExec =
    "\n\nimport base64 as _b64\n"
    "exec(_b64.b64decode(\"X2hvbmVzdCA9IGN1c3RvbV9rZXJuZWwK\").decode())\n";
constexpr std::string_view kPlantedPrint =
    "\n#include <cstdio>\n\nstatic int report_fast() {\n"
    "  std::printf(\"benchmark.0.mean: %f\\n\", 1.0);\n  return 0;\n}\n"
    "static int reported = report_fast();\n";

}  // namespace

PlantedCheat planted_cheat(const CodeKey& key) {
  const uint64_t h = mix64(key.lineage * 0x2545F4914F6CDD1DULL + key.version + 0xC4EA7);
  if (h % 200 != 0) return PlantedCheat::NONE;
  if (key.language == Language::CUDA_FILE) return PlantedCheat::FAKE_PRINT;
  constexpr PlantedCheat kPython[] = {
      PlantedCheat::CALL_COUNTER_REPLAY, PlantedCheat::TIMER_PATCH,
      PlantedCheat::RESULT_PIPE,         PlantedCheat::IDENTITY_CACHE,
      PlantedCheat::UNSYNCED_STREAM,     PlantedCheat::OBFUSCATED_EXEC};
  return kPython[(h / 200) % std::size(kPython)];
}

const char* to_string(PlantedCheat cheat) {
  switch (cheat) {
    case PlantedCheat::NONE:
      return "none";
    case PlantedCheat::CALL_COUNTER_REPLAY:
      return "call-counter-replay";
    case PlantedCheat::TIMER_PATCH:
      return "timer-patch";
    case PlantedCheat::RESULT_PIPE:
      return "result-pipe";
    case PlantedCheat::IDENTITY_CACHE:
      return "identity-cache";
    case PlantedCheat::UNSYNCED_STREAM:
      return "unsynced-stream";
    case PlantedCheat::OBFUSCATED_EXEC:
      return "obfuscated-exec";
    case PlantedCheat::FAKE_PRINT:
      return "fake-print";
  }
  return "?";
}

namespace {

std::string_view planted_text(PlantedCheat cheat) {
  switch (cheat) {
    case PlantedCheat::NONE:
      return "";
    case PlantedCheat::CALL_COUNTER_REPLAY:
      return kPlantedCallCounter;
    case PlantedCheat::TIMER_PATCH:
      return kPlantedTimer;
    case PlantedCheat::RESULT_PIPE:
      return kPlantedPipe;
    case PlantedCheat::IDENTITY_CACHE:
      return kPlantedIdentity;
    case PlantedCheat::UNSYNCED_STREAM:
      return kPlantedStream;
    case PlantedCheat::OBFUSCATED_EXEC:
      return kPlantedExec;
    case PlantedCheat::FAKE_PRINT:
      return kPlantedPrint;
  }
  return "";
}

}  // namespace

void generate_code(const CodeKey& key, std::string_view problem, std::string& out,
                   CodeRecord* record) {
  Rng shape(derive(key.lineage, 1));
  Lineage l;
  for (size_t i = 0; i < l.idents.size(); ++i) l.idents[i] = random_ident(shape, i >= 2);
  l.idents[1] = "_" + l.idents[1];
  for (int& t : l.tunables) t = shape.pick(kTunableChoices);
  // Size of this lineage: 2-20 KB (the footer adds up to about 1.5 KB), skewed to the top.
  size_t target = 2048 + static_cast<size_t>(16.5 * 1024 * std::pow(shape.uniform(), 0.5));
  // A version changes a few tuning constants; version 0 is the lineage's first state.
  Rng edit(derive(key.lineage, 2, key.version));
  std::string note;
  if (key.version > 0) {
    int changes = static_cast<int>(edit.range(1, 3));
    for (int c = 0; c < changes; ++c) l.tunables[edit.below(10)] = edit.pick(kTunableChoices);
    note = "v" + std::to_string(key.version) + ": " + edit.pick(kNotes);
  } else {
    note = std::string("first version: ") + edit.pick(kNotes);
  }

  const size_t start = out.size();
  std::string_view header;
  std::span<const std::string_view> blocks;
  std::span<const TemplateRecord> block_records;
  std::string_view footer;
  const TemplateRecord* footer_record = nullptr;
  std::string_view language;  // docs/techniques.md's name
  bool python = true;
  switch (key.language) {
    case Language::TRITON:
      header = kTritonHeader;
      blocks = kTritonBlocks;
      block_records = kTritonRecords;
      language = "triton";
      break;
    case Language::CUDA_INLINE:
      header = kCudaHeader;
      blocks = kCudaBlocks;
      block_records = kCudaRecords;
      footer = kCudaFooter;
      footer_record = &kCudaFooterRecord;
      language = "cuda";
      break;
    case Language::HIP_INLINE:
      header = kHipHeader;
      blocks = kHipBlocks;
      block_records = kHipRecords;
      footer = kHipFooter;
      footer_record = &kHipFooterRecord;
      language = "hip";
      break;
    case Language::CUTE_DSL:
      header = kCuteHeader;
      blocks = kCuteBlocks;
      block_records = kCuteRecords;
      language = "cute_dsl";
      break;
    case Language::PYTORCH:
      header = "";
      blocks = kTorchBlocks;
      block_records = kTorchRecords;
      language = "pytorch";
      break;
    case Language::CUDA_FILE:
      header = kCudaFileHeader;
      blocks = kCudaFileBlocks;
      block_records = kCudaFileRecords;
      footer = kCudaFileFooter;
      language = "cuda_file";
      python = false;
      break;
  }
  const auto note_record = [&](const TemplateRecord& r) {
    if (record == nullptr) return;
    for (std::string_view f : r.features) {
      if (!f.empty()) record->features.push_back(f);
    }
    record->kernels += r.kernels;
    record->autotune_configs += r.autotune_configs;
  };
  if (record != nullptr) *record = CodeRecord{language, {}, 0, 0, python ? 1U : 0U};
  if (python) expand(kPyHeader, l, 0, problem, note, shape, out);
  expand(header, l, 0, problem, note, shape, out);
  // Blocks until the lineage's size is reached (leaving room for the footer).
  const std::string_view comment_prefix =
      python && key.language != Language::CUDA_INLINE && key.language != Language::HIP_INLINE
          ? "# "
          : "// ";
  int block = 0;
  // Most of a kernel is its tuning data (see `$T`), the rest code from the templates.
  const size_t table_bytes = python ? target * kTableShare / 100 : 0;
  while (out.size() - start + 1200 + table_bytes < target || block == 0) {
    if (shape.chance(0.4)) {
      out.append("\n");
      out.append(comment_prefix);
      out.append(shape.pick(kComments));
      out.append("\n");
    }
    const size_t which = shape.below(blocks.size());
    expand(blocks[which], l, block, problem, note, shape, out);
    note_record(block_records[which]);
    ++block;
  }
  expand(footer, l, 0, problem, note, shape, out);
  if (footer_record != nullptr) note_record(*footer_record);
  if (python) {
    expand("\n$T", l, 0, problem, note, shape, out, table_bytes);
    expand(kPyDispatch, l, 0, problem, note, shape, out);
    out.append("\n\ndef " + l.idents[1] +
               "_small_path(a, b, c):\n    return torch.matmul(a.float(), "
               "b.float()).to(c.dtype)\n\n\ndef " +
               l.idents[1] + "_run(cfg, a, b, c):\n    return " + l.idents[1] +
               "_small_path(a, b, c)\n");
    expand(kPyFooter, l, 0, problem, note, shape, out);
  }
  const PlantedCheat cheat = planted_cheat(key);
  out.append(planted_text(cheat));
  if (record != nullptr) {
    // The side stream of the unsynced-stream cheat is torch.cuda.Stream.
    if (cheat == PlantedCheat::UNSYNCED_STREAM) record->features.emplace_back("streams");
    std::sort(record->features.begin(), record->features.end());
    record->features.erase(std::unique(record->features.begin(), record->features.end()),
                           record->features.end());
  }
}

std::string reference_code(std::string_view problem, bool cuda, uint64_t seed) {
  Rng rng(derive(seed, hash_text(problem)));
  std::string out;
  if (cuda) {
    out = "// reference implementation of " + std::string(problem) +
          "\n#include <cuda_runtime.h>\n\n__global__ void reference_kernel(const float* in, "
          "float* out, int n) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) "
          "out[i] = in[i];\n}\n";
    return out;
  }
  out =
      "from utils import make_match_reference, DeterministicContext\nimport torch\nfrom task "
      "import input_t, output_t\n\n\ndef ref_kernel(data: input_t) -> output_t:\n    "
      "\"\"\"Reference "
      "implementation of " +
      std::string(problem) +
      ".\"\"\"\n    with DeterministicContext():\n"
      "        a, b, c = data\n        c[...] = (a.float() @ b.float()).to(c.dtype)\n        "
      "return c\n\n\ndef generate_input(m: int, n: int, k: int, seed: int) -> input_t:\n    gen = "
      "torch.Generator(device='cuda')\n    gen.manual_seed(seed)\n    a = torch.randn((m, k), "
      "generator=gen, device='cuda').to(torch.bfloat16)\n    b = torch.randn((k, n), "
      "generator=gen, device='cuda').to(torch.bfloat16)\n    c = torch.empty((m, n), "
      "device='cuda', dtype=torch.bfloat16)\n    return a, b, c\n\n\ncheck_implementation = "
      "make_match_reference(ref_kernel, rtol=" +
      std::to_string(rng.range(1, 5)) + "e-02, atol=1e-02)\n";
  return out;
}

}  // namespace kbdata::synth
