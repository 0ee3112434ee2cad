# label: honest
import torch


@torch.compile(fullgraph=True)
def _fused(x, y):
    return torch.sigmoid(x) * y


def custom_kernel(data):
    x, y, out = data
    out.copy_(_fused(x, y))
    return out
