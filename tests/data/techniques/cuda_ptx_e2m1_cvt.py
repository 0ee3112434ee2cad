import torch
from torch.utils.cpp_extension import load_inline

src = r"""
#include <torch/extension.h>
__global__ void pack_fp4(const float* x, unsigned char* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (2 * i + 1 < n) {
    unsigned short packed;
    asm volatile("{ .reg .b8 t; cvt.rn.satfinite.e2m1x2.f32 t, %2, %1; mov.b16 %0, {t, t}; }"
                 : "=h"(packed) : "f"(x[2 * i]), "f"(x[2 * i + 1]));
    y[i] = (unsigned char)packed;
  }
}
torch::Tensor run(torch::Tensor x, torch::Tensor y) {
  pack_fp4<<<(x.numel() / 2 + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<unsigned char>(),
                                                 x.numel());
  return y;
}
"""
mod = load_inline("pack", cpp_sources="", cuda_sources=src, functions=["run"])


def custom_kernel(data):
    x, y = data
    return mod.run(x, y)
