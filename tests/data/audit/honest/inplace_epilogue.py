# label: honest
# An in-place epilogue on the output.
import torch


def custom_kernel(data):
    x, w, bias, out = data
    torch.matmul(x, w, out=out)
    out.add_(bias)
    out.relu_()
    return out
