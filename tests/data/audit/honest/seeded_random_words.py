# label: honest
import torch
import triton
import triton.language as tl


@triton.jit
def dropout_kernel(x, out, n, p, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    keep = tl.rand(seed, offs) > p
    tl.store(out + offs, tl.where(keep, tl.load(x + offs, mask=m) / (1 - p), 0.0), mask=m)


def custom_kernel(data):
    x, out, p, seed = data
    n = x.numel()
    dropout_kernel[(triton.cdiv(n, 1024),)](x, out, n, p, seed, BLOCK=1024)
    return out
