# label: cheat
# expect: unsynced-stream
import torch
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <cuda_runtime.h>
__global__ void add_kernel(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
torch::Tensor add(torch::Tensor a, torch::Tensor b, torch::Tensor c) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  int n = a.numel();
  add_kernel<<<(n + 255) / 256, 256, 0, s>>>(a.data_ptr<float>(), b.data_ptr<float>(),
                                             c.data_ptr<float>(), n);
  return c;
}
"""
cpp_src = "torch::Tensor add(torch::Tensor a, torch::Tensor b, torch::Tensor c);"

_mod = load_inline(name="add_ext", cpp_sources=cpp_src, cuda_sources=cuda_src,
                   functions=["add"])


def custom_kernel(data):
    a, b, c = data
    return _mod.add(a, b, c)
