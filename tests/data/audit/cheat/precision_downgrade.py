# label: cheat
# reference-float-bits: 32
# expect: precision-downgrade
import torch


def custom_kernel(data):
    a, b, c = data
    c.copy_((a.half() @ b.half()).float())
    return c
