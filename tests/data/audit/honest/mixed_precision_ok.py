# label: honest
# reference-float-bits: 16
import torch


def custom_kernel(data):
    a, b, c = data
    acc = torch.matmul(a.float(), b.float())
    c.copy_(acc.to(torch.float16))
    return c
