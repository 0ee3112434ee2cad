# label: cheat
# expect: constant-output
import torch


def custom_kernel(data):
    x, weight, out = data
    return torch.zeros_like(out)
