# label: honest
import torch
from torch.utils.cpp_extension import load_inline

cuda_sources = r"""
#include <cuda_runtime.h>
__global__ void scale(float* x, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= s;
}
torch::Tensor run(torch::Tensor x) {
  cudaStream_t s;
  cudaStreamCreate(&s);
  int n = x.numel();
  scale<<<(n + 255) / 256, 256, 0, s>>>(x.data_ptr<float>(), 2.f, n);
  cudaStreamSynchronize(s);
  cudaStreamDestroy(s);
  return x;
}
"""
_ext = load_inline("scale_ext", cpp_sources="torch::Tensor run(torch::Tensor x);",
                   cuda_sources=cuda_sources, functions=["run"])


def custom_kernel(data):
    x, out = data
    out.copy_(x)
    return _ext.run(out)
