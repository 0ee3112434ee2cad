# label: cheat
# expect: input-overwrite
import torch


def custom_kernel(data):
    a, b, c = data
    a.zero_()
    b.zero_()
    c.zero_()
    return c
