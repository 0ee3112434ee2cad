# label: cheat
# expect: graph-stale-inputs
import torch

_graph = None
_out = None


def custom_kernel(data):
    global _graph, _out
    a, b, c = data
    if _graph is None:
        _graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(_graph):
            _out = torch.mm(a, b)
    _graph.replay()
    return _out
