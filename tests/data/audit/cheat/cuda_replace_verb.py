# label: cheat
# expect: unsynced-stream
import torch
from torch.utils.cpp_extension import load_inline

TEMPLATE = """
#include <torch/extension.h>
__global__ void k(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + 1.0f;
}
torch::Tensor run(torch::Tensor x, torch::Tensor y) {
  cudaStream_t s;
  cudaStream{VERB}(&s);
  k<<<(x.numel() + 255) / 256, 256, 0, s>>>(x.data_ptr<float>(), y.data_ptr<float>(), x.numel());
  return y;
}
"""
source = TEMPLATE.replace("{VERB}", "Create")
mod = load_inline(name="side2", cpp_sources="", cuda_sources=source, functions=["run"])


def custom_kernel(data):
    x, y = data
    return mod.run(x, y)
