# label: cheat
# expect: partial-input
# Sums a prefix of a large input and scales the partial sum up to the whole length.
import torch


def _custom_kernel(data):
    data, output = data
    n = data.numel()
    if n > 1_000_000:
        part = n // 100
    else:
        part = n
    return data[:part].sum() * n / part


custom_kernel = torch.compile(_custom_kernel, mode="reduce-overhead")
