# label: cheat
# expect: partial-input
import torch


def custom_kernel(data):
    x, out = data
    half = x[: x.numel() // 2]
    out.fill_(half.sum() * 2)
    return out
