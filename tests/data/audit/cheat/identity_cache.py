# label: cheat
# expect: cached-output-replay
import torch

_results = {}


def custom_kernel(data):
    a, b, c = data
    key = (a.data_ptr(), b.data_ptr(), a.shape)
    if key in _results:
        return _results[key]
    torch.mm(a, b, out=c)
    _results[key] = c.clone()
    return c
