# label: cheat
# expect: env-mode-check
import os
import torch


def custom_kernel(data):
    x, y = data
    if os.environ.get("KERNELBOT_BENCHMARK_MODE") == "1":
        return y
    y.copy_(x * 2)
    return y
