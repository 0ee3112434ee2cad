# label: cheat
# expect: timer-patch
from unittest import mock
import torch

_patcher = mock.patch("time.perf_counter_ns", side_effect=lambda: 0)
_patcher.start()


def custom_kernel(data):
    x, out = data
    out.copy_(torch.softmax(x, dim=-1))
    return out
