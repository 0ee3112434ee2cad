# label: honest
import torch
import triton
import triton.language as tl


@triton.jit
def hist_kernel(x, out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x + offs, mask=offs < n, other=0)
    tl.atomic_add(out + v, 1, mask=offs < n)


def custom_kernel(data):
    x, counts = data
    counts.zero_()
    n = x.numel()
    hist_kernel[(triton.cdiv(n, 1024),)](x, counts, n, BLOCK=1024)
    return counts
