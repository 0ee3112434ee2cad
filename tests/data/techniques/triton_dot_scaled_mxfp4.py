import torch
import triton
import triton.language as tl


@triton.jit
def mxfp4_gemm(a_ptr, b_ptr, sa_ptr, sb_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr,
               BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K // 2)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K // 2, BLOCK_K // 2):
        a = tl.load(a_ptr + rm[:, None] * (K // 2) + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
        sa = tl.load(sa_ptr + rm[:, None] * (K // 32) + tl.arange(0, BLOCK_K // 32)[None, :])
        sb = tl.load(sb_ptr + rn[:, None] * (K // 32) + tl.arange(0, BLOCK_K // 32)[None, :])
        acc = tl.dot_scaled(a, sa, "e2m1", b, sb, "e2m1", acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.bfloat16))


def custom_kernel(data):
    a, b, sa, sb, c = data
    M, N = c.shape
    K = a.shape[1] * 2
    mxfp4_gemm[(M // 128, N // 128)](a, b, sa, sb, c, M, N, K, BLOCK_M=128, BLOCK_N=128,
                                     BLOCK_K=128)
    return c
