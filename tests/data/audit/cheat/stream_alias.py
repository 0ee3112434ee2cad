# label: cheat
# expect: unsynced-stream
import torch

S = torch.cuda.Stream
side = S()


def custom_kernel(data):
    a, b, c = data
    with torch.cuda.stream(side):
        torch.matmul(a, b, out=c)
    return c
