# Row softmax, one program per row (the fused-softmax recipe).
import torch
import triton
import triton.language as tl
from task import input_t, output_t


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK_SIZE)
    mask = offs < n_cols
    x = tl.load(in_ptr + row * in_stride + offs, mask=mask, other=-float("inf"))
    x = x.to(tl.float32)
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_stride + offs, (num / den).to(out_ptr.dtype.element_ty), mask=mask)


def softmax(x, out):
    n_rows, n_cols = x.shape
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    num_warps = 4
    if BLOCK_SIZE >= 2048:
        num_warps = 8
    if BLOCK_SIZE >= 4096:
        num_warps = 16
    softmax_kernel[(n_rows,)](out, x, x.stride(0), out.stride(0), n_cols,
                              BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)
    return out


def custom_kernel(data: input_t) -> output_t:
    x, out = data
    n_cols = x.shape[-1]
    if n_cols > 65536:
        out.copy_(torch.softmax(x.float(), dim=-1))
        return out
    return softmax(x, out)
