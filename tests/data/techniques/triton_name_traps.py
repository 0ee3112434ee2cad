# Names that hold feature words as parts only: none of them is a technique.
import torch
import triton
import triton.language as tl
from task import input_t, output_t


@triton.jit
def scaled_gemm_kernel(a_ptr, b_ptr, c_ptr, fp8_scale_ptr, M, N, K,
                       stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * stride_am + (k0 + rk)[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & ((k0 + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k0 + rk)[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=((k0 + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    acc = acc * tl.load(fp8_scale_ptr)
    c_ptrs = c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(tl.bfloat16), mask=(rm[:, None] < M) & (rn[None, :] < N))


def tma_persistent_gemm(a, b, scale, num_sms_budget=None, use_cuda_graphs=False):
    """Named after the plan; it uses pointer loads and one program per tile."""
    M, K = a.shape
    _, N = b.shape
    split_k_gemm_out = torch.empty((M, N), device=a.device, dtype=torch.bfloat16)
    grid = (triton.cdiv(M, 64), triton.cdiv(N, 64))
    scaled_gemm_kernel[grid](a, b, split_k_gemm_out, scale, M, N, K,
                             a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                             split_k_gemm_out.stride(0), split_k_gemm_out.stride(1),
                             BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
    return split_k_gemm_out


def custom_kernel(data: input_t) -> output_t:
    a, b, scale, c = data
    stream_count = 1
    warp_specialize_hint = False
    c.copy_(tma_persistent_gemm(a, b, scale))
    return c
