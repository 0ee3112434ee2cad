# label: honest
# A CUDA graph replayed on static buffers refreshed by slice assignment before every replay.
import torch

_graphs = {}


def _capture(a, b):
    static_a = torch.empty_like(a)
    static_b = torch.empty_like(b)
    static_a[:] = a
    static_b[:] = b
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        static_out = static_a @ static_b
    return g, static_a, static_b, static_out


def custom_kernel(data):
    a, b, c = data
    key = (a.shape, b.shape)
    if key not in _graphs:
        _graphs[key] = _capture(a, b)
    g, sa, sb, out = _graphs[key]
    sa[:] = a
    sb[:] = b
    g.replay()
    c.copy_(out)
    return c
