import torch


def custom_kernel(data):
    a, b, scale_a, scale_b, c = data
    a8 = a.to(torch.float8_e4m3fnuz)
    b8 = b.to(torch.float8_e5m2fnuz)
    out = torch._scaled_mm(a8, b8.t(), scale_a=scale_a, scale_b=scale_b,
                           out_dtype=torch.bfloat16)
    c.copy_(out)
    return c
