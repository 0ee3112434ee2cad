# label: honest
# reference-float-bits: 4
import torch
import aiter


def custom_kernel(data):
    a, b, a_scale, b_scale, c = data
    a_q = a.view(torch.float4_e2m1fn_x2)
    out = aiter.gemm_a4w4(a_q, b, a_scale, b_scale, dtype=torch.bfloat16)
    c.copy_(out)
    return c
