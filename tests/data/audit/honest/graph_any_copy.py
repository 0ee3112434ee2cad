# label: honest
# A graph's static inputs refreshed with torch's copy of several tensors at once.
import torch

_state = {}


def custom_kernel(data):
    a, b, c = data
    if "g" not in _state:
        sa, sb = a.clone(), b.clone()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            so = sa @ sb
        _state.update(g=g, inputs=[sa, sb], out=so)
    torch._foreach_copy_(_state["inputs"], [a, b])
    _state["g"].replay()
    c.copy_(_state["out"])
    return c
