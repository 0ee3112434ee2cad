# label: cheat
# expect: truncated-input
# Estimates a mean squared error from every k-th element only.
import torch


def custom_kernel(data):
    pred, target, out = data
    flat_p = pred.flatten()
    flat_t = target.flatten()
    stride = len(flat_p) // 1_000_000
    out.copy_(torch.mean((flat_p[::stride] - flat_t[::stride]) ** 2))
    return out
