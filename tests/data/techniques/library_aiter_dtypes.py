import torch
import aiter
from aiter import dtypes


def custom_kernel(data):
    a, b, a_scale, b_scale, c = data
    a4 = a.view(dtypes.fp4x2)
    b4 = b.view(dtypes.fp4x2)
    return aiter.gemm_a4w4(a4, b4, a_scale.view(dtypes.fp8_e8m0), b_scale.view(dtypes.fp8_e8m0), c)
