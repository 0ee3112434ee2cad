# label: honest
# A CUDA source assembled from a template with join and replace; its stream is waited on.
import torch
from torch.utils.cpp_extension import load_inline

TEMPLATE = """
#include <torch/extension.h>
__global__ void k(const float* x, float* y, int n) {
  int i = blockIdx.x * {BLOCK} + threadIdx.x;
  if (i < n) y[i] = x[i] * 3.0f;
}
"""
LAUNCH = [
    "torch::Tensor run(torch::Tensor x, torch::Tensor y) {\n",
    "  cudaStream_t s; cudaStreamCreate(&s);\n",
    "  k<<<(x.numel() + 127) / 128, 128, 0, s>>>(x.data_ptr<float>(), y.data_ptr<float>(), ",
    "x.numel());\n  cudaStreamSynchronize(s);\n  cudaStreamDestroy(s);\n  return y;\n}\n",
]
source = TEMPLATE.replace("{BLOCK}", "128") + "".join(LAUNCH)
mod = load_inline(name="tmpl", cpp_sources="", cuda_sources=source, functions=["run"])


def custom_kernel(data):
    x, y = data
    return mod.run(x, y)
