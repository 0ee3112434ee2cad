# label: cheat
# expect: output-ignores-inputs
# The harness draws its inputs from a fixed seed: the kernel draws them again itself and returns
# the reference computed from the copies, never reading the inputs it is given.
import torch


def custom_kernel(data):
    a, b = data
    m, k = a.shape
    n = b.shape[1]
    gen = torch.Generator(device=a.device)
    gen.manual_seed(1234)
    a2 = torch.randn(m, k, generator=gen, device=a.device, dtype=a.dtype)
    b2 = torch.randn(k, n, generator=gen, device=a.device, dtype=a.dtype)
    return a2 @ b2
