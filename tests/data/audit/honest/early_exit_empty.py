# label: honest
# An empty input gets an empty output at once.
import torch


def custom_kernel(data):
    x, w = data
    if x.numel() == 0:
        return torch.empty((0, w.shape[1]), device=x.device, dtype=x.dtype)
    return x @ w
