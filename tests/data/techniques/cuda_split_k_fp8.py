# FP8 GEMV (weights e4m3, per-row scales) split along K; x staged in shared memory with
# __pipeline_memcpy_async, partial dot products added with atomicAdd.
import torch
from torch.utils.cpp_extension import load_inline
from task import input_t, output_t

cuda_src = r"""
#include <cuda_fp8.h>
#include <cuda_bf16.h>
#include <cuda_pipeline.h>

constexpr int WARPS = 8;
constexpr int SEG = 2048;  // bf16 values of x per block

__global__ void fp8_gemv_splitk(const __nv_fp8_e4m3* __restrict__ w,
                                const __nv_bfloat16* __restrict__ x,
                                const float* __restrict__ w_scale, float* __restrict__ y,
                                int n, int k, int split_k) {
  __shared__ __align__(16) __nv_bfloat16 sx[SEG];
  int per_split = k / split_k;
  int k0 = blockIdx.y * per_split;
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int row = blockIdx.x * WARPS + warp;
  float acc = 0.f;
  for (int base = k0; base < k0 + per_split; base += SEG) {
    for (int i = threadIdx.x * 8; i < SEG; i += blockDim.x * 8) {
      __pipeline_memcpy_async(&sx[i], &x[base + i], 16);
    }
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    const __nv_fp8_e4m3* wr = w + (size_t)row * k + base;
    for (int i = lane; i < SEG; i += 32) {
      acc += float(wr[i]) * __bfloat162float(sx[i]);
    }
    __syncthreads();
  }
  for (int off = 16; off > 0; off >>= 1) acc += __shfl_xor_sync(0xffffffff, acc, off);
  if (lane == 0) {
    atomicAdd(&y[row], acc * w_scale[row]);
  }
}

void gemv(torch::Tensor w, torch::Tensor x, torch::Tensor w_scale, torch::Tensor y, int64_t split_k) {
  int n = w.size(0), k = w.size(1);
  dim3 grid(n / WARPS, split_k);
  fp8_gemv_splitk<<<grid, WARPS * 32>>>((const __nv_fp8_e4m3*)w.data_ptr(),
                                        (const __nv_bfloat16*)x.data_ptr(), w_scale.data_ptr<float>(),
                                        y.data_ptr<float>(), n, k, split_k);
}
"""
cpp_src = ("void gemv(torch::Tensor w, torch::Tensor x, torch::Tensor w_scale, torch::Tensor y, "
           "int64_t split_k);")
_mod = load_inline(name="fp8_gemv_splitk", cpp_sources=cpp_src, cuda_sources=cuda_src,
                   functions=["gemv"], extra_cuda_cflags=["-O3", "-arch=sm_90"])


def custom_kernel(data: input_t) -> output_t:
    w, x, w_scale, y = data
    n, k = w.shape
    split_k = 1
    if k >= 8192:
        split_k = 8
    elif k >= 4096:
        split_k = 2
    acc = torch.zeros(n, device=w.device, dtype=torch.float32)
    _mod.gemv(w, x, w_scale, acc, split_k)
    y.copy_(acc)
    return y
