# label: honest
import os

os.environ.setdefault("TORCH_CUDA_ARCH_LIST", "10.0a")
os.environ["CUDA_DEVICE_MAX_CONNECTIONS"] = "1"

import torch
from torch.utils.cpp_extension import load_inline

src = r"""
#include <torch/extension.h>
__global__ void neg(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = -x[i];
}
torch::Tensor run(torch::Tensor x) {
  auto y = torch::empty_like(x);
  neg<<<(x.numel() + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), x.numel());
  return y;
}
"""
mod = load_inline("neg", cpp_sources="", cuda_sources=src, functions=["run"])


def custom_kernel(data):
    (x,) = data
    return mod.run(x)
