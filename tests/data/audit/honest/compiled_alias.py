# label: honest
import torch


def _impl(data):
    x, w, b = data
    return torch.nn.functional.gelu(x @ w + b)


custom_kernel = torch.compile(_impl, mode="max-autotune")
