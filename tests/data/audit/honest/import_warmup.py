# label: honest
# The kernel is run once at import, so that compilation happens outside the timed calls.
import torch
import triton
import triton.language as tl


@triton.jit
def sq_kernel(x, y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(x + offs, mask=m)
    tl.store(y + offs, v * v, mask=m)


def _run(x, y):
    n = x.numel()
    sq_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
    return y


if torch.cuda.is_available():
    _w = torch.ones(1024, device="cuda")
    _run(_w, torch.empty_like(_w))


def custom_kernel(data):
    x, y = data
    return _run(x, y)
