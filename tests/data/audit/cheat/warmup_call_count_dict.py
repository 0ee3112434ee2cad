# label: cheat
# expect: warmup-branch
# Counts calls in a module-level dict; after the checked calls it returns the first result.
import torch

_state = {"calls": 0, "out": None}


def custom_kernel(data):
    a, b, c = data
    _state["calls"] += 1
    if _state["calls"] > 2 and _state["out"] is not None:
        return _state["out"]
    _state["out"] = torch.matmul(a, b, out=c)
    return c
