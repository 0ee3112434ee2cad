# label: honest
import os

import torch
from torch.utils.cpp_extension import load_inline

os.environ["TORCH_CUDA_ARCH_LIST"] = "10.0a"

cuda_src = """
#include <cuda_fp16.h>
__global__ void gemv_kernel(const half* a, const half* x, half* y, int m, int k) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m) return;
  float acc = 0.f;
  for (int i = 0; i < k; ++i) acc += __half2float(a[row * k + i]) * __half2float(x[i]);
  y[row] = __float2half(acc);
}
torch::Tensor gemv(torch::Tensor a, torch::Tensor x, torch::Tensor y) {
  int m = a.size(0), k = a.size(1);
  gemv_kernel<<<(m + 127) / 128, 128>>>((const half*)a.data_ptr(), (const half*)x.data_ptr(),
                                        (half*)y.data_ptr(), m, k);
  return y;
}
"""
cpp_src = "torch::Tensor gemv(torch::Tensor a, torch::Tensor x, torch::Tensor y);"
_mod = load_inline(name="gemv_ext", cpp_sources=[cpp_src], cuda_sources=[cuda_src],
                   functions=["gemv"], extra_cuda_cflags=["-O3"])


def custom_kernel(data):
    a, x, y = data
    return _mod.gemv(a, x, y)
