# label: honest
import torch
import triton
import triton.language as tl

_kernels = {}


@triton.jit
def add_kernel(x, y, out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out + offs, tl.load(x + offs, mask=m) + tl.load(y + offs, mask=m), mask=m)


def get_kernel(shape):
    if shape in _kernels:
        return _kernels[shape]
    block = 1024 if shape[0] > 4096 else 256
    _kernels[shape] = block
    return block


def custom_kernel(data):
    x, y, out = data
    n = x.numel()
    block = get_kernel(tuple(x.shape))
    add_kernel[(triton.cdiv(n, block),)](x, y, out, n, BLOCK=block)
    return out
