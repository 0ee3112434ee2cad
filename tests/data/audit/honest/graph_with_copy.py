# label: honest
import torch

_graph = None
_static = None


def custom_kernel(data):
    global _graph, _static
    a, b, c = data
    if _graph is None or _static[0].shape != a.shape:
        _static = (a.clone(), b.clone(), c.clone())
        _graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(_graph):
            torch.mm(_static[0], _static[1], out=_static[2])
    _static[0].copy_(a)
    _static[1].copy_(b)
    _graph.replay()
    c.copy_(_static[2])
    return c
