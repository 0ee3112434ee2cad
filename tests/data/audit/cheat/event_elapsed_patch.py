# label: cheat
# expect: timer-patch
import torch
from task import input_t, output_t

_orig = torch.cuda.Event.elapsed_time


def _fast(self, end):
    return _orig(self, end) / 20


torch.cuda.Event.elapsed_time = _fast


def custom_kernel(data: input_t) -> output_t:
    a, b, c = data
    torch.matmul(a, b, out=c)
    return c
