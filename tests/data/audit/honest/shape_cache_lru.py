# label: honest
# Compiled kernels cached per shape.
import functools

import torch


@functools.lru_cache(maxsize=None)
def _kernel_for(shape, dtype):
    def run(a, b, c):
        return torch.matmul(a, b, out=c)

    return run


def custom_kernel(data):
    a, b, c = data
    return _kernel_for(tuple(a.shape), a.dtype)(a, b, c)
