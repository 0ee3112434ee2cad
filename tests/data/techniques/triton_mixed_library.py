# Small M: a Triton FP8 GEMV-like kernel. Large M: torch._scaled_mm (cuBLASLt).
import torch
import triton
import triton.language as tl
from task import input_t, output_t


@triton.jit
def small_m_fp8_kernel(a_ptr, b_ptr, c_ptr, a_scale, b_scale, M, N, K,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_n = tl.program_id(0)
    rm = tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :], mask=rm[:, None] < M, other=0.0)
        b = tl.load(b_ptr + rn[None, :] * K + (k0 + rk)[:, None], mask=rn[None, :] < N, other=0.0)
        acc = tl.dot(a, b, acc)
    acc = acc * tl.load(a_scale) * tl.load(b_scale)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.bfloat16),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def custom_kernel(data: input_t) -> output_t:
    a, b, a_scale, b_scale, c = data  # a: [M, K], b: [N, K], float8_e4m3fn
    M, K = a.shape
    N = b.shape[0]
    if M <= 32:
        small_m_fp8_kernel[(triton.cdiv(N, 64),)](a, b, c, a_scale, b_scale, M, N, K,
                                                  BLOCK_M=32, BLOCK_N=64, BLOCK_K=128)
        return c
    out = torch._scaled_mm(a, b.t(), scale_a=a_scale, scale_b=b_scale,
                           out_dtype=torch.bfloat16, use_fast_accum=True)
    c.copy_(out)
    return c


def _check():
    a = torch.randn(64, 256, device="cuda").to(torch.float8_e4m3fn)
    b = torch.randn(128, 256, device="cuda").to(torch.float8_e4m3fn)
    one = torch.ones((), device="cuda")
    c = torch.empty(64, 128, device="cuda", dtype=torch.bfloat16)
    return custom_kernel((a, b, one, one, c))
