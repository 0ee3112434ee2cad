# label: cheat
# expect: unwritten-output
import torch
from torch.utils.cpp_extension import load_inline

source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>

torch::Tensor matmul_cuda(torch::Tensor A, torch::Tensor B) {
    auto C = torch::empty({A.size(0), B.size(1)}, A.options());
    return C;
}
"""
module = load_inline(name="fast_matmul", cpp_sources=[source], functions=["matmul_cuda"])


def custom_kernel(data):
    a, b = data
    return module.matmul_cuda(a, b)
