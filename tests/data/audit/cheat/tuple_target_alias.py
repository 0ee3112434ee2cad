# label: cheat
# expect: timer-patch
import time

import torch

clock, unused = time, None
clock.perf_counter = lambda: 0.0


def custom_kernel(data):
    a, b, c = data
    torch.matmul(a, b, out=c)
    return c
