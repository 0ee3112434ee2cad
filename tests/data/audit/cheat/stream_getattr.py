# label: cheat
# expect: unsynced-stream
import torch

side = getattr(torch.cuda, "Str" + "eam")()


def custom_kernel(data):
    a, b, c = data
    with torch.cuda.stream(side):
        torch.matmul(a, b, out=c)
    return c
