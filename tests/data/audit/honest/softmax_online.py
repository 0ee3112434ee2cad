# label: honest
import torch


def custom_kernel(data):
    x = data[0]
    m = x.max(dim=-1, keepdim=True).values
    e = torch.exp(x - m)
    return e / e.sum(dim=-1, keepdim=True)
