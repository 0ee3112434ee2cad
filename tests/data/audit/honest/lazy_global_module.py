# label: honest
import torch
from torch.utils.cpp_extension import load_inline

_mod = None
SRC = """
__global__ void neg(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = -x[i];
}
void run(torch::Tensor x) { neg<<<(x.numel() + 255) / 256, 256>>>(x.data_ptr<float>(), x.numel()); }
"""


def _module():
    global _mod
    if _mod is None:
        _mod = load_inline("neg", cpp_sources="void run(torch::Tensor x);", cuda_sources=SRC,
                           functions=["run"])
    return _mod


def custom_kernel(data):
    x, out = data
    out.copy_(x)
    _module().run(out)
    return out
