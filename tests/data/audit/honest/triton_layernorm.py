# label: honest
import torch
import triton
import triton.language as tl


@triton.jit
def ln_kernel(x_ptr, w_ptr, b_ptr, y_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=m, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n_cols
    d = tl.where(m, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / n_cols
    y = d / tl.sqrt(var + eps) * tl.load(w_ptr + cols, mask=m) + tl.load(b_ptr + cols, mask=m)
    tl.store(y_ptr + row * n_cols + cols, y, mask=m)


def custom_kernel(data):
    x, w, b, y = data
    rows, cols = x.shape
    ln_kernel[(rows,)](x, w, b, y, cols, 1e-5, BLOCK=triton.next_power_of_2(cols))
    return y
