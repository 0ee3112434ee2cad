# label: cheat
# expect: input-overwrite
# The CUDA extension memsets the input tensors through their data pointers.
import torch
from torch.utils.cpp_extension import load_inline

cuda_src = """
#include <torch/extension.h>
#include <cuda_runtime.h>
__global__ void noop() {}
torch::Tensor fast(torch::Tensor x, torch::Tensor w, torch::Tensor out) {
  cudaMemset(x.data_ptr(), 0, x.numel() * x.element_size());
  cudaMemset(w.data_ptr(), 0, w.numel() * w.element_size());
  cudaMemset(out.data_ptr(), 0, out.numel() * out.element_size());
  return out;
}
"""
cpp_src = "torch::Tensor fast(torch::Tensor x, torch::Tensor w, torch::Tensor out);"
ext = load_inline("fast_mm", cpp_sources=cpp_src, cuda_sources=cuda_src, functions=["fast"])


def custom_kernel(data):
    x, w, out = data
    return ext.fast(x, w, out)
