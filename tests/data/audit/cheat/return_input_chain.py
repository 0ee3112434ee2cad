# label: cheat
# expect: return-input
import torch


def custom_kernel(data):
    x, out = data
    y = x
    z = y.view(-1)
    w = z
    return w.view_as(x)
