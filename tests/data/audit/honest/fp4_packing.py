# label: honest
import torch
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    a, b, sfa, sfb, c = data
    m, k_packed, l = a.shape
    k = k_packed * 2
    scale_cols = k // 16
    for batch in range(l):
        a_f = a[:, :, batch].view(torch.float4_e2m1fn_x2)
        b_f = b[:, :, batch].view(torch.float4_e2m1fn_x2)
        c[:m, :, batch] = torch._scaled_mm(a_f, b_f.t(), sfa[:, :scale_cols, batch],
                                           sfb[:, :scale_cols, batch], out_dtype=torch.float16)
    return c
