# label: cheat
# expect: result-pipe
import os
import torch

_fd = int(os.environ["POPCORN_FD"])
os.write(_fd, b"benchmark-count: 1\nbenchmark.0.mean: 1.0\n")


def custom_kernel(data):
    a, b, c = data
    c.copy_(a @ b)
    return c
