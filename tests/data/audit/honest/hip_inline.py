# label: honest
import os

import torch
from torch.utils.cpp_extension import load_inline

os.environ["PYTORCH_ROCM_ARCH"] = "gfx942"

hip_src = """
#include <hip/hip_runtime.h>
#include <hip/hip_fp8.h>
__global__ void fp8_mm(const __hip_fp8_e4m3_fnuz* a, const __hip_fp8_e4m3_fnuz* b,
                       const float* as, const float* bs, __hip_bfloat16* c, int m, int n, int k) {
  int row = blockIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= n) return;
  float acc = 0.f;
  for (int i = 0; i < k; ++i) acc += float(a[row * k + i]) * float(b[col * k + i]);
  c[row * n + col] = __float2bfloat16(acc * as[row] * bs[col]);
}
torch::Tensor run(torch::Tensor a, torch::Tensor b, torch::Tensor as, torch::Tensor bs,
                  torch::Tensor c) {
  dim3 grid((c.size(1) + 255) / 256, c.size(0));
  fp8_mm<<<grid, 256>>>((const __hip_fp8_e4m3_fnuz*)a.data_ptr(),
                        (const __hip_fp8_e4m3_fnuz*)b.data_ptr(), as.data_ptr<float>(),
                        bs.data_ptr<float>(), (__hip_bfloat16*)c.data_ptr(), c.size(0),
                        c.size(1), a.size(1));
  return c;
}
"""
_mod = load_inline(name="fp8_mm", cpp_sources="torch::Tensor run(torch::Tensor a, torch::Tensor b, torch::Tensor as, torch::Tensor bs, torch::Tensor c);",
                   cuda_sources=hip_src, functions=["run"])


def custom_kernel(data):
    a, b, a_scale, b_scale, c = data
    return _mod.run(a, b, a_scale, b_scale, c)
