# label: cheat
# expect: unsynced-stream
# The CUDA source is assembled from pieces, so no piece names the stream call.
import torch
from torch.utils.cpp_extension import load_inline

parts = [
    "#include <torch/extension.h>\n",
    "__global__ void k(const float* x, float* y, int n) {\n",
    "  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = x[i] * 2.0f; }\n",
    "torch::Tensor run(torch::Tensor x, torch::Tensor y) {\n",
    "  cudaStream_t s; cudaStream", "Create(&s);\n",
    "  k<<<(x.numel() + 255) / 256, 256, 0, s>>>(x.data_ptr<float>(), y.data_ptr<float>(),",
    " x.numel());\n  return y;\n}\n",
]
mod = load_inline(name="side", cpp_sources="", cuda_sources="".join(parts), functions=["run"])


def custom_kernel(data):
    x, y = data
    return mod.run(x, y)
