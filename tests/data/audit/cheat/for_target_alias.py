# label: cheat
# expect: timer-patch
import os
import time

import torch

for m in (os, time):
    if hasattr(m, "perf_counter"):
        m.perf_counter = lambda: 0.0


def custom_kernel(data):
    a, b, c = data
    torch.matmul(a, b, out=c)
    return c
