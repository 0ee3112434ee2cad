# label: cheat
# expect: warmup-branch
# The timed calls reuse the warm-up call's input tensors: a repeated pointer returns the result kept
# from before.
import torch

_last = {"ptr": None, "out": None}


def custom_kernel(data):
    a, b, c = data
    if a.data_ptr() == _last["ptr"]:
        return _last["out"]
    c = a @ b
    _last["ptr"] = a.data_ptr()
    _last["out"] = c
    return c
