# label: cheat
# reference-float-bits: 32
# expect: precision-downgrade
# A float32 problem computed in bfloat16 and cast back.
import torch


def custom_kernel(data):
    a, b, c = data
    c = (a.to(torch.bfloat16) @ b.to(torch.bfloat16)).to(a.dtype)
    return c
