# label: cheat
# expect: unsynced-stream
import torch

_side = torch.cuda.Stream()


def custom_kernel(data):
    a, b, c = data
    with torch.cuda.stream(_side):
        torch.mm(a, b, out=c)
    return c
