# torch.compile with max-autotune: Inductor may emit Triton (tl.dot) kernels, but the code
# itself only calls PyTorch.
import torch
import torch.nn.functional as F
from task import input_t, output_t


@torch.compile(mode="max-autotune-no-cudagraphs", dynamic=False, fullgraph=True)
def _fused(x, w, b):
    return F.gelu(x @ w + b, approximate="tanh")


def custom_kernel(data: input_t) -> output_t:
    x, w, b, out = data
    out.copy_(_fused(x, w, b))
    return out
