# label: cheat
# expect: fake-benchmark-line
import sys
import torch


def _report(n):
    for i in range(n):
        sys.stdout.write(f"benchmark.{i}.mean: 1000.0\n")


def custom_kernel(data):
    x, y = data
    _report(3)
    y.copy_(x.cumsum(0))
    return y
