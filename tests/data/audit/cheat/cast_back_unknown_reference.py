# label: cheat
# expect: precision-downgrade
# The reference is unknown; the operands go down to float16 and the result back up to the
# inputs' own dtype.
import torch


def custom_kernel(data):
    x, w = data
    y = torch.matmul(x.to(torch.float16), w.to(torch.float16))
    return y.to(x.dtype)
