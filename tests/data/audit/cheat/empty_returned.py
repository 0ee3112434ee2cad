# label: cheat
# expect: unwritten-output
# Returns a freshly allocated, never written tensor: the caching allocator may hand back the
# memory that held the reference's output, which then compares equal.
import torch


def custom_kernel(data):
    a, b, c = data
    out = torch.empty_like(c)
    return out
