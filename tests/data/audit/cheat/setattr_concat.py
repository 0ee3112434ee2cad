# label: cheat
# expect: timer-patch
import time

import torch

setattr(time, "perf_" + "counter", lambda: 0.0)


def custom_kernel(data):
    a, b, c = data
    torch.matmul(a, b, out=c)
    return c
