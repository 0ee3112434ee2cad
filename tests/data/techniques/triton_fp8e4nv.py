import torch
import triton
import triton.language as tl


@triton.jit
def quant_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(y_ptr + offs, x.to(tl.float8e4nv), mask=m)


def custom_kernel(data):
    x, y = data
    n = x.numel()
    quant_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
    return y
