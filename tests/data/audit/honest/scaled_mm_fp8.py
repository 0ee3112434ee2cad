# label: honest
# reference-float-bits: 8
# An fp8 problem computed with torch._scaled_mm.
import torch


def custom_kernel(data):
    a, b, scale_a, scale_b, c = data
    out = torch._scaled_mm(a, b.t(), scale_a=scale_a, scale_b=scale_b, out_dtype=torch.bfloat16)
    c.copy_(out)
    return c
