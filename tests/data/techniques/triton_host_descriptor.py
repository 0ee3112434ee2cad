# FP8 GEMM with host-side TMA descriptors and per-tensor scales.
import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor
from task import input_t, output_t


@triton.jit
def fp8_gemm_kernel(a_desc, b_desc, c_desc, a_scale_ptr, b_scale_ptr, K,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    off_m = pid_m * BLOCK_M
    off_n = pid_n * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for off_k in range(0, K, BLOCK_K):
        a = a_desc.load([off_m, off_k])
        b = b_desc.load([off_n, off_k])
        acc = tl.dot(a, b.T, acc)
    acc = acc * tl.load(a_scale_ptr) * tl.load(b_scale_ptr)
    c_desc.store([off_m, off_n], acc.to(tl.bfloat16))


def custom_kernel(data: input_t) -> output_t:
    a, b, a_scale, b_scale, c = data
    a = a.view(torch.float8_e4m3fn)
    b = b.view(torch.float8_e4m3fn)
    M, K = a.shape
    N = b.shape[0]
    if M <= 64:
        BLOCK_M = 64
    else:
        BLOCK_M = 128
    BLOCK_N, BLOCK_K = 128, 128
    a_desc = TensorDescriptor(a, a.shape, a.stride(), [BLOCK_M, BLOCK_K])
    b_desc = TensorDescriptor(b, b.shape, b.stride(), [BLOCK_N, BLOCK_K])
    c_desc = TensorDescriptor(c, c.shape, c.stride(), [BLOCK_M, BLOCK_N])
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    fp8_gemm_kernel[grid](a_desc, b_desc, c_desc, a_scale, b_scale, K,
                          BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                          num_warps=8, num_stages=4)
    return c
