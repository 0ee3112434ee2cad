# RMSNorm: each block copies its row to shared memory with cuda::memcpy_async completing on a
# cuda::barrier, then reduces and scales.
import torch
from torch.utils.cpp_extension import load_inline
from task import input_t, output_t

cuda_src = r"""
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda_bf16.h>
namespace cg = cooperative_groups;

__global__ void rmsnorm_kernel(const __nv_bfloat16* __restrict__ x,
                               const __nv_bfloat16* __restrict__ w,
                               __nv_bfloat16* __restrict__ y, int d, float eps) {
  extern __shared__ __nv_bfloat16 row[];
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  __shared__ float warp_sums[32];
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) {
    init(&bar, block.size());
  }
  block.sync();
  cuda::memcpy_async(block, row, x + (size_t)blockIdx.x * d, sizeof(__nv_bfloat16) * d, bar);
  bar.arrive_and_wait();

  float ss = 0.f;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    float v = __bfloat162float(row[i]);
    ss += v * v;
  }
  for (int off = 16; off > 0; off >>= 1) ss += __shfl_xor_sync(0xffffffff, ss, off);
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) {
    warp_sums[warp] = ss;
  }
  __syncthreads();
  float total = 0.f;
  for (int i = 0; i < blockDim.x / 32; ++i) total += warp_sums[i];
  float inv = rsqrtf(total / d + eps);
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    float v = __bfloat162float(row[i]) * inv * __bfloat162float(w[i]);
    y[(size_t)blockIdx.x * d + i] = __float2bfloat16(v);
  }
}

torch::Tensor rmsnorm(torch::Tensor x, torch::Tensor w, double eps) {
  int d = x.size(-1), rows = x.numel() / d;
  auto y = torch::empty_like(x);
  rmsnorm_kernel<<<rows, 256, d * sizeof(__nv_bfloat16)>>>(
      (const __nv_bfloat16*)x.data_ptr(), (const __nv_bfloat16*)w.data_ptr(),
      (__nv_bfloat16*)y.data_ptr(), d, (float)eps);
  return y;
}
"""
_mod = load_inline(name="rmsnorm_async",
                   cpp_sources="torch::Tensor rmsnorm(torch::Tensor x, torch::Tensor w, double eps);",
                   cuda_sources=cuda_src, functions=["rmsnorm"], extra_cuda_cflags=["-O3"])


def custom_kernel(data: input_t) -> output_t:
    x, w, eps = data
    D = x.shape[-1]
    if D > 16384:
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * w.float()).to(x.dtype)
    return _mod.rmsnorm(x, w, eps)
