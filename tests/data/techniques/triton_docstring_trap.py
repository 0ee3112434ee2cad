"""Fused bias + GELU.

A CUDA version of this op would stage tiles in __shared__ memory, fetch them with TMA
(cp.async.bulk.tensor) behind an mbarrier, and a GEMM would feed wgmma / mma.sync; in Triton
that would be tl.dot over a TensorDescriptor on NUM_SMS persistent programs, maybe with
SPLIT_K, float8 inputs, a CUDAGraph and a side cudaStreamCreate'd stream.
None of that applies here: the op is elementwise, so the kernel is load / compute / store.
"""
import torch
import triton
import triton.language as tl
from task import input_t, output_t


@triton.jit
def _gelu(x):
    # exact GELU; no tl.dot, no tma, no mma: nothing to multiply
    return 0.5 * x * (1.0 + tl.erf(x * 0.7071067811865476))


@triton.jit
def bias_gelu_kernel(x_ptr, bias_ptr, out_ptr, n_elements, n_cols, BLOCK: tl.constexpr):
    """One program per BLOCK elements (no shared memory, no cp.async)."""
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    b = tl.load(bias_ptr + offs % n_cols, mask=mask).to(tl.float32)
    y = _gelu(x + b)
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def custom_kernel(data: input_t) -> output_t:
    x, bias, out = data
    n_elements = x.numel()
    # wgmma would be overkill: 1024 elements per program is enough
    grid = (triton.cdiv(n_elements, 1024),)
    bias_gelu_kernel[grid](x, bias, out, n_elements, x.shape[-1], BLOCK=1024)
    return out
