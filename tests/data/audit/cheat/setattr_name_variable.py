# label: cheat
# expect: timer-patch
import time

import torch

attr = "".join(["perf", "_", "counter"])
setattr(time, attr, lambda: 0.0)


def custom_kernel(data):
    a, b, c = data
    torch.matmul(a, b, out=c)
    return c
