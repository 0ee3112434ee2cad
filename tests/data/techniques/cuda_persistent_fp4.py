# NVFP4 GEMV: e2m1 weights two per byte, one e4m3 scale per 16 values, a persistent grid of
# a few blocks per SM walking the rows.
import torch
from torch.utils.cpp_extension import load_inline
from task import input_t, output_t

cuda_src = r"""
#include <cuda_fp4.h>
#include <cuda_fp8.h>
#include <cuda_fp16.h>

__global__ void nvfp4_gemv(const __nv_fp4x2_e2m1* __restrict__ a, const __nv_fp8_e4m3* __restrict__ sfa,
                           const half* __restrict__ x, half* __restrict__ y, int m, int k) {
  int half_k = k / 2;
  for (int row = blockIdx.x; row < m; row += gridDim.x) {
    const __nv_fp4x2_e2m1* ar = a + (size_t)row * half_k;
    const __nv_fp8_e4m3* sr = sfa + (size_t)row * (k / 16);
    float acc = 0.f;
    for (int i = threadIdx.x; i < half_k; i += blockDim.x) {
      float2 v = static_cast<float2>(ar[i]);
      float s = static_cast<float>(sr[(2 * i) / 16]);
      acc += s * (v.x * __half2float(x[2 * i]) + v.y * __half2float(x[2 * i + 1]));
    }
    for (int off = 16; off > 0; off >>= 1) acc += __shfl_xor_sync(0xffffffff, acc, off);
    __shared__ float sums[8];
    if (threadIdx.x % 32 == 0) {
      sums[threadIdx.x / 32] = acc;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      float t = 0.f;
      for (int w = 0; w < blockDim.x / 32; ++w) t += sums[w];
      y[row] = __float2half(t);
    }
    __syncthreads();
  }
}

torch::Tensor gemv(torch::Tensor a, torch::Tensor sfa, torch::Tensor x, torch::Tensor y) {
  int m = a.size(0), k = a.size(1) * 2;
  int dev = 0, sms = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  int blocks = std::min(m, sms * 4);
  nvfp4_gemv<<<blocks, 256>>>((const __nv_fp4x2_e2m1*)a.data_ptr(), (const __nv_fp8_e4m3*)sfa.data_ptr(),
                              (const half*)x.data_ptr(), (half*)y.data_ptr(), m, k);
  return y;
}
"""
_mod = load_inline(name="nvfp4_gemv",
                   cpp_sources="torch::Tensor gemv(torch::Tensor a, torch::Tensor sfa, torch::Tensor x, torch::Tensor y);",
                   cuda_sources=cuda_src, functions=["gemv"],
                   extra_cuda_cflags=["-O3", "-gencode=arch=compute_100a,code=sm_100a"])


def custom_kernel(data: input_t) -> output_t:
    a, b, sfa, sfb, c = data  # b is the [K, 1] vector
    return _mod.gemv(a, sfa, b.view(-1), c.view(-1)).view_as(c)
