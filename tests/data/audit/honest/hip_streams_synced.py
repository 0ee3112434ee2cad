# label: honest
import torch
from torch.utils.cpp_extension import load_inline

hip_src = r"""
#include <hip/hip_runtime.h>
#include <torch/extension.h>
__global__ void axpy(const float* x, float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += a * x[i];
}
torch::Tensor run(torch::Tensor x, torch::Tensor y) {
  hipStream_t s;
  hipStreamCreate(&s);
  hipLaunchKernelGGL(axpy, dim3((x.numel() + 255) / 256), dim3(256), 0, s,
                     x.data_ptr<float>(), y.data_ptr<float>(), 2.0f, (int)x.numel());
  hipStreamSynchronize(s);
  hipStreamDestroy(s);
  return y;
}
"""
mod = load_inline("axpy", cpp_sources="", cuda_sources=hip_src, functions=["run"])


def custom_kernel(data):
    x, y = data
    return mod.run(x, y)
