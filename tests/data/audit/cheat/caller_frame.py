# label: cheat
# expect: caller-frame
import sys
import torch


def custom_kernel(data):
    x, y = data
    caller = sys._getframe(1).f_code.co_name
    if caller == "benchmark":
        return y
    y.copy_(torch.relu(x))
    return y
