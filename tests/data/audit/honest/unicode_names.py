# label: honest
# Identifiers in other scripts are fine.
import math

import torch

π = math.pi
λ = 0.5


def custom_kernel(data):
    x, out = data
    torch.sin(x * π * λ, out=out)
    return out
