# label: cheat
# expect: return-input
import torch
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    a, b, sfa, sfb, c = data
    return a.view(torch.float16).reshape(c.shape)
