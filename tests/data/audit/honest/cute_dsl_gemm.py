# label: honest
import torch
import cutlass
import cutlass.cute as cute
from cutlass.cute.runtime import make_ptr

_compiled = None


@cute.kernel
def gemm_kernel(a: cute.Tensor, b: cute.Tensor, c: cute.Tensor):
    tidx, _, _ = cute.arch.thread_idx()
    bidx, _, _ = cute.arch.block_idx()
    c[bidx, tidx] = a[bidx, 0] * b[0, tidx]


def custom_kernel(data):
    global _compiled
    a, b, sfa, sfb, c = data
    ptrs = [make_ptr(cutlass.Float16, t.data_ptr()) for t in (a, b, c)]
    if _compiled is None:
        _compiled = cute.compile(gemm_kernel, *ptrs)
    _compiled(*ptrs)
    return c
