# label: cheat
# expect: timer-patch
import torch

__builtins__["exec"]("import time; time.perf_counter = lambda: 0.0")


def custom_kernel(data):
    a, b, c = data
    torch.matmul(a, b, out=c)
    return c
