# label: honest
# This problem's data tuple puts the output first.
import torch


def custom_kernel(data):
    out, a, b = data
    out.zero_()
    torch.addmm(out, a, b, out=out)
    return out
