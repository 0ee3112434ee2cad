# MI300 FP8 (e4m3 fnuz) scaled GEMM, rows split across two HIP streams for large M.
import os
import torch
from torch.utils.cpp_extension import load_inline
from task import input_t, output_t

os.environ["PYTORCH_ROCM_ARCH"] = "gfx942"

hip_src = r"""
#include <hip/hip_runtime.h>
#include <hip/hip_fp8.h>
#include <hip/hip_bf16.h>

__global__ void fp8_scaled_mm(const __hip_fp8_e4m3_fnuz* __restrict__ a,
                              const __hip_fp8_e4m3_fnuz* __restrict__ b,
                              const float* __restrict__ as, const float* __restrict__ bs,
                              __hip_bfloat16* __restrict__ c, int row0, int m, int n, int k) {
  int row = row0 + blockIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= n) return;
  float acc = 0.f;
  for (int i = 0; i < k; ++i) {
    acc += float(a[(size_t)row * k + i]) * float(b[(size_t)col * k + i]);
  }
  c[(size_t)row * n + col] = __float2bfloat16(acc * as[row] * bs[col]);
}

static hipStream_t streams[2];
static bool ready = false;

torch::Tensor run(torch::Tensor a, torch::Tensor b, torch::Tensor as, torch::Tensor bs,
                  torch::Tensor c) {
  int m = a.size(0), k = a.size(1), n = b.size(0);
  if (m <= 64) {
    dim3 grid((n + 255) / 256, m);
    hipLaunchKernelGGL(fp8_scaled_mm, grid, dim3(256), 0, 0,
                       (const __hip_fp8_e4m3_fnuz*)a.data_ptr(), (const __hip_fp8_e4m3_fnuz*)b.data_ptr(),
                       as.data_ptr<float>(), bs.data_ptr<float>(), (__hip_bfloat16*)c.data_ptr(), 0, m, n, k);
    return c;
  }
  if (!ready) {
    hipStreamCreateWithFlags(&streams[0], hipStreamNonBlocking);
    hipStreamCreateWithFlags(&streams[1], hipStreamNonBlocking);
    ready = true;
  }
  int half_m = m / 2;
  for (int s = 0; s < 2; ++s) {
    int r0 = s * half_m, rows = s == 0 ? half_m : m - half_m;
    dim3 grid((n + 255) / 256, rows);
    hipLaunchKernelGGL(fp8_scaled_mm, grid, dim3(256), 0, streams[s],
                       (const __hip_fp8_e4m3_fnuz*)a.data_ptr(), (const __hip_fp8_e4m3_fnuz*)b.data_ptr(),
                       as.data_ptr<float>(), bs.data_ptr<float>(), (__hip_bfloat16*)c.data_ptr(), r0, m, n, k);
  }
  hipStreamSynchronize(streams[0]);
  hipStreamSynchronize(streams[1]);
  return c;
}
"""
cpp_src = ("torch::Tensor run(torch::Tensor a, torch::Tensor b, torch::Tensor as, "
           "torch::Tensor bs, torch::Tensor c);")
_mod = load_inline(name="fp8_mm_streams", cpp_sources=cpp_src, cuda_sources=hip_src,
                   functions=["run"], extra_cuda_cflags=["-O3"])


def custom_kernel(data: input_t) -> output_t:
    a, b, a_scale, b_scale, c = data
    return _mod.run(a, b, a_scale, b_scale, c)
