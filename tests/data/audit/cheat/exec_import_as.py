# label: cheat
# expect: timer-patch
from builtins import exec as run

import torch

run("import time\ntime.perf_counter = lambda: 0.0")


def custom_kernel(data):
    a, b, c = data
    torch.matmul(a, b, out=c)
    return c
