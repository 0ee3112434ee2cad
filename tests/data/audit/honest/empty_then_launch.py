# label: honest
import torch
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x, y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y + offs, tl.maximum(tl.load(x + offs, mask=m), 0.0), mask=m)


def custom_kernel(data):
    x = data[0]
    y = torch.empty_like(x)
    n = x.numel()
    relu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
    return y
