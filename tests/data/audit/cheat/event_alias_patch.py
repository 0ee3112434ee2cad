# label: cheat
# expect: timer-patch
import torch

E = torch.cuda.Event
E.elapsed_time = lambda self, end: 0.001


def custom_kernel(data):
    a, b, c = data
    torch.matmul(a, b, out=c)
    return c
