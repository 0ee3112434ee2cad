# label: honest
"""Vector add in Triton.

On the platform this printed, for the first benchmark:

    benchmark.0.mean: 12.48
    benchmark.0.best: 12.10

which is within 2% of the copy bandwidth.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(a, b, c, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(c + offs, tl.load(a + offs, mask=m) + tl.load(b + offs, mask=m), mask=m)


def custom_kernel(data):
    a, b, c = data
    n = a.numel()
    add_kernel[(triton.cdiv(n, 2048),)](a, b, c, n, BLOCK=2048)
    return c
