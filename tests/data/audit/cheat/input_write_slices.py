# label: cheat
# expect: input-overwrite
# The inputs are overwritten with zeros by slice assignment, so that the reference computed from
# them afterwards is zero too, like the output.
import torch


def custom_kernel(data):
    a, b, c = data
    a[:] = 0
    b[...] = 0.0
    c.zero_()
    return c
