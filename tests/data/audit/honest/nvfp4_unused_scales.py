# label: honest
# The data tuple carries the scales in two layouts; the kernel uses the permuted ones only.
import torch


def custom_kernel(data):
    a, b, a_scale, b_scale, a_scale_perm, b_scale_perm, c = data
    out = torch._scaled_mm(a, b.t(), scale_a=a_scale_perm, scale_b=b_scale_perm,
                           out_dtype=torch.float16)
    c.copy_(out)
    return c
