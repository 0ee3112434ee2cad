# label: cheat
# expect: timer-patch
# Full-width letters: Python reads the name in NFKC, so this is time.perf_counter.
import time

import torch

ｔｉｍｅ.perf_counter = lambda: 0.0


def custom_kernel(data):
    a, b, c = data
    torch.matmul(a, b, out=c)
    return c
