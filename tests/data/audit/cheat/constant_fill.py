# label: cheat
# expect: constant-output
# Fills the output with the value the checker happens to accept instead of running the operators.
import torch


def custom_kernel(data):
    a, b, c = data
    c.fill_(0.5)
    return c
